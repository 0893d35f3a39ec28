import { StreamingComparison } from '../compare/streamingComparison';
import { ReadOnlyDatabase } from '../db/database';
import { QueryFailure, readQuery, runnableBody, streamQuery } from '../db/readQuery';
import { rvesBucketUncertain, rvesContribution, rvesReward, vesContribution } from '../metrics/efficiency';
import { DEFAULT_FAST_TIMING, FastTimingOptions, measureFast } from '../timing/fast';
import { measureOfficial, OFFICIAL_ITERATIONS } from '../timing/official';
import { TimingResult } from '../timing/types';
import { databaseExists, databasePath, EvalTask } from './tasks';
import { Metric, QuestionResult, TimingMode } from './types';

export interface EvalOptions {
  dbRoot: string;
  metrics: readonly Metric[];
  timing: TimingMode;
  /** Limit for one prediction/gold pair, as the official meta_time_out (30 s). */
  timeoutMs: number;
  /** Rows one result may have before it is cut off (bounds memory). */
  maxRows: number;
  fastTiming?: Partial<FastTimingOptions>;
  officialIterations?: number;
  onResult?: (result: QuestionResult, done: number, total: number) => void;
  /** Stops before the next question when aborted. */
  signal?: AbortSignal;
  /** Keep each timing sample in the result (for charts); the JSON report leaves them out. */
  keepSamples?: boolean;
}

export const DEFAULT_MAX_ROWS = 500_000;

function emptyResult(task: EvalTask): QuestionResult {
  const { question } = task;
  return {
    index: question.index,
    question_id: question.questionId,
    db_id: question.dbId,
    difficulty: question.difficulty,
    outcome: 'mismatch',
    ex: 0,
    f1: null,
    time_ratio: null,
    time_ratio_interval: null,
    ves: null,
    rves: null,
    rves_reward: null,
    rves_uncertain: null,
    error: null,
    gold_ms: null,
    pred_ms: null,
    runs: null,
    timing: null,
    notes: [...task.notes],
  };
}

/** Fills the efficiency metrics that were asked for with 0 (an incorrect or unscored prediction). */
function zeroEfficiency(result: QuestionResult, metrics: readonly Metric[]): void {
  if (metrics.includes('ves')) result.ves = 0;
  if (metrics.includes('rves')) {
    result.rves = 0;
    result.rves_reward = 0;
  }
}

function failureText(who: string, run: { status: 'ok' } | QueryFailure): string {
  return run.status === 'ok' ? '' : `${who}: ${run.message}`;
}

/**
 * EX and Soft-F1 of one pair, with the outcome that explains them. Both queries share one time limit, as in
 * the official scripts. Gold runs first so that the prediction can be compared row by row as it streams
 * (memory stays bounded whatever it returns); when gold fails, the prediction still runs, to report it too.
 */
async function scoreCorrectness(db: ReadOnlyDatabase, task: EvalTask, result: QuestionResult, options: EvalOptions) {
  const limits = () => ({ deadline: performance.now() + options.timeoutMs, budgetMs: options.timeoutMs, maxRows: options.maxRows });
  const shared = limits();
  const gold = await readQuery(db, task.goldSql ?? ' ', shared);
  const comparison = new StreamingComparison(gold.status === 'ok' ? gold.rows : []);
  const pred = await streamQuery(db, task.predictedSql ?? ' ', gold.status === 'ok' ? shared : limits(), (row) => comparison.add(row));

  if (gold.status !== 'ok' && gold.status !== 'timeout') {
    result.outcome = 'gold_error';
    result.error = [failureText('gold', gold), failureText('prediction', pred)].filter(Boolean).join('; ');
  } else if (pred.status === 'refused') {
    result.outcome = 'refused';
    result.error = pred.message;
  } else if (pred.status === 'error') {
    result.outcome = 'prediction_error';
    result.error = pred.message;
  } else if (pred.status === 'timeout' || gold.status === 'timeout') {
    result.outcome = 'timeout';
    result.error = pred.status === 'timeout' ? failureText('prediction', pred) : failureText('gold', gold);
  }
  if (pred.status !== 'ok' || gold.status !== 'ok') {
    if (options.metrics.includes('f1')) result.f1 = 0;
    return;
  }
  const correct = comparison.sameSet;
  result.outcome = correct ? 'correct' : 'mismatch';
  result.ex = correct ? 1 : 0;
  if (options.metrics.includes('f1')) result.f1 = comparison.softF1;
  if (!correct) result.difference = comparison.difference();
}

function applyTiming(result: QuestionResult, timing: TimingResult, keepSamples?: boolean): void {
  if (keepSamples) result.samples = { gold: timing.goldSamples, pred: timing.predSamples };
  result.time_ratio = timing.ratio;
  result.time_ratio_interval = [timing.low, timing.high];
  result.gold_ms = timing.goldMs;
  result.pred_ms = timing.predMs;
  result.runs = timing.runs;
  result.timing = timing.protocol;
  if (timing.note) result.notes.push(timing.note);
}

