// Machine facts every benchmark report starts with: figures mean little without them.
const os = require('node:os');
const { execFileSync } = require('node:child_process');

function machineLine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const sqlite = execFileSync(
    process.execPath,
    [
      '-e',
      "const s=require('@vscode/sqlite3');const d=new s.Database(':memory:');d.get('select sqlite_version() v',(e,r)=>console.log(r.v))",
    ],
    { encoding: 'utf8' },
  ).trim();
  return `${new Date().toISOString().slice(0, 10)} · ${cpu} · ${os.cpus().length} cores · ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB · Node ${process.version} · SQLite ${sqlite} · ${os.platform()} ${os.release()}`;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = (s.length - 1) / 2;
  return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2;
}

/**
 * Busy loops on every core until the returned function stops them (kills these processes only, by their pids): the
 * "both cores busy" side of a latency bench, which a shared machine's load alone would not make repeatable.
 */
function burnCpu() {
  const { spawn } = require('node:child_process');
  const burners = os.cpus().map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => burners.forEach((burner) => burner.kill('SIGKILL'));
}

/**
 * Runs node with `args` in a process of its own, bench/peak-rss.cjs preloaded: its wall seconds (start-up included)
 * and peak resident memory in MiB (worker threads included). Throws with its stderr when it fails.
 */
function measuredNodeRun(args, options = {}) {
  const fs = require('node:fs');
  const path = require('node:path');
  const { spawnSync } = require('node:child_process');
  const rssFile = path.join(os.tmpdir(), `ves-lens-peak-rss-${process.pid}`);
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--require', path.join(__dirname, 'peak-rss.cjs'), ...args], {
    encoding: 'utf8',
    maxBuffer: 2 ** 28,
    ...options,
    env: { ...(options.env ?? process.env), VES_LENS_RSS_FILE: rssFile },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${run.stderr}`);
  const peakMiB = Number(fs.readFileSync(rssFile, 'utf8')) / 2 ** 20;
  fs.rmSync(rssFile, { force: true });
  return { seconds, peakMiB, stdout: run.stdout };
}

module.exports = { machineLine, median, burnCpu, measuredNodeRun };
