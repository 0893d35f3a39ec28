// Bundles each face of the engine into dist/, and copies the webviews' assets into dist/media.
// Native @vscode/sqlite3 stays external: it is loaded from node_modules (and shipped inside the .vsix).
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** One entry per face (design.md): the command line, the language server, the extension (client). */
const entryPoints = {
  cli: 'src/cli/main.ts',
  server: 'src/server/server.ts',
  extension: 'src/extension/extension.ts',
};

/** Webview assets: our own media/ plus the theme's codicons, VS Code Elements and Chart.js. */
const mediaFiles = {
  'codicon.css': 'node_modules/@vscode/codicons/dist/codicon.css',
  'codicon.ttf': 'node_modules/@vscode/codicons/dist/codicon.ttf',
  'vscode-elements.js': 'node_modules/@vscode-elements/elements/dist/bundled.js',
  'chart.umd.js': 'node_modules/chart.js/dist/chart.umd.min.js',
};

function copyMedia() {
  const target = path.join(__dirname, 'dist', 'media');
  fs.mkdirSync(target, { recursive: true });
  for (const file of fs.readdirSync(path.join(__dirname, 'media'))) fs.copyFileSync(path.join(__dirname, 'media', file), path.join(target, file));
  for (const [name, source] of Object.entries(mediaFiles)) fs.copyFileSync(path.join(__dirname, source), path.join(target, name));
}

/** The webviews' highlighting: highlight.js's core with its SQL grammar only (about 30 kB), as window.hljs. */
function buildHighlight() {
  return esbuild.build({
    stdin: {
      contents: "import hljs from 'highlight.js/lib/core'; import sql from 'highlight.js/lib/languages/sql'; hljs.registerLanguage('sql', sql); window.hljs = hljs;",
      resolveDir: __dirname,
      loader: 'js',
    },
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome114',
    outfile: path.join('dist', 'media', 'highlight.js'),
    logLevel: 'warning',
  });
}

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
    // The local embedding model (optional dependencies, 31 MB of weights) is loaded from node_modules when installed, never bundled.
    external: ['@vscode/sqlite3', 'vscode', '@energetic-ai/*'],
    // ESM entry points first: jsonc-parser's UMD build loads its parts with a require esbuild cannot follow.
    mainFields: ['module', 'main'],
    logLevel: 'warning',
  };
  copyMedia();
  await buildHighlight();
  if (process.argv.includes('--extension-tests')) {
    // The suite that runs inside VS Code's extension host (code-server, or desktop through test-electron).
    await esbuild.build({ ...options, entryPoints: { suite: 'test/extension/suite.ts' }, outdir: 'out/test/extension', minify: false });
    return;
  }
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
