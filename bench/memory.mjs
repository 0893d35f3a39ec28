// Peak memory of `ves-lens eval` on the worst predictions: a huge string, a huge blob, many large values,
// millions of rows, a 4-way cross join (on the real superhero database), with default settings, and a raised
// --max-rows; then huge SQL texts (31 MB `SELECT 1,1,…`, 12.6 MB `SELECT 1+1+…`) in a BIRD prediction file, and six
// statements just within the bound of what runs (MEMORY_BOUNDS.statementBytes) in the shape SQLite's compiler costs
// most, each with --jobs 1, 2 and 4 while two busy processes load the machine; then through explain and hints.
// The bound: under 1 GiB. Then the timing, which runs in a Python child (src/core/timing/pythonTimer.ts) in both modes
// (`--timing official`'s loops, `--timing fast`'s blocks): node's RSS and the child's, sampled together, on an
// EX-correct pair whose result is as large as correctness allows.
// Usage: node bench/memory.mjs [--sql-text-only | --official-only]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machineLine } from './machine.cjs';

const root = path.resolve(import.meta.dirname, '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-memory-'));
const question = (id, sql) => ({
  question_id: id,
  db_id: 'superhero',
  question: '',
  evidence: '',
  SQL: 'SELECT count(*) FROM superhero',
  difficulty: 'simple',
  pred: sql,
});
/** MEMORY_BOUNDS.statementBytes (src/core/db/database.ts): longer entries are refused before anything reads them. */
const STATEMENT_BYTES = 2 ** 18;
const justWithin = `VALUES (1)${',(1)'.repeat(Math.floor((STATEMENT_BYTES - 64) / 4))}`;
// Huge SQL texts; the analyses that read SQL step aside past their own bounds (src/core/sql/textBounds.ts).
const SQL_TEXTS = [
  ['31 MB prediction text `SELECT 1,1,…`', [`SELECT 1${',1'.repeat((31 * 2 ** 20 - 8) / 2)}`]],
  ['12.6 MB prediction text `SELECT 1+1+…`', [`SELECT 1${'+1'.repeat((12_600_000 - 8) / 2)}`]],
  [
    `6 predictions of 256 KiB \`SELECT count(*) FROM (VALUES (1),(1),…)\` (just within the bound)`,
    Array.from({ length: 6 }, (_, i) => `SELECT ${i} + count(*) FROM (${justWithin})`),
  ],
];
const sqlTextOnly = process.argv.includes('--sql-text-only');
const officialOnly = process.argv.includes('--official-only');
// superhero has 750 rows and colour 35: the joins below return from 0.4 to 19.7 million rows.
const cases = [
  ...(sqlTextOnly || officialOnly
    ? []
    : [
        ["a 1.5 GB string: printf('%.*c', 1500000000, 'x')", "SELECT printf('%.*c', 1500000000, 'x')", []],
        ['a 1 GB blob: zeroblob(1e9)', 'SELECT zeroblob(1000000000)', []],
        ['5,800 blobs of 8 MB each', 'SELECT zeroblob(8000000) FROM hero_power', []],
        ['4-way cross join, every column (316 billion rows)', 'SELECT * FROM superhero a, superhero b, superhero c, superhero d', []],
        ['400,000 rows (under the default cap)', 'SELECT a.id, b.superhero_name FROM superhero a, superhero b LIMIT 400000', []],
        [
          '19.7 million rows, default --max-rows (500,000)',
          'SELECT a.id, b.superhero_name, c.colour FROM superhero a, superhero b, colour c',
          [],
        ],
        [
          '5.1 million rows, --max-rows 6,000,000',
          'SELECT a.id, b.superhero_name FROM superhero a, superhero b, (SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9) LIMIT 5100000',
          ['--max-rows', '6000000'],
        ],
      ]),
];

/** `ves-lens eval` of the scratch folder's questions (q.json) and predictions (`predictions`) on the sample, with `options`. */
const evalOnScratch = (json, options, predictions = 'p.sql') => [
  path.join(root, 'bin', 'ves-lens.js'),
  'eval',
  ...['--questions', path.join(scratch, 'q.json'), '--predictions', path.join(scratch, predictions)],
  ...['--db-root', path.join(root, 'sample'), ...options, '--json', json, '--no-progress'],
];

