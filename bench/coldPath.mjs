// The cold path of `eval` (issue 21): where one whole `eval --metrics ex,f1` process spends its main thread's CPU,
// by phase, on the four official SQLite prediction files of mini-dev. CPU time, not wall time: on a machine shared
// with other work a thread's time on the CPU moves little where wall time moves a lot, and on two cores the main
// thread's CPU is taken from SQLite's threads. bench/coldPathProbe.cjs (loaded with --require) reads Linux's
// /proc/thread-self/schedstat when Node has started, at the first query and at exit; it also sums the CPU of the
// threads alive at exit. `--baseline DIR` runs another build (DIR/bin/ves-lens.js, e.g. a worktree of the previous
// commit after `node esbuild.js` there) in the same rounds, alternating, for a before/after. The gold cache is off
// (VES_LENS_NO_GOLD_CACHE=1) unless --gold-cache: every gold runs, as on a first run. Linux only.
// Usage: node esbuild.js && node bench/coldPath.mjs [--rounds 7] [--files 4] [--baseline DIR] [--gold-cache]
//        [--data ../shared/data/bird-minidev]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const { machineLine, median } = require('./machine.cjs');

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const root = path.resolve(import.meta.dirname, '..');
const rounds = Number(option('--rounds', '7'));
const data = path.resolve(option('--data', path.join(root, '..', 'shared', 'data', 'bird-minidev')));
const predictionDir = path.join(data, 'predictions', 'minidev-official');
const files = fs
  .readdirSync(predictionDir)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .slice(0, Number(option('--files', '4')));
const inputs = [
  ...['--questions', path.join(data, 'questions', 'mini_dev_sqlite.v1-2024.json')],
  ...['--gold', path.join(data, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql')],
  ...['--db-root', path.join(data, 'databases')],
];
const probe = path.join(root, 'bench', 'coldPathProbe.cjs');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-cold-path-'));
const contenders = [{ label: 'this build', checkout: root }];
if (args.includes('--baseline'))
  contenders.push({ label: `baseline (${option('--baseline', '')})`, checkout: path.resolve(option('--baseline', '')) });
const environment = { ...process.env, ...(args.includes('--gold-cache') ? {} : { VES_LENS_NO_GOLD_CACHE: '1' }) };

if (!fs.existsSync('/proc/thread-self/schedstat')) {
  console.error('bench/coldPath.mjs reads /proc/thread-self/schedstat: Linux only');
  process.exit(2);
}

/** One whole eval process: its probe's line and the wall milliseconds. */
function run(contender, file) {
  const out = path.join(scratch, 'probe.jsonl');
  fs.rmSync(out, { force: true });
  const started = process.hrtime.bigint();
  const child = spawnSync(
    process.execPath,
    [
      '--require',
      probe,
      path.join(contender.checkout, 'bin', 'ves-lens.js'),
      'eval',
      ...inputs,
      '--predictions',
      path.join(predictionDir, file),
    ].concat(['--metrics', 'ex,f1', '--no-progress']),
    { env: { ...environment, COLD_PATH_OUT: out }, encoding: 'utf8', maxBuffer: 2 ** 26 },
  );
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== 0) throw new Error(`${contender.label} on ${file} failed (exit ${child.status}): ${child.stderr}`);
  return { ...JSON.parse(fs.readFileSync(out, 'utf8')), wall };
}

const samples = new Map(contenders.map((contender) => [contender, []]));
for (const contender of contenders) for (const file of files) run(contender, file); // V8's code cache of each build
for (let round = 0; round < rounds; round++) {
  for (const file of files) {
    const order = round % 2 ? [...contenders].reverse() : contenders;
    for (const contender of order) samples.get(contender).push(run(contender, file));
  }
  process.stderr.write(`round ${round + 1} of ${rounds}\n`);
}

const ms = (values) => median(values).toFixed(0);
const rows = contenders.map((contender) => {
  const runs = samples.get(contender);
  return [
    contender.label,
    ms(runs.map((r) => r.started)),
    ms(runs.map((r) => r.first_query - r.started)),
    ms(runs.map((r) => r.ended - r.first_query)),
    ms(runs.map((r) => r.ended)),
    ms(runs.map((r) => r.threads)),
    ms(runs.map((r) => r.wall)),
  ];
});
const header = [
  'build',
  'Node started',
  'bundle and inputs, to the first query',
  'queries, scoring, report',
  'main thread in all',
  'all threads alive at exit',
  'wall',
];
const table = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
const report = [
  '# The cold path of eval (issue 21)',
  '',
  `\`node bench/coldPath.mjs${args.length ? ` ${args.join(' ')}` : ''}\`: \`eval --metrics ex,f1\` (default --jobs) on ${files.length} ` +
    `official prediction file(s), ${rounds} rounds, builds alternating; medians over every run of every file, in ` +
    `milliseconds of the main thread's CPU unless said (all threads: CPU of the threads alive at exit; wall: the ` +
    `whole process). Gold cache ${args.includes('--gold-cache') ? 'on' : 'off'}.`,
  '',
  ...table,
  '',
  `${machineLine()}, load average ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')} at the end.`,
  '',
].join('\n');
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench', 'results', 'coldPath.md'), report);
fs.rmSync(scratch, { recursive: true, force: true });
console.log(report);
