// Bundles each face of the engine into dist/, the webview pages (src/webview, for the browser) into dist/media,
// and copies the webviews' other assets there. `--pages` builds the pages and highlight.js only (the webview tests).
// Native @vscode/sqlite3 stays external: it is loaded from node_modules (and shipped inside the .vsix).
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/**
 * One entry per face (design.md): the command line, the language server, the extension (client); and the
 * embedded PostgreSQL's worker thread, which the command line and the server start from dist/.
 */
const entryPoints = {
  cli: 'src/cli/main.ts',
  server: 'src/server/server.ts',
  extension: 'src/extension/extension.ts',
  pgliteWorker: 'src/core/db/pglite/pgliteWorker.ts',
};

/** The webview pages, one bundle each (dist/media/<page>.js), named as the panels load them. */
const pageEntryPoints = {
  score: 'src/webview/score/scorePage.ts',
  plan: 'src/webview/plan/planPage.ts',
  report: 'src/webview/report/reportPage.ts',
  audit: 'src/webview/audit/auditPage.ts',
  compare: 'src/webview/compare/comparePage.ts',
  optimize: 'src/webview/optimize/optimizePage.ts',
};

/** The source files the page bundles were built from, for test/webview/harness.ts to tell when they are stale. */
const PAGE_INPUTS = path.join('dist', 'webview-inputs.json');

/** Webview assets: our own media/ (styles) plus the theme's codicons, VS Code Elements and Chart.js. */
const mediaFiles = {
  'codicon.css': 'node_modules/@vscode/codicons/dist/codicon.css',
  'codicon.ttf': 'node_modules/@vscode/codicons/dist/codicon.ttf',
  'vscode-elements.js': 'node_modules/@vscode-elements/elements/dist/bundled.js',
  'chart.umd.js': 'node_modules/chart.js/dist/chart.umd.min.js',
};

/** SQLite's WebAssembly module, beside dist/sqliteWasmWorker.mjs, where the library looks for it (import.meta.url). */
function copySqliteWasm() {
  fs.copyFileSync(
    path.join(__dirname, 'node_modules', '@sqlite.org', 'sqlite-wasm', 'dist', 'sqlite3.wasm'),
    path.join(__dirname, 'dist', 'sqlite3.wasm'),
  );
}

/**
 * The WebAssembly SQLite's worker thread (src/core/db/sqliteWasm/): an ES module, as the library is, so that it
 * finds its .wasm file through import.meta.url.
 */
function buildSqliteWasmWorker(production) {
  return esbuild.build({
    entryPoints: { sqliteWasmWorker: 'src/core/db/sqliteWasm/wasmWorker.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: production,
    logLevel: 'warning',
  });
}

/** PGlite's WASM modules and file-system image, beside dist/pgliteWorker.js where its bundled code looks for them. */
function copyPgliteFiles() {
  for (const file of ['pglite.wasm', 'pglite.data', 'initdb.wasm'])
    fs.copyFileSync(path.join(__dirname, 'node_modules', '@electric-sql', 'pglite', 'dist', file), path.join(__dirname, 'dist', file));
}

function copyMedia() {
  const target = path.join(__dirname, 'dist', 'media');
  fs.mkdirSync(target, { recursive: true });
  for (const file of fs.readdirSync(path.join(__dirname, 'media'))) {
    if (file.endsWith('.css')) fs.copyFileSync(path.join(__dirname, 'media', file), path.join(target, file));
  }
  for (const [name, source] of Object.entries(mediaFiles)) fs.copyFileSync(path.join(__dirname, source), path.join(target, name));
}

/**
 * Writes a build's outputs each to a temporary file renamed into place: a page test reading a bundle while
 * another process rebuilds it sees the old file or the new one, never half of one.
 */
function writeAtomically(result) {
  for (const file of result.outputFiles ?? []) writeFileAtomically(file.path, file.contents);
  return result;
}

function writeFileAtomically(file, contents) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

/** The webviews' highlighting: highlight.js's core with its SQL grammar only (about 30 kB), as window.hljs. */
function buildHighlight() {
  return esbuild
    .build({
      write: false,
      stdin: {
        contents:
          "import hljs from 'highlight.js/lib/core'; import sql from 'highlight.js/lib/languages/sql'; hljs.registerLanguage('sql', sql); window.hljs = hljs;",
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
    })
    .then(writeAtomically);
}

/** Options of the page bundles: browser scripts; Chart.js, highlight.js and VS Code Elements stay separate scripts. */
function pageOptions(production) {
  return {
    entryPoints: pageEntryPoints,
    outdir: path.join('dist', 'media'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome114',
    minify: production,
    sourcemap: production ? false : 'inline',
    metafile: true,
    logLevel: 'warning',
  };
}

function savePageInputs(result) {
  if (!result.metafile) return; // a failed build (watch mode) built nothing
  const inputs = Object.keys(result.metafile.inputs).sort();
  const outputs = Object.keys(pageEntryPoints).map((page) => `dist/media/${page}.js`);
  writeFileAtomically(PAGE_INPUTS, JSON.stringify({ outputs, inputs }, null, 2));
}

async function buildPages(production) {
  const result = writeAtomically(await esbuild.build({ ...pageOptions(production), write: false }));
  savePageInputs(result);
}

/**
 * pg decides at load whether it runs in a Cloudflare Worker by building a fetch Response, which loads Node's
 * undici: about 50 ms of every command's start-up (and the language server's), for a check that is always false
 * under Node. The bundle skips that probe; should pg's text change, the file is bundled as it is (only slower).
 */
const skipCloudflareProbe = {
  name: 'skip-pg-cloudflare-probe',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, 'utf8');
      const probe = "if (typeof Response === 'function') {";
      if (!text.includes(probe)) return undefined;
      return { contents: text.replace(probe, 'if (false) {'), loader: 'js' };
    });
  },
};