/** One eval in a process of its own with bench/peak-rss.cjs preloaded: its report's questions, seconds and peak MiB. */
function evalPeak(options, predictions) {
  const rss = path.join(scratch, 'rss');
  const json = path.join(scratch, 'out.json');
  const started = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    ['--require', path.join(root, 'bench', 'peak-rss.cjs'), ...evalOnScratch(json, ['--timeout', '120', ...options], predictions)],
    { encoding: 'utf8', env: { ...process.env, VES_LENS_RSS_FILE: rss } },
  );
  if (result.status !== 0) throw new Error(result.stderr);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = Number(fs.readFileSync(rss, 'utf8')) / 2 ** 20;
  return { questions: JSON.parse(fs.readFileSync(json, 'utf8')).questions, seconds, peak };
}

/** `mismatch` or `refused: the SQL has …`; several questions' outcomes counted (`6 mismatch`). */
function outcomeText(questions) {
  if (questions.length === 1) return `${questions[0].outcome}${questions[0].error ? `: ${questions[0].error}` : ''}`;
  const counts = new Map();
  for (const q of questions) counts.set(q.outcome, (counts.get(q.outcome) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
}

const lines = [
  '# Memory on huge results',
  '',
  machineLine(),
  '',
  "Shared machine: other engineers ran tests and builds at the same time. Peak RSS is the process's maxrss (every",
  "thread's, SQLite's heap included), by bench/peak-rss.cjs.",
  '',
  '| prediction | --jobs | outcome | wall s | peak RSS MiB |',
  '|---|---|---|---|---|',
];
for (const [label, sql, extra] of cases) {
  fs.writeFileSync(path.join(scratch, 'q.json'), JSON.stringify([question(1, sql)]));
  fs.writeFileSync(path.join(scratch, 'p.sql'), sql + '\n');
  const run = evalPeak(['--metrics', 'ex,f1', '--jobs', '1', ...extra]);
  lines.push(`| ${label} | 1 | ${outcomeText(run.questions)} | ${run.seconds.toFixed(1)} | ${run.peak.toFixed(0)} |`);
  process.stderr.write(lines.at(-1) + '\n');
}

// The huge texts in the official prediction file's shape ({"0": "SQL\t----- bird -----\tdb_id"}), default metrics,
// --jobs 1, 2 and 4, with the machine's two cores kept busy by two other processes (a loaded machine once took the
// 31 MB text to 1.4 GiB).
if (!officialOnly) {
  lines.push('', 'The same with two busy processes beside the run (its two cores loaded), default metrics:', '');
  lines.push('| BIRD prediction file of | --jobs | outcome | wall s | peak RSS MiB |', '|---|---|---|---|---|');
  const load = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    for (const [label, sqls] of SQL_TEXTS) {
      fs.writeFileSync(path.join(scratch, 'q.json'), JSON.stringify(sqls.map((sql, i) => question(i, sql))));
      const entries = sqls.map((sql, i) => [String(i), `${sql}\t----- bird -----\tsuperhero`]);
      fs.writeFileSync(path.join(scratch, 'p.json'), JSON.stringify(Object.fromEntries(entries)));
      for (const jobs of [1, 2, 4]) {
        const run = evalPeak(['--jobs', String(jobs)], 'p.json');
        lines.push(`| ${label} | ${jobs} | ${outcomeText(run.questions)} | ${run.seconds.toFixed(1)} | ${run.peak.toFixed(0)} |`);
        process.stderr.write(lines.at(-1) + '\n');
      }
    }
  } finally {
    for (const child of load) child.kill('SIGKILL');
  }
}
// `explain` and `hints` of the same texts (from a file: they are too long for a command-line argument).
for (const command of officialOnly ? [] : ['explain', 'hints']) {
  lines.push('', `| \`ves-lens ${command} --file\` of | result | wall s | peak RSS MiB |`, '|---|---|---|---|');
  for (const [label, [sql]] of SQL_TEXTS.slice(0, 2)) {
    fs.writeFileSync(path.join(scratch, 'p.sql'), sql + '\n');
    const rss = path.join(scratch, 'rss');
    const started = process.hrtime.bigint();
    const result = spawnSync(
      process.execPath,
      [
        '--require',
        path.join(root, 'bench', 'peak-rss.cjs'),
        path.join(root, 'bin', 'ves-lens.js'),
        command,
        '--db',
        path.join(root, 'sample', 'superhero', 'superhero.sqlite'),
        '--file',
        path.join(scratch, 'p.sql'),
      ],
      { encoding: 'utf8', env: { ...process.env, VES_LENS_RSS_FILE: rss, NO_COLOR: '1' } },
    );
    if (result.status !== 0) throw new Error(result.stderr);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const stepAside = /no plan: (.*)|\d (hints: not analysed.*)/.exec(result.stdout);
    const said = (stepAside?.[1] ?? stepAside?.[2] ?? (command === 'explain' ? 'a plan' : 'analysed')).replace(
      /, so memory stays bounded\).*/,
      ')',
    );
    lines.push(`| ${label} | ${said} | ${seconds.toFixed(1)} | ${(Number(fs.readFileSync(rss, 'utf8')) / 2 ** 20).toFixed(0)} |`);
    process.stderr.write(lines.at(-1) + '\n');
  }
}

