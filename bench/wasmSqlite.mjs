// WebAssembly SQLite candidates for the fallback engine (issue 31), measured on one large database file:
// whether each opens a file on disk read-only without reading it whole, reads double-quoted strings as node-sqlite3
// does, lets two readers in at once, explains plans, and how long a scan takes, against native node-sqlite3.
// Usage: node bench/wasmSqlite.mjs [--rows 2000000]   (installs the candidates into a temporary prefix from npm)
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { machineLine } = require('./machine.cjs');
const rows = Number(process.argv[process.argv.indexOf('--rows') + 1] || 2_000_000);
const CANDIDATES = ['node-sqlite3-wasm', 'sql.js', '@sqlite.org/sqlite-wasm', 'wa-sqlite'];
const QUERY = "SELECT count(*), sum(length(body)) FROM big WHERE body LIKE '%7%'";

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-wasm-bench-'));
const prefix = path.join(work, 'candidates');
fs.mkdirSync(prefix);
const pinned = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).dependencies['@sqlite.org/sqlite-wasm'];
const specs = CANDIDATES.map((name) => (name === '@sqlite.org/sqlite-wasm' ? `${name}@${pinned.replace(/^\^/, '')}` : name));
execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--ignore-scripts', ...specs], { stdio: 'ignore' });
const installed = Object.fromEntries(
  CANDIDATES.map((name) => [name, JSON.parse(fs.readFileSync(path.join(prefix, 'node_modules', name, 'package.json'), 'utf8')).version]),
);

// The large file, written by native node-sqlite3: `rows` rows of about 100 bytes.
const file = path.join(work, 'data', 'big.sqlite');
fs.mkdirSync(path.dirname(file));
const sqlite3 = require('@vscode/sqlite3');
await new Promise((resolve, reject) => {
  const db = new sqlite3.Database(file);
  db.exec(
    `PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT);
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
     INSERT INTO big SELECT i, printf('%.100c', char(48 + i % 10)) || hex(randomblob(8)) FROM n;`,
    (error) => (error ? reject(error) : db.close(resolve)),
  );
});
const fileMiB = fs.statSync(file).size / 2 ** 20;

// Native node-sqlite3 on the same query, for scale.
const native = JSON.parse(
  execFileSync(
    process.execPath,
    [
      '-e',
      `const s=require('@vscode/sqlite3');const d=new s.Database(${JSON.stringify(file)},s.OPEN_READONLY);const t=performance.now();` +
        `d.all(${JSON.stringify(QUERY)},()=>{console.log(JSON.stringify({ms:performance.now()-t,rss:process.memoryUsage().rss/2**20}))})`,
    ],
    { encoding: 'utf8' },
  ),
);

const results = CANDIDATES.map((candidate) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/wasmSqliteProbe.ts', candidate, prefix, file, QUERY], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  const line = run.stdout.trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    return { candidate, error: (run.stderr || run.stdout).slice(0, 200) };
  }
});
fs.rmSync(work, { recursive: true, force: true });

const cell = (value, digits = 0) => (typeof value === 'number' ? (Number.isNaN(value) ? '–' : value.toFixed(digits)) : (value ?? '–'));
console.log(`\`node bench/wasmSqlite.mjs --rows ${rows}\`: a ${fileMiB.toFixed(0)} MiB file; query \`${QUERY}\`.\n`);
console.log(
  '| candidate | npm version | SQLite | init ms | open ms | query ms | RSS after query MiB | double-quoted strings | two readers at once | EXPLAIN QUERY PLAN | left beside the file |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
console.log(`| native @vscode/sqlite3 (for scale) | – | – | – | – | ${cell(native.ms)} | ${cell(native.rss)} | yes | yes | yes | – |`);
for (const r of results) {
  if (r.error) console.log(`| ${r.candidate} | ${installed[r.candidate]} | failed: ${r.error.replace(/\|/g, '/')} |||||||||`);
  else
    console.log(
      `| ${r.candidate} | ${installed[r.candidate]} | ${r.version} | ${cell(r.initMs)} | ${cell(r.openMs)} | ${cell(r.queryMs)} | ${cell(r.rssAfterQueryMiB)} | ${r.doubleQuotedStrings.replace(/\|/g, '/')} | ${r.twoReaders.replace(/\|/g, '/')} | ${r.plan} | ${r.leftBeside.join(', ') || 'nothing'} |`,
    );
}
console.log(
  `\n${machineLine()}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} at the end (a machine shared with other work).`,
);
