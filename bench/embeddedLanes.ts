// The embedded PostgreSQL (PGlite, no server) scoring in two lanes against one (issue 33): `eval --engine postgres
// --db-root <SQLite folder> --metrics ex` over mini-dev's three official PostgreSQL prediction files, `--jobs 1`
// and `--jobs 2` alternating, each run a process of its own with its peak memory (bench/peak-rss.cjs). Checks every
// run gives the same per-question EX; reports wall medians (start-up included), their ratio and the peak memory.
// The embedded copy is built before the first timed run (a kept copy is what a user's second run finds).
// Writes bench/results/embeddedLanes.md.
// Usage: node esbuild.js && npx tsx bench/embeddedLanes.ts [--runs 5] [--data ../shared/data/bird-minidev]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { machineLine, measuredNodeRun, median } from './machine.cjs';
import { benchOptions } from './serverMinidev';

const root = path.resolve(__dirname, '..');
const { runs, data } = benchOptions();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-embedded-lanes-'));
const predictionsDir = path.join(data, 'predictions', 'minidev-postgresql');
const files = fs
  .readdirSync(predictionsDir)
  .filter((file) => file.endsWith('.json'))
  .sort();

interface Run {
  seconds: number;
  peakMiB: number;
  ex: string;
}

/** One eval in a process of its own: wall seconds, peak memory, and every question's EX (what must not change). */
function evalRun(predictions: string, jobs: number): Run {
  const json = path.join(scratch, `report-${jobs}.json`);
  const { seconds, peakMiB } = measuredNodeRun([
    path.join(root, 'bin', 'ves-lens.js'),
    'eval',
    '--engine',
    'postgres',
    '--db-root',
    path.join(data, 'databases'),
    '--questions',
    path.join(data, 'questions', 'mini_dev_sqlite.v1-2024.json'),
    '--gold',
    path.join(data, 'questions', 'mini_dev_postgresql_gold.sql'),
    '--predictions',
    predictions,
    '--metrics',
    'ex',
    '--jobs',
    String(jobs),
    '--json',
    json,
    '--no-progress',
  ]);
  const report = JSON.parse(fs.readFileSync(json, 'utf8')) as { questions: { ex: number }[] };
  return { seconds, peakMiB, ex: report.questions.map((q) => q.ex).join('') };
}

const load = () => os.loadavg()[0].toFixed(1);
const rows: string[] = [];
const loads: string[] = [load()];
evalRun(path.join(predictionsDir, files[0]), 1); // builds (or finds) the kept copy
for (const file of files) {
  const one: Run[] = [];
  const two: Run[] = [];
  for (let i = 0; i < runs; i++) {
    // Alternating, starting with a different side each round, so a drift in the machine's load falls on both.
    const order = i % 2 === 0 ? [1, 2] : [2, 1];
    for (const jobs of order) (jobs === 1 ? one : two).push(evalRun(path.join(predictionsDir, file), jobs));
    loads.push(load());
  }
  const same = [...one, ...two].every((run) => run.ex === one[0].ex);
  const wall1 = median(one.map((r) => r.seconds));
  const wall2 = median(two.map((r) => r.seconds));
  const peak = (list: Run[]) => Math.max(...list.map((r) => r.peakMiB)).toFixed(0);
  const ex = ((100 * [...one[0].ex].filter((c) => c === '1').length) / 140).toFixed(2);
  rows.push(
    `| ${file.replace(/^predict_mini_dev_|\.json$/g, '')} | ${ex} | ${same ? 'yes' : '**no**'} | ${wall1.toFixed(2)} | ${wall2.toFixed(2)} | ×${(wall2 / wall1).toFixed(2)} | ${peak(one)} | ${peak(two)} |`,
  );
}
fs.rmSync(scratch, { recursive: true, force: true });

const sortedLoads = loads.map(Number).sort((a, b) => a - b);
const report = `# The embedded PostgreSQL in two lanes against one

${machineLine()} · ${runs} runs per side, alternating · \`npx tsx bench/embeddedLanes.ts --runs ${runs}\`

\`eval --engine postgres --db-root <the three shared databases> --metrics ex --json\` (PGlite, no server) over each
official PostgreSQL prediction file of mini-dev (the 140 questions of the three databases; the other 360 are
skipped alike), \`--jobs 1\` against \`--jobs 2\`. Two lanes share the first WASM thread until a statement keeps the
other lane waiting for 3 s; then a second thread (a working copy of the data and PostgreSQL's start) takes it.
Wall seconds are medians and include the process's start and the kept copy's opening; peak memory is the largest
over the runs (the whole process). Same: every run of both sides gave the same EX question by question. The
machine's load average (1 minute) around the rounds: ${sortedLoads[0]} to ${sortedLoads.at(-1)} on ${os.cpus().length} cores.

| prediction file | EX | same | --jobs 1 wall s | --jobs 2 wall s | 2 / 1 | --jobs 1 peak MiB | --jobs 2 peak MiB |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
fs.writeFileSync(path.join(root, 'bench', 'results', 'embeddedLanes.md'), report);
process.stdout.write(report);
