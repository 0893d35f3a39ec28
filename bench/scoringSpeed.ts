// Scoring speed (issue 21): `ves-lens eval --metrics ex,f1` against mini_dev's own way of computing EX (a Python
// process pool, one worker per core, one task per question: bench/python/minidev_sqlite_ex.py), whole processes,
// on the four official SQLite prediction files (all 500 questions each; VES Lens skips the 360 whose database is
// not shared, the script fails them at connect). Each round runs the three contenders over the four files in a
// rotating order (python, default --jobs, --jobs 1); medians over rounds, side by side. The first round also checks
// that both give the same EX on every question. `--baseline DIR` adds another build of VES Lens (DIR/bin/ves-lens.js,
// e.g. a worktree of the previous commit after `node esbuild.js` there), for a before/after in the same session.
// Each contender's CPU seconds (user + system, all its threads and processes) are read through GNU time where it is
// installed: on a busy machine they say more than wall time. VES Lens keeps the gold queries' results between runs
// (its gold-result cache): every prediction file of a benchmark is scored against the same gold, so a user's later
// runs read them instead of running them. Three ways are measured: with the cache filled (a later run), with the
// cache emptied before each round's first file (a first session scoring several files: the first file runs the
// gold, the others read it), and with --no-gold-cache (every gold run, as in a first run of one file). The bench's own XDG_CACHE_HOME holds that cache and the CLI's
// code cache, both filled by the agreement check before the timed rounds. Writes bench/results/scoringSpeed.md.
// Usage: node esbuild.js && npx tsx bench/scoringSpeed.ts [--rounds 7] [--files 4] [--baseline DIR] [--data ../shared/data/bird-minidev]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultJobs } from '../src/core/eval/parallelEval';
import { machineLine, median } from './machine.cjs';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', '7'));
const root = path.resolve(__dirname, '..');
const data = path.resolve(option('--data', path.join(root, '..', 'shared', 'data', 'bird-minidev')));
const PYTHON = '/usr/bin/python3';
const predictionDir = path.join(data, 'predictions', 'minidev-official');
const files = fs
  .readdirSync(predictionDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .slice(0, Number(option('--files', '4')));
const questions = path.join(data, 'questions', 'mini_dev_sqlite.v1-2024.json');
const gold = path.join(data, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql');
const dbRoot = path.join(data, 'databases');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-scoring-speed-'));
const cores = defaultJobs();
const baseline = args.includes('--baseline') ? path.resolve(option('--baseline', '')) : undefined;
const GNU_TIME = '/usr/bin/time';
const cpuMeasured = fs.existsSync(GNU_TIME);
const cpuFile = path.join(scratch, 'cpu.txt');

interface Timed {
  seconds: number;
  /** User + system CPU seconds of the child and its children (NaN without GNU time). */
  cpu: number;
  stdout: string;
}

/** Wall (and CPU) seconds of a child process, which must succeed. */
function timed(command: string, commandArgs: string[]): Timed {
  const [run0, runArgs] = cpuMeasured ? [GNU_TIME, ['-o', cpuFile, '-f', '%U %S', command, ...commandArgs]] : [command, commandArgs];
  const started = process.hrtime.bigint();
  const run = spawnSync(run0, runArgs, { encoding: 'utf8', maxBuffer: 2 ** 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`${path.basename(command)} ${commandArgs.slice(0, 2).join(' ')} failed: ${run.stderr}`);
  const cpu = cpuMeasured
    ? fs
        .readFileSync(cpuFile, 'utf8')
        .trim()
        .split('\n')
        .pop()!
        .split(' ')
        .reduce((sum, part) => sum + Number(part), 0)
    : NaN;
  return { seconds, cpu, stdout: run.stdout };
}

const python = (file: string) => timed(PYTHON, [path.join(root, 'bench', 'python', 'minidev_sqlite_ex.py'), file, gold, dbRoot]);

const cacheHome = path.join(scratch, 'cache');
process.env.XDG_CACHE_HOME = cacheHome;

const vesLens = (file: string, jobs: number | undefined, json?: string, checkout = root, goldCache = true) =>
  timed(process.execPath, [
    path.join(checkout, 'bin', 'ves-lens.js'),
    'eval',
    ...['--questions', questions, '--gold', gold, '--predictions', file, '--db-root', dbRoot],
    ...['--metrics', 'ex,f1', '--no-progress'],
    ...(jobs === undefined ? [] : ['--jobs', String(jobs)]),
    ...(goldCache ? [] : ['--no-gold-cache']),
    ...(json ? ['--json', json] : []),
  ]);

/** Empties the gold-result cache (cacheFolder's rule under the bench's XDG_CACHE_HOME), keeping the CLI's code cache. */
const emptyGoldCache = () => fs.rmSync(path.join(cacheHome, 'ves-lens', 'gold-results'), { recursive: true, force: true });

/** A contender runs one file; `first` says it is a round's first file (the fresh-cache contender starts empty there). */
const CONTENDERS: { label: string; run: (file: string, first: boolean) => Timed }[] = [
  { label: `mini_dev's EX, Python process pool (${cores} workers)`, run: python },
  {
    label: `VES Lens eval --metrics ex,f1 (default: --jobs ${cores}), gold results from its cache (a later run)`,
    run: (file) => vesLens(file, undefined),
  },
  {
    label: `VES Lens eval --metrics ex,f1 (--jobs ${cores}), an empty cache: the first file runs every gold, the next read them`,
    run: (file, first) => {
      if (first) emptyGoldCache();
      return vesLens(file, undefined);
    },
  },
  {
    label: `VES Lens eval --metrics ex,f1 --no-gold-cache (--jobs ${cores}; every gold run, as a first run)`,
    run: (file) => vesLens(file, undefined, undefined, root, false),
  },
  { label: 'VES Lens eval --metrics ex,f1 --no-gold-cache --jobs 1', run: (file) => vesLens(file, 1, undefined, root, false) },
  ...(baseline
    ? [
        {
          label: `VES Lens before (${path.basename(baseline)}), default --jobs`,
          run: (file: string) => vesLens(file, undefined, undefined, baseline),
        },
      ]
    : []),
];

interface SpeedReport {
  inputs: { gold_cache?: { hits: number; stored: number } | null };
  questions: { index: number; ex: number; outcome: string }[];
}

/**
 * Both tools give the same EX on every question of every file (else the timing compares different work): VES Lens
 * runs each file twice, the first file's first run on an empty gold-result cache (it runs every gold and stores the
 * results), every later run reading them back; each line says how many it read and stored.
 */
function checkAgreement(): string[] {
  const lines: string[] = [];
  for (const file of files) {
    const full = path.join(predictionDir, file);
    const script = JSON.parse(python(full).stdout) as number[];
    for (const run of ['run 1', 'run 2']) {
      const json = path.join(scratch, `${file}.${run.replace(' ', '-')}.json`);
      vesLens(full, undefined, json);
      const report = JSON.parse(fs.readFileSync(json, 'utf8')) as SpeedReport;
      const scored = report.questions.filter((q) => q.outcome !== 'skipped');
      const differing = scored.filter((q) => q.ex !== script[q.index]).map((q) => q.index);
      const cache = report.inputs.gold_cache;
      lines.push(
        `- ${file}, ${run}${cache ? ` (${cache.hits} gold results read from the cache, ${cache.stored} stored)` : ''}: ` +
          `${scored.length - differing.length} of ${scored.length} questions with the same EX${differing.length ? ` (differ: ${differing.join(', ')})` : ''}`,
      );
    }
  }
  return lines;
}

function main() {
  // The first runs also write VES Lens's code cache (bin/ves-lens.js), so every timed run starts as a user's second run does.
  const agreement = checkAgreement();
  if (baseline) for (const file of files) vesLens(path.join(predictionDir, file), undefined, undefined, baseline);
  const seconds = CONTENDERS.map(() => [] as number[]);
  const cpu = CONTENDERS.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    // Rotate who goes first, so that a slow spell of a shared machine does not always land on the same contender.
    for (let k = 0; k < CONTENDERS.length; k++) {
      const c = (round + k) % CONTENDERS.length;
      let total = 0;
      let totalCpu = 0;
      for (const [i, file] of files.entries()) {
        const run = CONTENDERS[c].run(path.join(predictionDir, file), i === 0);
        total += run.seconds;
        totalCpu += run.cpu;
      }
      seconds[c].push(total);
      cpu[c].push(totalCpu);
    }
    process.stderr.write(`round ${round + 1}/${rounds}: ${seconds.map((s) => s.at(-1)!.toFixed(2)).join(' s, ')} s\n`);
  }
  const medians = seconds.map(median);
  const cpuMedians = cpu.map(median);
  const row = (i: number) =>
    `| ${CONTENDERS[i].label} | ${medians[i].toFixed(2)} | ` +
    `${Math.min(...seconds[i]).toFixed(2)}–${Math.max(...seconds[i]).toFixed(2)} | ` +
    `${(medians[i] / medians[0]).toFixed(2)} | ${cpuMeasured ? cpuMedians[i].toFixed(2) : '–'} |`;
  const report = [
    "# Scoring speed: VES Lens against mini_dev's EX process pool",
    '',
    machineLine(),
    '',
    `Whole processes over the ${files.length} official SQLite prediction files of mini-dev (500 questions each, 140 on the shared`,
    `databases), ${rounds} rounds in rotating order; seconds for all ${files.length} files together.`,
    '',
    '| contender | median s | range s | × Python pool | median CPU s |',
    '|---|---|---|---|---|',
    ...CONTENDERS.map((_, i) => row(i)),
    '',
    `--jobs 1 over the default (both --no-gold-cache): ×${(medians[4] / medians[3]).toFixed(2)}. ` +
      "VES Lens also computes Soft-F1 and every question's outcome.",
    `Load average at the end (1, 5, 15 min): ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(', ')} on ${os.cpus().length} cores.`,
    '',
    'Same EX, question by question (before the timed rounds):',
    ...agreement,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(root, 'bench', 'results', 'scoringSpeed.md'), report);
  process.stdout.write(report);
  fs.rmSync(scratch, { recursive: true, force: true });
}

main();
