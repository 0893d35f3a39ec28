// mini_dev's own scoring with a server's Python driver beside `ves-lens eval` on that server (bench/postgres.ts with
// psycopg2, bench/mysql.ts with pymysql): the 140 mini-dev questions of the three shared databases (the other 360
// would fail alike in both):
// (a) EX of the three official prediction files of the dialect: `eval --metrics ex` against mini_dev's
//     evaluation_ex.py computed with the driver (a process pool, one worker per core, as the script), per-question
//     agreement and wall time, medians of the alternating runs;
// (b) R-VES of gpt-4's file: fast and official timing against evaluation_ves.py's own loop with the driver, totals
//     with their spread over the runs, the coverage of fast's intervals, per-question rewards, wall time.
// Writes bench/results/<resultFile>.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mean, quantile, sampleStandardDeviation } from 'simple-statistics';
import { rvesContribution } from '../src/core/metrics/efficiency';
import { machineLine, median } from './machine.cjs';

/** One server dialect's bench: where its files are, how VES Lens and the Python side reach the server. */
export interface ServerBench {
  /** `PostgreSQL`, `MySQL`: the dialect, as the gold is named. */
  title: string;
  /** `--engine` of eval. */
  engine: string;
  /** The Python driver mini_dev uses for it (`psycopg2`, `pymysql`). */
  driver: string;
  /** The question file, the gold file (under questions/) and the prediction folder (under predictions/). */
  questions: string;
  gold: string;
  predictions: string;
  /** eval's arguments naming the server (`--db-url …`). */
  engineArgs: string[];
  /** The Python side (`<script> ex|rves <predictions> <gold> ...pythonArgs`). */
  python: string;
  pythonArgs: string[];
  /** After the machine line: the server's and the driver's versions. */
  versionLine: string;
  /** How the server was set up and loaded (one sentence). */
  setup: string;
  /** What makes two statements the same work on it (fast mode leaves them untimed). */
  sameWork: string;
  resultFile: string;
}

const root = path.resolve(__dirname, '..');
const PYTHON = '/usr/bin/python3';
const DATABASES = ['superhero', 'toxicology', 'student_club'];

