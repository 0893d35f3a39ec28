// The Score panel's timing, checked as bench/timing.mjs checks the CLI's (issue 30, item 9): pairs of a real
// mini-dev prediction file scored through the language server's service in-process (VesLensService.score, as the
// "Score against gold" lens asks it), each pair five times, runs interleaved so that drift hits every run alike.
// Coverage, per metric (VES: first row, R-VES: all rows), as bench/timing.mjs reports the CLI's:
// - of one run's estimated interval (its blocks): the share of another run's ratio inside it, every ordered pair;
// - of the repeat interval the panel shows from a pair's third run on (measured between its runs): the share of the
//   next run's ratio inside it (after runs 3 and 4).
// Also: the intervals' median width, the blocks each quantity got, the wall time of one score, and the pairs whose
// runs disagree most.
// Usage: npx tsx bench/scorePanelTiming.ts [--runs 5] [--pairs 48] [--file gpt-4_sqlite] [--no-write]
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadPredictions } from '../src/core/bird/predictions';
import { VesLensService } from '../src/server/service';
import type { ScoreResult, TimingSummary } from '../src/shared/protocol';
import { machineLine, median } from './machine.cjs';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const runs = Number(option('--runs', '5'));
const pairCount = Number(option('--pairs', '48'));
const ROOT = path.join(__dirname, '..');
const DATA = process.env.VES_LENS_BIRD_DATA ?? path.join(ROOT, '..', 'shared', 'data', 'bird-minidev');
const predictionDir = path.join(DATA, 'predictions', 'minidev-official');
const predictionFile = fs.readdirSync(predictionDir).find((f) => f.includes(option('--file', 'gpt-4_sqlite')));
if (!predictionFile) throw new Error(`no prediction file in ${predictionDir} matches --file`);
const questionsFile = path.join(DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const dataset = {
  questionsFile,
  goldFile: path.join(DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
  dbRoot: path.join(DATA, 'databases'),
};
/** Question 738: the pair issue 30 found ('277× [194–394], 128× [90–182], 763× [536–1087]' in three runs). */
const ISSUE_PAIR = 738;

type Metric = 'ves' | 'rves';
type Timed = { ratio: number; low: number; high: number; blocks: number; runs: number; repeat?: TimingSummary['repeat'] };
type Run = { questionId: number; seconds: number; ves?: Timed; rves?: Timed; estimate?: boolean };

const timed = (t: TimingSummary | undefined): Timed | undefined =>
  t ? { ratio: t.ratio, low: t.low, high: t.high, blocks: t.blocks ?? 1, runs: t.runs, repeat: t.repeat } : undefined;

async function main() {
  const questions: { question_id: number; db_id: string }[] = JSON.parse(fs.readFileSync(questionsFile, 'utf8'));
  const predictions = loadPredictions(path.join(predictionDir, predictionFile!));
  const databases = new Set(fs.readdirSync(dataset.dbRoot));
  const service = new VesLensService({ documents: { get: () => undefined, all: () => [] }, log: () => {}, docsRoot: '' });
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-bench-'));
  await service.initialize({ trusted: true, storageDir, dataset, settings: { techniques: [] } as never });

  // The pairs: correct predictions (timed) on the databases at hand, question 738 first, in question order.
  const candidates = questions
    .map((q, index) => ({ ...q, index, sql: predictions.predictions[index]?.sql ?? '' }))
    .filter((q) => databases.has(q.db_id) && q.sql)
    .sort((a, b) => Number(b.question_id === ISSUE_PAIR) - Number(a.question_id === ISSUE_PAIR));
  const pairs: typeof candidates = [];
  for (const q of candidates) {
    if (pairs.length >= pairCount) break;
    const first = await service.score({ sql: q.sql, questionId: q.question_id, phase: 'correctness' });
    if (first.outcome === 'correct') pairs.push(q);
  }
  process.stderr.write(`${pairs.length} correct pairs of ${predictionFile}\n`);

  const byPair = new Map<number, Run[]>(pairs.map((q) => [q.question_id, []]));
  let sameProgram = 0;
  for (let run = 0; run < runs; run++) {
    for (const q of pairs) {
      const started = performance.now();
      const result: ScoreResult = await service.score({ sql: q.sql, questionId: q.question_id });
      const seconds = (performance.now() - started) / 1000;
      if (result.same_program) {
        if (run === 0) sameProgram++;
        byPair.delete(q.question_id);
        continue;
      }
      byPair.get(q.question_id)?.push({
        questionId: q.question_id,
        seconds,
        ves: timed(result.timings.ves),
        rves: timed(result.timings.rves),
        estimate: (result.timings.ves ?? result.timings.rves)?.intervalKind === 'estimate',
      });
    }
    process.stderr.write(`run ${run + 1}/${runs} done\n`);
  }
  await service.dispose();
  fs.rmSync(storageDir, { recursive: true, force: true });
  return { pairs: [...byPair.values()], sameProgram };
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(0)} %` : '–');

/** Coverage of the other runs' ratios by each run's intervals (ordered pairs), as bench/timing.mjs counts it. */
function coverage(pairs: Run[][], metric: Metric) {
  let inside = 0;
  let total = 0;
  const widths: number[] = [];
  const blocks: number[] = [];
  for (const runsOfPair of pairs) {
    for (let i = 0; i < runsOfPair.length; i++) {
      const a = runsOfPair[i][metric];
      if (!a) continue;
      widths.push(a.high / a.low);
      blocks.push(a.blocks);
      for (let j = 0; j < runsOfPair.length; j++) {
        const b = runsOfPair[j][metric];
        if (i === j || !b) continue;
        total++;
        if (a.low <= b.ratio && b.ratio <= a.high) inside++;
      }
    }
  }
  return { inside, total, width: widths.length ? median(widths) : NaN, blocks: blocks.length ? median(blocks) : NaN };
}

/** Coverage of the next run's ratio by the repeat interval a pair's earlier runs gave (from its third run on). */
function repeatCoverage(pairs: Run[][], metric: Metric) {
  let inside = 0;
  let total = 0;
  const widths: number[] = [];
  for (const runsOfPair of pairs) {
    for (let i = 0; i + 1 < runsOfPair.length; i++) {
      const repeat = runsOfPair[i][metric]?.repeat;
      const next = runsOfPair[i + 1][metric];
      if (!repeat || !next) continue;
      total++;
      widths.push(repeat.high / repeat.low);
      if (repeat.low <= next.ratio && next.ratio <= repeat.high) inside++;
    }
  }
  return { inside, total, width: widths.length ? median(widths) : NaN };
}

/** How far apart a pair's runs land: the largest ratio over the smallest. */
const spreadOf = (runsOfPair: Run[], metric: Metric) => {
  const ratios = runsOfPair.flatMap((r) => (r[metric] ? [r[metric]!.ratio] : []));
  return ratios.length > 1 ? Math.max(...ratios) / Math.min(...ratios) : 1;
};

const show = (t: Timed | undefined) =>
  t ? `${t.ratio.toPrecision(3)}× [${t.low.toPrecision(3)}–${t.high.toPrecision(3)}] (${t.blocks} bl.)` : '–';

main().then(({ pairs, sameProgram }) => {
  const ves = coverage(pairs, 'ves');
  const rves = coverage(pairs, 'rves');
  const repeatVes = repeatCoverage(pairs, 'ves');
  const repeatRves = repeatCoverage(pairs, 'rves');
  const wall = median(pairs.flat().map((r) => r.seconds));
  const estimate = pairs.flat().some((r) => r.estimate);
  const worst = [...pairs].sort(
    (a, b) => Math.max(spreadOf(b, 'ves'), spreadOf(b, 'rves')) - Math.max(spreadOf(a, 'ves'), spreadOf(a, 'rves')),
  );
  const shown = [
    ...pairs.filter((p) => p[0]?.questionId === ISSUE_PAIR),
    ...worst.filter((p) => p[0]?.questionId !== ISSUE_PAIR).slice(0, 5),
  ];
  const lines = [
    '# Score panel timing: do its intervals hold?',
    '',
    machineLine(),
    '',
    'Shared machine (other engineers ran tests and benchmarks meanwhile): the intervals saw that load too.',
    '',
    `${pairs.length} correct pairs of \`${predictionFile}\` on the mini-dev databases (question ${ISSUE_PAIR} first; ${sameProgram} more compile to the same program and are not timed), each scored ${runs} times through the language server's service in-process (\`VesLensService.score\`, what "Score against gold" asks), runs interleaved. Coverage: share of another run's ratio inside a run's interval, every ordered pair of runs, as \`bench/timing.mjs\` counts the CLI's (its eval intervals cover 99–100 %, bench/results/timing.md).`,
    '',
    "**One run's estimated interval** (from its blocks, timed one after another):",
    '',
    '| metric (scope) | intervals × other runs | coverage | median width | median blocks |',
    '|---|---|---|---|---|',
    `| VES time ratio (first row) | ${ves.total} | ${pct(ves.inside, ves.total)} | ×${ves.width.toFixed(2)} | ${ves.blocks} |`,
    `| R-VES time ratio (all rows) | ${rves.total} | ${pct(rves.inside, rves.total)} | ×${rves.width.toFixed(2)} | ${rves.blocks} |`,
    '',
    "**The repeat interval over a pair's runs** (shown from its third run on, measured between the runs as the CLI's eval measures between passes), against the next run:",
    '',
    '| metric (scope) | intervals | coverage of the next run | median width |',
    '|---|---|---|---|',
    `| VES time ratio (first row) | ${repeatVes.total} | ${pct(repeatVes.inside, repeatVes.total)} | ×${repeatVes.width.toFixed(2)} |`,
    `| R-VES time ratio (all rows) | ${repeatRves.total} | ${pct(repeatRves.inside, repeatRves.total)} | ×${repeatRves.width.toFixed(2)} |`,
    '',
    `Median wall time of one score (correctness, timing, previews, plans): ${wall.toFixed(2)} s. The panel labels one run's interval ${estimate ? 'an **estimated interval**' : 'a repeat interval'}, and the one over runs a repeat interval.`,
    '',
    `Question ${ISSUE_PAIR} and the pairs whose runs lie furthest apart:`,
    '',
    `| question | ${Array.from({ length: runs }, (_, i) => `VES run ${i + 1}`).join(' | ')} | ${Array.from({ length: runs }, (_, i) => `R-VES run ${i + 1}`).join(' | ')} |`,
    `|---|${'---|'.repeat(2 * runs)}`,
    ...shown.map((p) => `| ${p[0].questionId} | ${p.map((r) => show(r.ves)).join(' | ')} | ${p.map((r) => show(r.rves)).join(' | ')} |`),
    '',
    'Rerun: `npx tsx bench/scorePanelTiming.ts` (options `--runs`, `--pairs`, `--file`; `--no-write` prints only).',
    '',
  ];
  const text = lines.join('\n');
  process.stdout.write(text);
  if (!args.includes('--no-write')) fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'scorePanelTiming.md'), text);
});
