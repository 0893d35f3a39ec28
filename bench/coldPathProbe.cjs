// Loaded with `node --require` into the `eval` process bench/coldPath.mjs runs: the main thread's CPU time
// (Linux's /proc/thread-self/schedstat, nanoseconds on the CPU, whatever else the machine runs) when Node has
// started (this file runs), when the first query is prepared, and at exit, and the CPU time of every thread
// still alive at exit (the SQLite worker threads, V8's helpers), appended as one JSON line to $COLD_PATH_OUT.
const fs = require('node:fs');
const Module = require('node:module');

const onCpuMs = (file) => Number(fs.readFileSync(file, 'utf8').split(' ')[0]) / 1e6;
const mainThreadMs = () => onCpuMs('/proc/thread-self/schedstat');
const started = mainThreadMs();
let firstQuery;

// The driver is loaded by the bundle through require: its prepare() is wrapped to note the first statement.
const load = Module.prototype.require;
Module.prototype.require = function (id) {
  const loaded = load.apply(this, arguments);
  if (id === '@vscode/sqlite3' && !loaded.Database.prototype.prepare.coldPathProbe) {
    const prepare = loaded.Database.prototype.prepare;
    loaded.Database.prototype.prepare = function () {
      firstQuery ??= mainThreadMs();
      return prepare.apply(this, arguments);
    };
    loaded.Database.prototype.prepare.coldPathProbe = true;
  }
  return loaded;
};

process.on('exit', () => {
  const ended = mainThreadMs();
  let threads = 0;
  for (const task of fs.readdirSync('/proc/self/task')) threads += onCpuMs(`/proc/self/task/${task}/schedstat`);
  const line = { started, first_query: firstQuery ?? ended, ended, threads };
  fs.appendFileSync(process.env.COLD_PATH_OUT, `${JSON.stringify(line)}\n`);
});