/** VES and R-VES of a correct pair, by the chosen protocol. */
async function scoreEfficiency(db: ReadOnlyDatabase, task: EvalTask, result: QuestionResult, options: EvalOptions) {
  const wantsVes = options.metrics.includes('ves');
  const wantsRves = options.metrics.includes('rves');
  const gold = runnableBody(task.goldSql ?? '');
  const pred = runnableBody(task.predictedSql ?? '');
  if ('status' in gold || 'status' in pred || !gold.body || !pred.body) {
    result.notes.push('an empty query cannot be timed; efficiency scored 0');
    zeroEfficiency(result, options.metrics);
    return;
  }
  const dbPath = databasePath(options.dbRoot, task.question.dbId);
  let vesTiming: TimingResult | undefined;
  let rvesTiming: TimingResult | undefined;
  if (options.timing === 'official') {
    // Each metric's own script times something different: run only the protocols asked for.
    const iterations = options.officialIterations ?? OFFICIAL_ITERATIONS;
    if (wantsVes) vesTiming = await measureOfficial(dbPath, gold.body, pred.body, 'ves', options.timeoutMs, iterations);
    if (wantsRves) rvesTiming = await measureOfficial(dbPath, gold.body, pred.body, 'rves', options.timeoutMs, iterations);
  } else {
    const fastOptions = { ...DEFAULT_FAST_TIMING, timeoutMs: options.timeoutMs, ...options.fastTiming };
    vesTiming = rvesTiming = await measureFast(db, gold.body, pred.body, fastOptions);
  }
  const headline = (vesTiming ?? rvesTiming) as TimingResult;
  applyTiming(result, headline, options.keepSamples);
  if (wantsVes && vesTiming) result.ves = vesContribution(vesTiming.ratio);
  if (wantsRves && rvesTiming) {
    result.rves_reward = rvesReward(rvesTiming.ratio);
    result.rves = rvesContribution(rvesTiming.ratio);
    result.rves_uncertain = rvesTiming.ratio > 0 && rvesBucketUncertain(rvesTiming.low, rvesTiming.high);
    if (rvesTiming !== headline) {
      result.notes.push(`R-VES ratio ${rvesTiming.ratio.toFixed(3)} (${rvesTiming.protocol}, ${rvesTiming.runs} runs)`);
      if (rvesTiming.note) result.notes.push(rvesTiming.note);
    }
  }
}

/** Scores one task on an open connection to its database. */
export async function scoreTask(db: ReadOnlyDatabase, task: EvalTask, options: EvalOptions): Promise<QuestionResult> {
  const result = emptyResult(task);
  if (task.missing) {
    result.outcome = task.goldSql === undefined ? 'gold_error' : 'prediction_error';
    result.error = task.missing;
    if (options.metrics.includes('f1')) result.f1 = 0;
    zeroEfficiency(result, options.metrics);
    return result;
  }
  await scoreCorrectness(db, task, result, options);
  if (result.ex === 1 && (options.metrics.includes('ves') || options.metrics.includes('rves'))) {
    try {
      await scoreEfficiency(db, task, result, options);
    } catch (error) {
      result.notes.push(`timing failed: ${(error as Error).message}; efficiency scored 0`);
      zeroEfficiency(result, options.metrics);
    }
  } else {
    zeroEfficiency(result, options.metrics);
  }
  return result;
}

/**
 * Scores every task, one at a time (timings must not compete for the CPU). Questions whose database is
 * not under dbRoot are `skipped`, never scored as wrong.
 */
export async function evaluateTasks(tasks: readonly EvalTask[], options: EvalOptions): Promise<QuestionResult[]> {
  const connections = new Map<string, ReadOnlyDatabase | Error>();
  const results: QuestionResult[] = [];
  try {
    for (const task of tasks) {
      if (options.signal?.aborted) break;
      const { dbId } = task.question;
      if (!connections.has(dbId)) {
        if (!databaseExists(options.dbRoot, dbId)) {
          connections.set(dbId, new Error(`database not found: ${databasePath(options.dbRoot, dbId)}`));
        } else {
          connections.set(dbId, await ReadOnlyDatabase.open(databasePath(options.dbRoot, dbId)).catch((error: Error) => error));
        }
      }
      const db = connections.get(dbId)!;
      let result: QuestionResult;
      if (db instanceof Error) {
        result = emptyResult(task);
        result.outcome = 'skipped';
        result.error = db.message;
      } else {
        result = await scoreTask(db, task, options);
      }
      results.push(result);
      options.onResult?.(result, results.length, tasks.length);
    }
  } finally {
    for (const db of connections.values()) if (!(db instanceof Error)) await db.close();
  }
  return results;
}
