/**
 * "Score against gold" on one prediction of the editor: core scores the pair as `ves-lens eval` does (EX, Soft-F1,
 * then VES and R-VES with fast timing), says why a mismatch on SQLite may rest only on float digits or the row
 * order, explains both plans side by side, and gives each timing core's speed verdict. The face reads both results'
 * first rows, SQLMorph's techniques (scoreTechniques.ts) and the repeat interval (scoreRepeatRuns.ts) beside it.
 * Core's messages pass through the face's `word`.
 */
import type { Question } from '../core/bird/questions';
import type { OpenDatabase } from '../core/db/connectionCache';
import { QueryCancelled } from '../core/db/database';
import { openDatabase } from '../core/db/engines';
import { dialectOf } from '../core/db/readQuery';
import { scoreTask } from '../core/eval/evaluate';
import { type Metric, METRICS, type QuestionResult, type TimingMode } from '../core/eval/types';
import { RVES_BUCKET_RANGE_TEXTS } from '../core/metrics/efficiency';
import { explainQuery } from '../core/plan/explain';
import { type ExFragile, exFragility } from '../core/results/counterexample/exFragile';
import type { SqlDialect } from '../core/sql/statements';
import type { FastTimingOptions } from '../core/timing/fast';
import type { TimingResult } from '../core/timing/types';
import { speedVerdict, type SpeedVerdict } from '../core/timing/verdict';
import { comparePlanViews, type PlanComparison, planView, type PlanView, type Wording } from './statementPlan';

/**
 * A measured speed comparison, as core's timing protocols give it (t_gold / t_pred, interval, samples), and what
 * its interval rests on: `estimate`, the spread between this run's blocks (taken within one sitting, where the
 * CLI's eval spreads a pair's blocks over passes minutes apart); `none`, one block only (nothing measured, no
 * interval shown); `exact`, the same program (ratio 1 by construction).
 */
export type TimingSummary = Omit<TimingResult, 'protocol'> & {
  intervalKind?: 'estimate' | 'none' | 'exact';
  /** core's speed verdict on this run's ratio and interval ("faster": the prediction is). */
  verdict: SpeedVerdict;
  /**
   * From this pair's third Score run on (in this session, same engine, database, gold and prediction): the ratio
   * over its runs and the 95 % interval a next run lands in, measured from the spread between the runs as the CLI's
   * eval measures it between passes (app/scoreRepeatRuns.ts).
   */
  repeat?: { runs: number; ratio: number; low: number; high: number; verdict: SpeedVerdict };
};

/**
 * Both timed quantities, keyed as QuestionResult.timings: `ves` is VES's (first row, as DAMO times it), `rves`
 * R-VES's (every row fetched and the connection closed, as mini_dev times it); a quantity not timed is absent.
 */
export type TimingSummaries = { [Quantity in keyof NonNullable<QuestionResult['timings']>]?: TimingSummary };

/**
 * The Score panel shows both ratios with an interval, so both are pinned down: asked only for its R-VES bucket, a
 * pair of long iterations far from every bucket edge stops after one block, and its interval would be the prior
 * spread alone, never measured on the pair (issue 30: q738's 'R-VES 277× [194–394]' came back 128× and 763×).
 * With at least minBlocks blocks of each quantity, the interval comes from this pair's own spread between blocks.
 */
const PANEL_TIMING: Partial<FastTimingOptions> = {
  settle: { ratioOf: ['first-row', 'full'], bucketOf: ['full'] },
};

/** "Re-run with more iterations": more blocks and a tighter precision, within a larger budget, for both quantities. */
const THOROUGH_TIMING: Partial<FastTimingOptions> = {
  ...PANEL_TIMING,
  minBlocks: 6,
  maxBlocks: 16,
  blockMs: { ratio: 12, bucket: 12 },
  precision: 0.03,
  pairBudgetMs: 20_000,
};

/**
 * What the interval of a timing rests on: blocks of this run (an estimate of where a repeat run lands, measured on
 * the pair within one sitting: bench/scorePanelTiming.ts checks how often it holds), or nothing measured (one
 * block: a loop past the official limit is cut off there), in which case the panel shows no interval.
 */
function intervalKind(timing: TimingResult): TimingSummary['intervalKind'] {
  if (timing.sameProgram) return 'exact';
  return (timing.blocks ?? 1) >= 2 ? 'estimate' : 'none';
}

function timingSummary(timing: TimingResult, word: Wording): TimingSummary {
  const { protocol: _protocol, ...summary } = timing;
  return {
    ...summary,
    intervalKind: intervalKind(timing),
    verdict: speedVerdict(timing),
    note: summary.note === undefined ? undefined : word(summary.note),
  };
}

/** Each timed quantity's summary, under the key core keeps it (a quantity not timed stays absent). */
function timingSummaries(timings: QuestionResult['timings'], word: Wording): TimingSummaries {
  const summaries: TimingSummaries = {};
  if (timings?.ves) summaries.ves = timingSummary(timings.ves, word);
  if (timings?.rves) summaries.rves = timingSummary(timings.rves, word);
  return summaries;
}