/** The bench's command line: --runs, --data, --only ex|rves. */
export function benchOptions(): { runs: number; only?: string; data: string } {
  const args = process.argv.slice(2);
  const option = (name: string, fallback?: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  return {
    runs: Number(option('--runs', '3')),
    only: option('--only'),
    data: path.resolve(option('--data', path.join(root, '..', 'shared', 'data', 'bird-minidev'))!),
  };
}

/** The Python driver's version, as the report's first line gives it. */
export function pythonModuleVersion(module: string): string {
  return spawnSync(PYTHON, ['-c', `import ${module}; print(${module}.__version__.split()[0])`], { encoding: 'utf8' }).stdout.trim();
}

interface Question {
  question_id: number;
  db_id: string;
}
interface ReportQuestion {
  question_id: number;
  ex: number;
  rves_reward?: number | null;
  rves_time_ratio?: number | null;
  rves_time_ratio_interval?: [number, number] | null;
  rves_time_ratio_typical?: number;
  rves_uncertain?: boolean;
  same_program?: boolean;
}
interface Report {
  summary: { total: { ex: number; rves?: number } };
  questions: ReportQuestion[];
}

/** The total EX of eval's printed table (the last figure of its EX row). */
function printedEx(stdout: string): string {
  const row = stdout
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .find((line) => /^│ EX\b/.test(line));
  return row?.match(/[\d.]+/g)?.at(-1) ?? '?';
}

/** Wall seconds of a child process, which must succeed. */
export function timed(command: string, commandArgs: string[]): { seconds: number; stdout: string } {
  const started = process.hrtime.bigint();
  const run = spawnSync(command, commandArgs, { encoding: 'utf8', maxBuffer: 2 ** 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`${path.basename(command)} ${commandArgs.slice(0, 2).join(' ')} failed: ${run.stderr}`);
  return { seconds, stdout: run.stdout };
}

/** The 140 questions of the shared databases, with their PostgreSQL gold and each file's predictions, by new position. */
function subsetFiles(
  bench: ServerBench,
  predictionFiles: string[],
  scratch: string,
): { questions: string; gold: string; predictions: Map<string, string> } {
  const questions = JSON.parse(fs.readFileSync(path.join(data, 'questions', bench.questions), 'utf8')) as Question[];
  const gold = fs.readFileSync(path.join(data, 'questions', bench.gold), 'utf8').split('\n');
  const kept = questions.map((q, i) => ({ q, i })).filter(({ q }) => DATABASES.includes(q.db_id));
  const files = {
    questions: path.join(scratch, 'questions.json'),
    gold: path.join(scratch, 'gold.sql'),
    predictions: new Map<string, string>(),
  };
  fs.writeFileSync(files.questions, JSON.stringify(kept.map(({ q }) => q)));
  fs.writeFileSync(files.gold, kept.map(({ i }) => `${gold[i]}\n`).join(''));
  for (const file of predictionFiles) {
    const entries = JSON.parse(fs.readFileSync(path.join(data, 'predictions', bench.predictions, file), 'utf8')) as Record<string, unknown>;
    const subset = path.join(scratch, file);
    fs.writeFileSync(subset, JSON.stringify(Object.fromEntries(kept.map(({ i }, position) => [String(position), entries[String(i)]]))));
    files.predictions.set(file, subset);
  }
  return files;
}

const meanSd = (values: number[]) => `${mean(values).toFixed(2)} (${(values.length > 1 ? sampleStandardDeviation(values) : 0).toFixed(2)})`;
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(0)} %` : '–');
const shortName = (file: string) => file.replace(/^predict_mini_dev_|\.json$/g, '');

let data = '';

/** Runs both parts (or the one --only names) and writes the report; returns it. */
export function runServerBench(bench: ServerBench): string {
  const { runs, only } = benchOptions();
  data = benchOptions().data;
  const predictionDir = path.join(data, 'predictions', bench.predictions);
  const predictionFiles = fs
    .readdirSync(predictionDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const RVES_FILE = predictionFiles.find((f) => f.includes('gpt-4_'))!;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `ves-lens-${bench.engine}-bench-`));
  const files = subsetFiles(bench, predictionFiles, scratch);
  // json undefined: the scores printed only, as the script prints its accuracies (no report written).
  const vesLens = (predictions: string, json: string | undefined, extra: string[]) =>
    timed(process.execPath, [
      path.join(root, 'bin', 'ves-lens.js'),
      'eval',
      ...bench.engineArgs,
      '--questions',
      files.questions,
      '--gold',
      files.gold,
      '--predictions',
      predictions,
      ...(json ? ['--json', json] : []),
      '--no-progress',
      ...extra,
    ]);
  const read = (json: string) => JSON.parse(fs.readFileSync(json, 'utf8')) as Report;

  const lines = [
    `# ${bench.title}: VES Lens against mini_dev’s ${bench.driver} scoring`,
    '',
    `${machineLine()} · ${bench.versionLine}`,
    '',
    `${bench.setup}; ` +
      `the ${JSON.parse(fs.readFileSync(files.questions, 'utf8')).length} mini-dev questions of those databases with the official ${bench.title} gold ` +
      `(the other 360 have no database here). ${runs} runs per tool, alternating; wall times are medians and include each process's start.`,
  ];

  if (only !== 'rves') {
    const rows: string[] = [];
    // The 1-minute load average after each run: others' work on a shared machine slows both tools, not alike.
    const loads: number[] = [];
    for (const file of predictionFiles) {
      const ours: { seconds: number; ex: number[] }[] = [];
      const oneLane: { seconds: number; ex: number[] }[] = [];
      const python: { seconds: number; ex: number[] }[] = [];
      const printed: { seconds: number; total: string }[] = [];
      for (let run = 0; run < runs; run++) {
        const json = path.join(scratch, `${file}.ex.${run}.json`);
        const order = run % 2 === 0 ? ['python', 'printed', 'ves-lens', 'one-lane'] : ['one-lane', 'ves-lens', 'printed', 'python'];
        for (const tool of order) {
          if (tool === 'python') {
            const result = timed(PYTHON, [bench.python, 'ex', files.predictions.get(file)!, files.gold, ...bench.pythonArgs]);
            python.push({ seconds: result.seconds, ex: JSON.parse(result.stdout) as number[] });
          } else if (tool === 'printed') {
            const result = vesLens(files.predictions.get(file)!, undefined, ['--metrics', 'ex']);
            printed.push({ seconds: result.seconds, total: printedEx(result.stdout) });
          } else {
            // Lanes as the pool: one per core (--jobs's default); and one session, as before issue 33.
            const jobs = tool === 'ves-lens' ? String(os.cpus().length) : '1';
            const result = vesLens(files.predictions.get(file)!, json, ['--metrics', 'ex', '--jobs', jobs]);
            (tool === 'ves-lens' ? ours : oneLane).push({ seconds: result.seconds, ex: read(json).questions.map((q) => q.ex) });
          }
        }
        loads.push(os.loadavg()[0]);
        process.stderr.write(`EX run ${run + 1}/${runs} ${shortName(file)}\n`);
      }
      const total = (ex: number[]) => ((100 * ex.reduce((a, b) => a + b, 0)) / ex.length).toFixed(2);
      const agreeing = ours[0].ex.filter((ex, i) => ex === python[0].ex[i]).length;
      const stable =
        [...ours, ...oneLane, ...python].every((r) => r.ex.join() === ours[0].ex.join()) &&
        printed.every((r) => Number(r.total) === Number(total(ours[0].ex)));
      const wall = (list: { seconds: number }[]) => median(list.map((r) => r.seconds));
      rows.push(
        `| ${shortName(file)} | ${total(ours[0].ex)} | ${total(python[0].ex)} | ${agreeing} / ${ours[0].ex.length} | ${stable ? 'yes' : 'no'} | ${wall(oneLane).toFixed(2)} | ${wall(ours).toFixed(2)} | ${wall(printed).toFixed(2)} | ${wall(python).toFixed(2)} | ${(wall(printed) / wall(python)).toFixed(2)} | ${(wall(ours) / wall(python)).toFixed(2)} |`,
      );
    }
    lines.push(
      '',
      `## EX: \`eval --engine ${bench.engine}\` against evaluation_ex.py with ${bench.driver}`,
      '',
      `mini_dev's script as ${path.relative(root, bench.python)} runs it: a process pool of ${os.cpus().length} workers (one per core, as \`--num_cpus\`), each question on a new connection, \`set(predicted) == set(gold)\` with Python's values, any exception 0. ` +
        `VES Lens: \`--jobs ${os.cpus().length}\` (one lane per core, the default: a session per lane and database), and \`--jobs 1\` (one session, as before issue 33), ` +
        'each writing the `--json` report (an EX report holds no plan costs since issue 33: only a timed pair\'s is ever read); and "printed": the default lanes with the scores printed only, as the script prints its accuracies (the same scoring, no report). ' +
        'Same: every run of every tool and mode gave the same per-question EX (printed: the same total). ' +
        `The machine's load average (1 minute) after each round of runs: ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}, median ${median(loads).toFixed(1)}, on ${os.cpus().length} cores` +
        (median(loads) > os.cpus().length
          ? ' (others were working on it too: wall times are slower and noisier than on a quiet machine; the tools ran side by side, alternating).'
          : '.'),
      '',
      `| prediction file | EX VES Lens | EX ${bench.driver} | questions agreeing | same in every run | VES Lens --jobs 1, --json, wall s | VES Lens --json wall s | VES Lens printed wall s | ${bench.driver} wall s | printed / ${bench.driver} | --json / ${bench.driver} |`,
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    );
  }

  if (only !== 'ex') {
    const predictions = files.predictions.get(RVES_FILE)!;
    const modes = ['fast', 'official', 'python'] as const;
    // Per run: R-VES, and per question the reward (0 when not correct) and the time ratio (null when not timed).
    const results: Record<
      (typeof modes)[number],
      { seconds: number; rves: number; rewards: number[]; ratios: (number | null)[]; report?: Report }[]
    > = {
      fast: [],
      official: [],
      python: [],
    };
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? modes : [...modes].reverse();
      for (const mode of order) {
        if (mode === 'python') {
          const result = timed(PYTHON, [bench.python, 'rves', predictions, files.gold, ...bench.pythonArgs]);
          const rows = JSON.parse(result.stdout) as { reward: number; time_ratio: number }[];
          results.python.push({
            seconds: result.seconds,
            // compute_ves: 100 × the mean of sqrt(reward).
            rves: (100 * rows.reduce((sum, r) => sum + Math.sqrt(r.reward), 0)) / rows.length,
            rewards: rows.map((r) => r.reward),
            ratios: rows.map((r) => r.time_ratio || null),
          });
        } else {
          const json = path.join(scratch, `rves.${mode}.${run}.json`);
          const result = vesLens(predictions, json, ['--metrics', 'ex,rves', '--timing', mode]);
          const report = read(json);
          results[mode].push({
            seconds: result.seconds,
            rves: report.summary.total.rves ?? 0,
            rewards: report.questions.map((q) => q.rves_reward ?? 0),
            ratios: report.questions.map((q) => q.rves_time_ratio ?? null),
            report,
          });
        }
        process.stderr.write(
          `R-VES run ${run + 1}/${runs} ${mode === 'python' ? bench.driver : mode}: ${results[mode].at(-1)!.seconds.toFixed(1)} s\n`,
        );
      }
    }
    const wall = (mode: (typeof modes)[number]) => median(results[mode].map((r) => r.seconds));
    const correct = results.official[0].report!.questions.filter((q) => q.ex === 1);
    const samePrograms = results.fast[0].report!.questions.filter((q) => q.same_program).length;
    // Coverage: a later fast run's ratio inside an earlier fast run's 95 % interval, all ordered pairs of runs.
    let inside = 0;
    let compared = 0;
    const widths: number[] = [];
    for (const [i, a] of results.fast.entries()) {
      for (const [j, b] of results.fast.entries()) {
        if (i === j) continue;
        a.report!.questions.forEach((q, k) => {
          const later = b.ratios[k];
          if (q.same_program || !q.rves_time_ratio_interval || later === null) return;
          compared++;
          if (q.rves_time_ratio_interval[0] <= later && later <= q.rves_time_ratio_interval[1]) inside++;
          widths.push(q.rves_time_ratio_interval[1] / q.rves_time_ratio_interval[0]);
        });
      }
    }
    // Per question, between two runs: how often the rewards are equal, and the ratio of their time ratios. VES Lens's
    // official runs against the Python driver's (every pair of runs), beside its runs against each other (the noise floor).
    type Run = (typeof results)['python'][number];
    const agreement = (pairsOfRuns: [Run, Run][]) => {
      let same = 0;
      let questions = 0;
      const ratioOfRatios: number[] = [];
      for (const [a, b] of pairsOfRuns) {
        a.rewards.forEach((reward, k) => {
          if (a.ratios[k] === null && b.ratios[k] === null) return;
          questions++;
          if (reward === b.rewards[k]) same++;
          if (a.ratios[k] && b.ratios[k]) ratioOfRatios.push(a.ratios[k]! / b.ratios[k]!);
        });
      }
      return (
        `rewards equal in ${pct(same, questions)} of ${questions}, ratio over ratio median ×${median(ratioOfRatios).toFixed(3)} ` +
        `(middle half ×${quantile(ratioOfRatios, 0.25).toFixed(3)} to ×${quantile(ratioOfRatios, 0.75).toFixed(3)})`
      );
    };
    const everyPair = (as: Run[], bs: Run[]) =>
      as.flatMap((a, i) => bs.flatMap((b, j) => (as === bs && i >= j ? [] : [[a, b] as [Run, Run]])));
    // Official runs on fast mode's quantity: each correct pair at the reward of its typical (Hodges–Lehmann) ratio, same programs at 1.
    const sameProgramIds = new Set(results.fast[0].report!.questions.filter((q) => q.same_program).map((q) => q.question_id));
    const onTypicalRatio = results.official.map(
      (r) =>
        (100 *
          r.report!.questions.reduce(
            (sum, q) =>
              sum +
              (q.ex !== 1 || q.rves_time_ratio_typical === undefined
                ? Math.sqrt(q.rves_reward ?? 0)
                : rvesContribution(sameProgramIds.has(q.question_id) ? 1 : q.rves_time_ratio_typical)),
            0,
          )) /
        r.report!.questions.length,
    );
    const uncertain = mean(results.fast.map((r) => r.report!.questions.filter((q) => q.rves_uncertain).length));
    lines.push(
      '',
      `## R-VES: fast and official timing against evaluation_ves.py with ${bench.driver} (${shortName(RVES_FILE)})`,
      '',
      `${correct.length} correct pairs of ${correct.length + results.official[0].report!.questions.filter((q) => q.ex !== 1).length} questions, ${samePrograms} of them the same work (${bench.sameWork}: fast mode scores them 1× without timing). ` +
        `${bench.driver}: evaluation_ves.py's loop on one process (its \`--num_cpus\` default), each execution on a new connection, execute + fetchall + close timed, 100 alternating iterations, 3σ cleaning, the buckets. ` +
        'Official: VES Lens `--timing official`, the same protocol. Fast: the adaptive protocol. Spread: standard deviation of the totals over the runs. ' +
        "Coverage: share of a later fast run's ratios inside an earlier fast run's 95 % interval (all ordered pairs of runs, same programs left out).",
      '',
      `| mode | R-VES mean (sd) | wall s (median) | wall / ${bench.driver} |`,
      '|---|---|---|---|',
      ...modes.map(
        (mode) =>
          `| ${mode === 'python' ? `evaluation_ves.py, ${bench.driver}` : `VES Lens ${mode}`} | ${meanSd(results[mode].map((r) => r.rves))} | ${wall(mode).toFixed(1)} | ${pct(wall(mode), wall('python'))} |`,
      ),
      `| VES Lens official, on fast's quantity (typical ratio, same programs 1×) | ${meanSd(onTypicalRatio)} | – | – |`,
      '',
      `- Fast mode's intervals: coverage ${pct(inside, compared)} over ${compared} ratios, median width ×${median(widths).toFixed(3)}, ${uncertain.toFixed(1)} questions per run whose reward is uncertain.`,
      `- Per question, VES Lens official against ${bench.driver} (every pair of runs): ${agreement(everyPair(results.official, results.python))}.`,
      `- Per question, ${bench.driver} against itself (every pair of its runs, the noise floor): ${runs > 1 ? agreement(everyPair(results.python, results.python)) : '– (one run)'}.`,
    );
  }

  // --only: the other section is kept from the results file, with the machine line of the run that measured it.
  const resultsFile = path.join(root, 'bench', 'results', bench.resultFile);
  if (only && fs.existsSync(resultsFile)) {
    const previous = fs.readFileSync(resultsFile, 'utf8').split('\n## ');
    const kept = previous.slice(1).find((section) => !section.startsWith(only === 'ex' ? 'EX' : 'R-VES'));
    const measured = previous[0].split('\n').find((line) => /^\d{4}-\d\d-\d\d · /.test(line));
    const note = '(This section from an earlier run';
    if (kept) lines.push('', `## ${kept.trimEnd()}`, ...(kept.includes(note) ? [] : ['', `${note}: ${measured}.)`]));
  }
  const report = lines.join('\n') + '\n';
  process.stdout.write(report);
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(resultsFile, report);
  process.stderr.write(`wrote bench/results/${bench.resultFile} (runs' files in ${scratch})\n`);
  return report;
}