/** Resident and peak-resident MiB of a process (Linux /proc), 0 once it is gone. */
function procMiB(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
const childrenOf = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/**
 * Runs eval and samples, every 20 ms, node's RSS and its Python child's: the peak of their sum (what the machine
 * holds), node's peak while the child holds more than its idle size (the timing loop fetching), the child's own peak.
 */
async function timingPeak(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const peaks = { total: 0, nodeWhileFetching: 0, python: 0, pythonIdle: Infinity };
  const sample = setInterval(() => {
    const node = procMiB(child.pid, 'VmRSS');
    const pythons = childrenOf(child.pid);
    let total = node;
    for (const pid of pythons) {
      const rss = procMiB(pid, 'VmRSS');
      total += rss;
      peaks.python = Math.max(peaks.python, procMiB(pid, 'VmHWM'));
      if (rss > 0) peaks.pythonIdle = Math.min(peaks.pythonIdle, rss);
      if (rss > peaks.pythonIdle + 32) peaks.nodeWhileFetching = Math.max(peaks.nodeWhileFetching, node);
    }
    peaks.total = Math.max(peaks.total, total);
  }, 20);
  const status = await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(sample);
  if (status !== 0) throw new Error(stderr);
  return peaks;
}

// EX-correct pairs (the prediction is the gold) whose results are as large as correctness lets through: the timing
// fetches them in Python, twice per iteration (official: after the correctness run's set(pred) and set(gold)).
const TIMED_CASES = [
  ['600 blobs of 200 KB (120 MB of values, under the 128 MiB result bound)', 'SELECT zeroblob(200000) FROM hero_power LIMIT 600'],
  ['500,000 rows of two columns (the default --max-rows)', 'SELECT a.id, b.superhero_name FROM superhero a, superhero b LIMIT 500000'],
];
// Official mode's loops (3 iterations) and fast mode's blocks, both metrics' quantities.
const TIMING_MODES = [
  ['`--timing official --metrics ex,rves --iterations 3`', ['--metrics', 'ex,rves', '--timing', 'official', '--iterations', '3']],
  ['`--timing fast --metrics ex,ves,rves`', ['--metrics', 'ex,ves,rves', '--timing', 'fast']],
];
lines.push(
  '',
  'Timing in a Python child (official loops, fast blocks): peaks sampled every 20 ms',
  '',
  '| EX-correct pair | timing | outcome | node MiB while Python fetches | Python peak MiB | node + Python peak MiB |',
  '|---|---|---|---|---|---|',
);
for (const [label, sql] of TIMED_CASES)
  for (const [mode, modeArgs] of TIMING_MODES) {
    fs.writeFileSync(path.join(scratch, 'q.json'), JSON.stringify([{ ...question(1, sql), SQL: sql }]));
    fs.writeFileSync(path.join(scratch, 'p.sql'), sql + '\n');
    const json = path.join(scratch, 'out.json');
    const peaks = await timingPeak(evalOnScratch(json, modeArgs));
    const q0 = JSON.parse(fs.readFileSync(json, 'utf8')).questions[0];
    const note = q0.notes?.find((n) => /memory|timing failed/.test(n));
    lines.push(
      `| ${label} | ${mode} | ${q0.outcome}${note ? `: ${note}` : ''} | ${peaks.nodeWhileFetching.toFixed(0)} | ` +
        `${peaks.python.toFixed(0)} | ${peaks.total.toFixed(0)} |`,
    );
    process.stderr.write(lines.at(-1) + '\n');
  }

const report = lines.join('\n') + '\n';
// A partial run (--sql-text-only, --official-only) prints its rows without replacing the full results.
if (!sqlTextOnly && !officialOnly) fs.writeFileSync(path.join(root, 'bench', 'results', 'memory.md'), report);
process.stdout.write(report);
