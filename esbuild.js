// Bundles each entry point into dist/. Native @vscode/sqlite3 stays external: it is loaded from node_modules.
const esbuild = require('esbuild');

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** One entry per face of the engine (design.md): the CLI now; the server and the extension join later. */
const entryPoints = {
  cli: 'src/cli/main.ts',
};

async function main() {
  const options = {
    entryPoints,
    outdir: 'dist',
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: !production,
    minify: production,
    external: ['@vscode/sqlite3', 'vscode'],
    logLevel: 'warning',
  };
  if (watch) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    await esbuild.build(options);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
