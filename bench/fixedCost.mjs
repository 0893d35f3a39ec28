// Where `--timing official` measured in node differs from the official scripts (issue 23): the fixed cost each
// runtime adds to every timed execution, on a trivial query and on a real sub-millisecond pair, in both
// runtimes, each execution on a fresh connection opened outside the timed span as the scripts do.
// - node: VES Lens's own loop (sqliteEngine.timeExecution: node-sqlite3, performance.now()), and its parts.
// - Python: mini_dev's span (cursor, execute, fetchall, close) and DAMO's (execute alone), timed with
//   time.time(), and the same spans with perf_counter() to show what the clock itself adds.
// A ratio t_gold / t_pred of sub-millisecond times moves toward 1 with any cost added to both: (g + c) / (p + c).
// Usage: npx tsx bench/fixedCost.mjs [--runs 2000] [--data ../shared/data/bird-minidev]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { sqliteEngine } from '../src/core/db/sqlite/sqliteEngine';
import { SqliteConnection } from '../src/core/db/sqlite/sqliteConnection';
import { machineLine, median } from './machine.cjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const runs = Number(option('--runs', '2000'));
const data = path.resolve(option('--data', path.join(import.meta.dirname, '..', '..', 'shared', 'data', 'bird-minidev')));
const db = path.join(data, 'databases', 'superhero', 'superhero.sqlite');

// A trivial query (all fixed cost), and a real mini-dev-sized pair: gold and prediction of different speed.
const QUERIES = {
  'SELECT 1': 'SELECT 1',
  'count, 750 heroes': 'SELECT count(*) FROM superhero',
  'join, 5,800 rows': 'SELECT T1.superhero_name FROM superhero AS T1 JOIN hero_power AS T2 ON T2.hero_id = T1.id',
};

const us = (ms) => `${(ms * 1000).toFixed(1)}`;

/** Medians in milliseconds of node's spans and parts (each execution on a fresh read-only connection). */
async function nodeSpans(sql) {
  const spans = { full: [], firstRow: [], drain: [], close: [], open: [] };
  for (let i = 0; i < runs; i++) {
    spans.full.push(await sqliteEngine.timeExecution(db, sql, 'full'));
    spans.firstRow.push(await sqliteEngine.timeExecution(db, sql, 'first-row'));
    let t = performance.now();
    const connection = await SqliteConnection.open(sqliteEngine, db);
    spans.open.push(performance.now() - t);
    t = performance.now();
    await connection.drain(sql);
    spans.drain.push(performance.now() - t);
    t = performance.now();
    await connection.close();
    spans.close.push(performance.now() - t);
  }
  return Object.fromEntries(Object.entries(spans).map(([k, v]) => [k, median(v)]));
}

// Python's spans: the scripts' own lines, and their parts with perf_counter (ns resolution) for comparison.
const PYTHON = String.raw`
import json, sqlite3, sys, time
db, runs, sql = sys.argv[1], int(sys.argv[2]), sys.argv[3]
uri = "file:" + db + "?mode=ro"
def med(v):
    v = sorted(v); n = len(v); return (v[(n - 1) // 2] + v[n // 2]) / 2
full, first, execute, fetch, close, clock = [], [], [], [], [], []
for _ in range(runs):
    conn = sqlite3.connect(uri, uri=True)
    start_time = time.time(); cursor = conn.cursor(); cursor.execute(sql); res = cursor.fetchall(); conn.close()
    full.append(time.time() - start_time)
    conn = sqlite3.connect(uri, uri=True); cursor = conn.cursor()
    start_time = time.time(); cursor.execute(sql); first.append(time.time() - start_time)
    del cursor, conn
    conn = sqlite3.connect(uri, uri=True)
    a = time.perf_counter(); cursor = conn.cursor(); cursor.execute(sql); b = time.perf_counter()
    res = cursor.fetchall(); c = time.perf_counter(); conn.close(); d = time.perf_counter()
    execute.append(b - a); fetch.append(c - b); close.append(d - c)
    a = time.time(); clock.append(time.time() - a)
print(json.dumps({k: med(v) * 1000 for k, v in dict(full=full, first=first, execute=execute, fetch=fetch, close=close, clock=clock).items()}))
`;

function pythonSpans(sql) {
  const result = spawnSync(process.env.VES_LENS_PYTHON || 'python3', ['-c', PYTHON, db, String(runs), sql], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr || result.error}`);
  return JSON.parse(result.stdout);
}

const lines = [
  '# Fixed cost per timed execution: node-sqlite3 against Python sqlite3',
  '',
  machineLine() +
    ` · ${spawnSync('python3', ['-c', 'import sys,sqlite3;print("Python", sys.version.split()[0], "SQLite", sqlite3.sqlite_version)'], { encoding: 'utf8' }).stdout.trim()}`,
  '',
  `superhero, ${runs} executions per cell, each on a fresh read-only connection opened outside the timed span; medians in µs.`,
  '',
  '| query | R-VES span: Python (mini_dev) | R-VES span: node (VES Lens) | node − Python | VES span: Python (DAMO) | VES span: node | node − Python | node parts: drain, close (open, untimed) | Python parts: cursor+execute, fetchall, close |',
  '|---|---|---|---|---|---|---|---|---|',
];
let clockCost = 0;
for (const [name, sql] of Object.entries(QUERIES)) {
  const node = await nodeSpans(sql);
  const py = pythonSpans(sql);
  clockCost = py.clock;
  lines.push(
    `| ${name} | ${us(py.full)} | ${us(node.full)} | ${us(node.full - py.full)} | ${us(py.first)} | ${us(node.firstRow)} | ${us(node.firstRow - py.first)} | ${us(node.drain)}, ${us(node.close)} (${us(node.open)}) | ${us(py.execute)}, ${us(py.fetch)}, ${us(py.close)} |`,
  );
  process.stderr.write(`${name}: done\n`);
}
lines.push(
  '',
  `Two successive time.time() calls: ${us(clockCost)} µs apart (median); its float resolution near today's epoch is about 0.24 µs.`,
);
process.stdout.write(lines.join('\n') + '\n');