/**
 * Packages no SQLite run uses, loaded on first use instead of at every start: mysql2's client is about 20 ms of
 * each command's start-up (and the language server's), paid by every run for a MySQL target few runs name. Each
 * import of them resolves to a stand-in whose exports (the package's own names, read here at build time) are
 * getters that load the real package when one is first read; the stand-in's own require resolves as usual.
 */
const LOADED_ON_FIRST_USE = ['mysql2', 'mysql2/promise'];
const loadOnFirstUse = {
  name: 'load-on-first-use',
  setup(build) {
    const filter = new RegExp(`^(${LOADED_ON_FIRST_USE.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => (args.namespace === 'first-use' ? undefined : { path: args.path, namespace: 'first-use' }));
    build.onLoad({ filter: /.*/, namespace: 'first-use' }, (args) => {
      const load = `let real;\nconst load = () => (real ??= require(${JSON.stringify(args.path)}));\n`;
      const names = Object.keys(require(args.path)).map((name) => JSON.stringify(name));
      const getters = names.map((name) => `Object.defineProperty(exports, ${name}, { enumerable: true, get: () => load()[${name}] });`);
      return { contents: load + getters.join('\n'), resolveDir: __dirname, loader: 'js' };
    });
  },
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
    // The local embedding model (optional dependencies, 31 MB of weights) is loaded from node_modules when installed, never bundled.
    external: ['@vscode/sqlite3', 'vscode', '@energetic-ai/*'],
    // PGlite's CommonJS build, which finds its WASM module and data files beside the script it is in (its ES
    // module build looks for them through import.meta.url, which a CommonJS bundle does not have): copyPgliteFiles.
    alias: { '@electric-sql/pglite': './node_modules/@electric-sql/pglite/dist/index.cjs' },
    // ESM entry points first: jsonc-parser's UMD build loads its parts with a require esbuild cannot follow.
    mainFields: ['module', 'main'],
    plugins: [skipCloudflareProbe, loadOnFirstUse],
    logLevel: 'warning',
  };
  await buildHighlight();
  if (process.argv.includes('--pages')) return buildPages(production);
  copyMedia();
  copyPgliteFiles();
  copySqliteWasm();
  await buildSqliteWasmWorker(production);
  if (process.argv.includes('--extension-tests')) {
    // The suite that runs inside VS Code's extension host (code-server, or desktop through test-electron).
    await buildPages(production);
    await esbuild.build({ ...options, entryPoints: { suite: 'test/extension/suite.ts' }, outdir: 'out/test/extension', minify: false });
    return;
  }
  if (watch) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
    const recordInputs = { name: 'page-inputs', setup: (build) => build.onEnd(savePageInputs) };
    const pages = await esbuild.context({ ...pageOptions(production), plugins: [recordInputs] });
    await pages.watch();
  } else {
    await esbuild.build(options);
    await buildPages(production);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