/** The pair Score and "Look for a database where they differ" work on: one prediction, its question, gold and database. */
export interface StatementPair {
  question: Question;
  database: OpenDatabase;
  /** The question's gold SQL ('' when the gold file lacks it: scored as a gold error). */
  goldSql: string;
  /** The prediction. */
  sql: string;
}

/** Interrupts the database's statement in flight as soon as `signal` aborts (the editor's Cancel); returns the undo. */
export function interruptOnAbort(database: OpenDatabase, signal: AbortSignal | undefined): () => void {
  const interrupt = () => database.db.interrupt();
  signal?.addEventListener('abort', interrupt);
  return () => signal?.removeEventListener('abort', interrupt);
}

/** How the pair is scored: the editor's settings and the request's choices. */
export interface StatementScoring {
  timing: TimingMode;
  officialIterations: number;
  timeoutMs: number;
  maxRows: number;
  /** EX and Soft-F1 only (a first answer at once); otherwise timing too. */
  correctnessOnly: boolean;
  /** Time longer than the default for a tighter interval ("Re-run with more iterations"). */
  thorough?: boolean;
  /** Data scales to re-time the pair at (SQLite only: scaled copies are SQLite files). */
  scales?: number[];
  signal?: AbortSignal;
  progress?: (message: string) => void;
  /** Where a failed EX-fragile check is told (the score stands without it). */
  log: (message: string) => void;
}

/** One scored pair: core's result (ex_fragile set where it applies), its timings, both plans, the pair's dialect. */
export interface StatementScore {
  result: QuestionResult;
  dialect: SqlDialect;
  timings: TimingSummaries;
  /** Each R-VES reward bucket's ratio range in words, by reward ("0.5 ≤ ratio < 1"): core's buckets. */
  rvesBucketRanges: Readonly<Record<string, string>>;
  goldPlan: PlanView;
  predPlan: PlanView;
  planComparison: PlanComparison;
}

/**
 * A mismatch on SQLite that rests only on float digits or on the physical row order (core's exFragility, on a
 * fresh connection for the reversed scan); undefined when it does not, or when the check itself fails (logged).
 */
async function mismatchFragility(pair: StatementPair, scoring: StatementScoring): Promise<ExFragile | undefined> {
  const { database, goldSql, sql } = pair;
  try {
    return await exFragility({
      db: database.db,
      openFresh: () => openDatabase(database.path),
      gold: goldSql,
      prediction: sql,
      deadline: performance.now() + scoring.timeoutMs,
      maxRows: scoring.maxRows,
    });
  } catch (error) {
    scoring.log(`the EX-fragile check failed: ${(error as Error)?.message ?? error}`);
    return undefined;
  }
}

/**
 * Scores the pair (core's scoreTask), checks a mismatch's fragility, then explains both plans. A cancelled request
 * (`signal`) ends in core's QueryCancelled.
 */
export async function scoreStatement(pair: StatementPair, scoring: StatementScoring, word: Wording): Promise<StatementScore> {
  const { question, database, goldSql, sql } = pair;
  const { correctnessOnly, signal, progress } = scoring;
  const dialect = dialectOf(database.db.engine);
  const metrics: Metric[] = correctnessOnly ? ['ex', 'f1'] : [...METRICS];
  progress?.(correctnessOnly ? 'running prediction and gold' : 'timing prediction and gold');
  const result = await scoreTask(
    database.db,
    { question, goldSql, predictedSql: sql, notes: [] },
    {
      metrics,
      timing: scoring.timing,
      officialIterations: scoring.officialIterations,
      timeoutMs: scoring.timeoutMs,
      maxRows: scoring.maxRows,
      keepSamples: true,
      fastTiming: scoring.thorough ? THOROUGH_TIMING : PANEL_TIMING,
      // Scaled copies are SQLite files (core/scale): a server's data is not copied.
      scales: correctnessOnly || dialect !== 'sqlite' ? undefined : scoring.scales,
      signal,
    },
  );
  if (signal?.aborted) throw new QueryCancelled();
  // A mismatch that rests only on float digits or the physical row order says so (SQLite's reversed scan). Both
  // run again for it: only where the row counts agree, as they do when only digits or the order differ.
  const sameCount = result.difference !== undefined && result.difference.pred_rows === result.difference.gold_rows;
  if (result.outcome === 'mismatch' && dialect === 'sqlite' && sameCount) result.ex_fragile = await mismatchFragility(pair, scoring);
  progress?.('reading both results and plans');
  const goldPlan = await explainQuery(database.db, goldSql, database.schema);
  const predPlan = await explainQuery(database.db, sql, database.schema);
  return {
    result,
    dialect,
    timings: timingSummaries(result.timings, word),
    rvesBucketRanges: RVES_BUCKET_RANGE_TEXTS,
    goldPlan: planView(goldPlan, word),
    predPlan: planView(predPlan, word),
    planComparison: comparePlanViews(goldPlan, predPlan, word),
  };
}
