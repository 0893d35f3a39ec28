#!/usr/bin/env node
// Builds on first use so that `npx ves-lens` works straight from a clone.
const fs = require('fs');
const path = require('path');
const bundle = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundle)) {
  require('child_process').execFileSync(process.execPath, [path.join(__dirname, '..', 'esbuild.js')], {
    cwd: path.join(__dirname, '..'),
    stdio: 'inherit',
  });
}

/**
 * Compiling the 1.8 MB bundle is a tenth of a short command's time, every time (Node 20 has no compile cache of its
 * own). V8's code cache of it, with the functions a run compiled, is kept under $XDG_CACHE_HOME/ves-lens/code-cache
 * (or ~/.cache/ves-lens/code-cache), named by the bundle file's identity (device, inode, size, modification time),
 * Node's version and flags: a rebuilt bundle or another Node never meets a stale cache, and V8 itself rejects one
 * whose flags or source length do not fit. VES_LENS_NO_CODE_CACHE=1, or any failure to read, compile or write the
 * cache, loads the bundle the ordinary way.
 */
function loadWithCodeCache() {
  if (process.env.VES_LENS_NO_CODE_CACHE) return false;
  let cacheFile;
  let script;
  try {
    const os = require('os');
    const vm = require('vm');
    // The bundle's identity: a rebuild writes a new file (a new inode and time); V8 also checks the source length.
    // Node's flags are part of it, so that a run with other flags (--inspect) keeps a cache of its own.
    const stat = fs.statSync(bundle, { bigint: true });
    const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
    const identity = [process.version, process.arch, flags, stat.dev, stat.ino, stat.size, stat.mtimeNs].join('\n');
    const key = require('crypto').createHash('sha256').update(identity).digest('hex');
    const source = fs.readFileSync(bundle, 'utf8');
    const folder = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ves-lens', 'code-cache');
    cacheFile = path.join(folder, `cli-${key.slice(0, 32)}.v8cache`);
    let cachedData;
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      // not made yet
    }
    const wrapper = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
    script = new vm.Script(wrapper, { filename: bundle, cachedData });
    if (cachedData && !script.cachedDataRejected) cacheFile = undefined; // nothing to write
  } catch {
    return false;
  }
  if (cacheFile) process.once('exit', () => saveCodeCache(script, cacheFile));
  const Module = require('module');
  const bundleModule = new Module(bundle, module);
  bundleModule.filename = bundle;
  bundleModule.paths = Module._nodeModulePaths(path.dirname(bundle));
  bundleModule.loaded = true;
  const run = script.runInThisContext();
  run.call(bundleModule.exports, bundleModule.exports, Module.createRequire(bundle), bundleModule, bundle, path.dirname(bundle));
  return true;
}

/** Caches of other bundles (older builds, other Node versions) kept beside the new one; older ones are removed. */
const KEPT_CACHES = 3;
/** A temporary this old was left by a run killed while writing (writing takes milliseconds). */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/**
 * Writes the code cache at the end of the run (it then holds every function the run compiled), through a
 * temporary file and a rename; a failure only means the next run compiles again.
 */
function saveCodeCache(script, cacheFile) {
  const folder = path.dirname(cacheFile);
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(temporary, script.createCachedData());
    fs.renameSync(temporary, cacheFile);
    const files = fs
      .readdirSync(folder)
      .map((name) => ({ name, file: path.join(folder, name), mtime: fs.statSync(path.join(folder, name)).mtimeMs }));
    const others = files.filter(({ name }) => /^cli-[0-9a-f]{32}\.v8cache$/.test(name) && name !== path.basename(cacheFile));
    const stale = others.sort((a, b) => b.mtime - a.mtime).slice(KEPT_CACHES);
    stale.push(...files.filter(({ name, mtime }) => name.endsWith('.tmp') && Date.now() - mtime > STALE_TEMPORARY_MS));
    for (const { file } of stale) fs.rmSync(file, { force: true });
  } catch {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // nothing more to do
    }
  }
}

if (!loadWithCodeCache()) require(bundle);
