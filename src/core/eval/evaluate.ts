import { NOT_RUN, serverWentAway, TIMING_NOT_DONE, timingStoppedByRun } from './runFailure';
import { StreamingComparison } from '../results/streamingComparison';
import type { TechniqueStep } from './techniqueStep';
import { DatabaseConnection, DatabaseEngine } from '../db/engine';
import { DatabaseUnavailable } from '../db/connectionCache';
import { ServerUnavailable } from '../db/database';
import { dialectOf, QueryFailure, runnableBody, streamQuery } from '../db/readQuery';
import { DatabaseSource } from '../db/source';
import { rvesBucketUncertain, rvesContribution, rvesOutlook, rvesReward, vesContribution } from '../metrics/efficiency';
import {
  DEFAULT_FAST_TIMING,
  FastTimingOptions,
  freshConnectionTimer,
  PASS_FAST_TIMING,
  fullRatioByScale,
  PairTimer,
  PairTiming,
  probabilityBelowFor,
  runPairTimer,
  timeInPasses,
} from '../timing/fast';
import { IDENTICAL } from '../timing/estimate';
import { measureOfficial, OFFICIAL_ITERATIONS, officialLoopLimitMs } from '../timing/official';
import { sameProgram } from '../timing/sameProgram';
import { growthVerdict } from '../timing/verdict';
import { TimedQuantity, TimingResult } from '../timing/types';
import { EvalTask } from '../bird/tasks';
import { Metric, QuestionResult, TimingMode } from './types';
import { Lane, laneCount, scoreInLanes } from './parallelEval';
import { GoldResultCache, readGoldQuery } from './goldResultCache';

export interface EvalProgress {
  phase: 'correctness' | 'timing' | 'scales';
  /** Questions scored for correctness, or pairs still being timed in this pass. */
  done: number;
  total: number;
  pass?: number;
}

export interface EvalOptions {
  metrics: readonly Metric[];
  timing: TimingMode;
  /** Limit for one prediction/gold pair, as the official meta_time_out (30 s). */
  timeoutMs: number;
  /** Rows one result may have before it is cut off (bounds memory). */
  maxRows: number;
  fastTiming?: Partial<FastTimingOptions>;
  officialIterations?: number;
  /** Called once per question, when its result is final (timed pairs finish after the timing passes). */
  onResult?: (result: QuestionResult, done: number, total: number) => void;
  onProgress?: (progress: EvalProgress) => void;
  /** Stops before the next question (or timing block) when aborted. */
  signal?: AbortSignal;
  /** Keep each timing sample in the result (for charts); the JSON report leaves them out. */
  keepSamples?: boolean;
  /** SQLMorph's result-comparison techniques (--techniques), scored after EX and Soft-F1; see eval/techniqueStep.ts. */
  techniques?: TechniqueStep;
  /** Re-time each timed pair on copies of its database scaled by these factors (1 = the database itself). */
  scales?: readonly number[];
  /** BIRD dev_tables.json / train_tables.json for the keys of scaled copies; where scaled copies are cached. */
  schemaFile?: string;
  scaleCacheDir?: string;
  /**
   * Called once when the database server went away or cannot be reached mid-run: the question it happened on
   * and every later one are not run (errors), timed pairs not timed yet fail; the run still ends and reports.
   */
  onServerUnavailable?: (message: string) => void;
  /**
   * Questions scored for correctness at once (SQLite), each lane on connections of its own (eval/parallelEval.ts);
   * default 1. Timing never runs beside them: it starts once every lane is idle.
   */
  jobs?: number;
  /** Gold results kept between runs (SQLite; eval/goldResultCache.ts); undefined: every gold runs. */
  goldCache?: GoldResultCache;
}

/** A whole run: where the questions' databases are, besides how to score them. */
export interface EvalRunOptions extends EvalOptions {
  source: DatabaseSource;
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
    rves_bucket_probabilities: null,
    rves_expected_reward: null,
    rves_time_ratio: null,
    rves_time_ratio_interval: null,
    same_program: null,
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

const wantsEfficiency = (metrics: readonly Metric[]) => metrics.includes('ves') || metrics.includes('rves');

function failureText(who: string, run: { status: 'ok' } | QueryFailure): string {
  return run.status === 'ok' ? '' : `${who}: ${run.message}`;
}

/**
 * A pair another process kept from running (the database locked past the busy timeout): Python's sqlite3 waits
 * as long, then raises, and the official scripts score 0. The other query is not run: it would only wait again.
 */
function lockedOut(result: QuestionResult, error: string, options: EvalOptions): void {
  result.outcome = 'locked';
  result.error = error;
  if (options.metrics.includes('f1')) result.f1 = 0;
}

/**
 * EX and Soft-F1 of one pair, with the outcome that explains them. Both queries share one time limit, as in
 * the official scripts. Gold runs first so that the prediction can be compared row by row as it streams
 * (memory stays bounded whatever it returns); when gold fails, the prediction still runs, to report it too.
 */
async function scoreCorrectness(db: DatabaseConnection, task: EvalTask, result: QuestionResult, options: EvalOptions) {
  const limits = () => ({
    deadline: performance.now() + options.timeoutMs,
    budgetMs: options.timeoutMs,
    maxRows: options.maxRows,
    signal: options.signal,
  });
  // The gold's rows may come from the cache of gold results (eval/goldResultCache.ts), which moves the shared limit.
  const { gold, shared } = await readGoldQuery(db, task.goldSql ?? ' ', limits(), options);
  if (gold.status !== 'ok' && gold.serverUnavailable) throw new ServerUnavailable(gold.message);
  if (gold.status === 'locked') return lockedOut(result, failureText('gold', gold), options);
  const comparison = new StreamingComparison(gold.status === 'ok' ? gold.rows : []);
  const pred = await streamQuery(db, task.predictedSql ?? ' ', gold.status === 'ok' ? shared : limits(), (row) => comparison.add(row));
  if (pred.status !== 'ok' && pred.serverUnavailable) throw new ServerUnavailable(pred.message);
  if (pred.status === 'locked') return lockedOut(result, failureText('prediction', pred), options);

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
  // What Python raises on a value the official script fetched (a list in set(), a date before year 1) scores 0.
  const raised = pred.status === 'ok' && gold.status === 'ok' ? comparison.pythonError : undefined;
  if (raised) {
    result.outcome = raised.side === 'gold' ? 'gold_error' : 'prediction_error';
    result.error = `${raised.side === 'gold' ? 'gold: ' : ''}Python raises "${raised.message}" on this result, so the official script scores 0`;
  }
  if (pred.status !== 'ok' || gold.status !== 'ok' || raised) {
    if (options.metrics.includes('f1')) result.f1 = 0;
    return;
  }
  const correct = comparison.sameSet;
  result.outcome = correct ? 'correct' : 'mismatch';
  result.ex = correct ? 1 : 0;
  if (options.metrics.includes('f1')) result.f1 = comparison.softF1;
  if (!correct) result.difference = comparison.difference();
}

/** The headline ratio: VES's quantity when VES is asked, else R-VES's. */
function applyHeadline(result: QuestionResult, timing: TimingResult): void {
  result.time_ratio = timing.ratio;
  result.time_ratio_interval = [timing.low, timing.high];
  result.gold_ms = timing.goldMs;
  result.pred_ms = timing.predMs;
  result.runs = timing.runs;
  result.timing = timing.protocol;
  if (timing.typicalRatio !== undefined) result.time_ratio_typical = timing.typicalRatio;
  if (timing.note) result.notes.push(timing.note);
}

/** VES from the first-row timing and R-VES from the full one, as each official script times. */
function applyTimings(result: QuestionResult, timings: { ves?: TimingResult; rves?: TimingResult }, options: EvalOptions): void {
  const headline = (timings.ves ?? timings.rves) as TimingResult;
  applyHeadline(result, headline);
  if (options.keepSamples) result.timings = timings;
  result.same_program = headline.sameProgram ?? false;
  const pastLimit = (['ves', 'rves'] as const).filter((metric) => timings[metric]?.pastOfficialLimit && options.metrics.includes(metric));
  if (pastLimit.length) result.past_official_limit = pastLimit;
  // Past the official loop's time limit the official scripts score 0; fast mode projects that and follows.
  if (timings.ves && options.metrics.includes('ves')) result.ves = timings.ves.pastOfficialLimit ? 0 : vesContribution(timings.ves.ratio);
  const rves = timings.rves;
  if (!rves || !options.metrics.includes('rves')) return;
  result.rves_time_ratio = rves.ratio;
  result.rves_time_ratio_interval = [rves.low, rves.high];
  if (rves.typicalRatio !== undefined) result.rves_time_ratio_typical = rves.typicalRatio;
  if (rves !== headline && rves.note) result.notes.push(`R-VES timing: ${rves.note}`);
  if (rves.pastOfficialLimit) {
    result.rves_reward = 0;
    result.rves = 0;
    result.rves_uncertain = false;
  } else if (rves.spread) {
    // Fast timing knows how far a repeat run may move: the reward is the expected one over the buckets a
    // repeat run can land in, which is what the official scripts' R-VES averages to over runs.
    const outlook = rvesOutlook(probabilityBelowFor({ ratio: rves.ratio, ...rves.spread }));
    result.rves_reward = outlook.reward;
    result.rves = outlook.expectedContribution;
    result.rves_expected_reward = outlook.expectedReward;
    result.rves_bucket_probabilities = outlook.probabilities;
    if (Number.isFinite(rves.spread.df)) result.rves_spread = { log_se: rves.spread.logSe, df: rves.spread.df };
    result.rves_uncertain = outlook.uncertain;
  } else {
    result.rves_reward = rvesReward(rves.ratio);
    result.rves = rvesContribution(rves.ratio);
    result.rves_uncertain = rves.ratio > 0 && rvesBucketUncertain(rves.low, rves.high);
  }
}

const identicalTiming = (quantity: TimedQuantity, engine: DatabaseEngine): TimingResult => ({
  protocol: 'same-program',
  quantity,
  ratio: IDENTICAL.ratio,
  low: IDENTICAL.low,
  high: IDENTICAL.high,
  spread: { logSe: IDENTICAL.logSe, df: IDENTICAL.df },
  runs: 0,
  goldMs: 0,
  predMs: 0,
  goldSamples: [],
  predSamples: [],
  sameProgram: true,
  note:
    dialectOf(engine) === 'postgres'
      ? 'gold and prediction have the same plan, expressions and literals (EXPLAIN VERBOSE): identical work, ratio exactly 1, not timed'
      : 'gold and prediction compile to the same SQLite program: identical work, ratio exactly 1, not timed',
});

function fastOptions(options: EvalOptions, base: FastTimingOptions = DEFAULT_FAST_TIMING): FastTimingOptions {
  // VES is DAMO's ratio of first rows; R-VES is mini_dev's ratio of full executions: time only what was asked.
  const ves = options.metrics.includes('ves');
  const rves = options.metrics.includes('rves');
  const quantities: TimedQuantity[] = [...(ves ? ['first-row' as const] : []), ...(rves ? ['full' as const] : [])];
  const settle: FastTimingOptions['settle'] = { ratioOf: ves ? ['first-row'] : [], bucketOf: rves ? ['full'] : [] };
  // The order alternates: with the prediction always first, short blocks after other pairs' work made it pay
  // the cold start, and first-row ratios read 1.5-3 % below the official loop's (bench/timing.mjs).
  return {
    ...base,
    quantities,
    settle,
    timeoutMs: options.timeoutMs,
    officialLimitMs: officialLoopLimitMs(options.timeoutMs),
    ...options.fastTiming,
  };
}

/** What a correct pair needs before its timing: bodies to time, or the reason it cannot be timed. */
type TimingPlan =
  { kind: 'time'; dbPath: string; gold: string; pred: string } | { kind: 'identical' } | { kind: 'untimeable'; note: string };

async function planTiming(db: DatabaseConnection, task: EvalTask, options: EvalOptions): Promise<TimingPlan> {
  const gold = runnableBody(task.goldSql ?? '', dialectOf(db.engine));
  const pred = runnableBody(task.predictedSql ?? '', dialectOf(db.engine));
  if ('status' in gold || 'status' in pred || !gold.body || !pred.body)
    return { kind: 'untimeable', note: 'an empty query cannot be timed; efficiency scored 0' };
  // Identical programs do identical work: timing them could only measure noise. The official protocol
  // still times them, as the scripts do.
  if (options.timing === 'fast' && (await sameProgram(db, gold.body, pred.body))) return { kind: 'identical' };
  return { kind: 'time', dbPath: db.path, gold: gold.body, pred: pred.body };
}

async function timeOfficially(plan: { dbPath: string; gold: string; pred: string }, options: EvalOptions) {
  // Each metric's own script times something different: run only the protocols asked for.
  const iterations = options.officialIterations ?? OFFICIAL_ITERATIONS;
  return {
    ves: options.metrics.includes('ves')
      ? await measureOfficial(plan.dbPath, plan.gold, plan.pred, 'ves', options.timeoutMs, iterations, options.signal)
      : undefined,
    rves: options.metrics.includes('rves')
      ? await measureOfficial(plan.dbPath, plan.gold, plan.pred, 'rves', options.timeoutMs, iterations, options.signal)
      : undefined,
  };
}

const fromPair = (timing: Partial<PairTiming>) => ({ ves: timing['first-row'], rves: timing.full });

const pairTimer = (plan: { dbPath: string; gold: string; pred: string }, options: EvalOptions, base?: FastTimingOptions) =>
  new PairTimer(
    freshConnectionTimer(plan.dbPath, plan.gold),
    freshConnectionTimer(plan.dbPath, plan.pred),
    fastOptions(options, base),
    options.signal,
  );

function timingFailed(result: QuestionResult, error: Error, options: EvalOptions): void {
  if (serverWentAway(error)) options.onServerUnavailable?.(error.message);
  // The run's failure (server gone, cancelled) is marked so: no score, timed again by --resume (runFailure.ts).
  result.notes.push(
    timingStoppedByRun(error, Boolean(options.signal?.aborted))
      ? `${TIMING_NOT_DONE}: ${error.message}; efficiency 0 in this report`
      : `timing failed: ${error.message}; efficiency scored 0`,
  );
  zeroEfficiency(result, options.metrics);
}

/** Scores one task on an open connection to its database, timing it on its own (the editor's Score). */
export async function scoreTask(db: DatabaseConnection, task: EvalTask, options: EvalOptions): Promise<QuestionResult> {
  const result = await scoreOrNotRun(db, task, options);
  const plan = result.outcome === 'correct' && wantsEfficiency(options.metrics) ? await planTiming(db, task, options) : undefined;
  if (plan) await timePlanned(result, plan, db.engine, options);
  return result;
}

/** The efficiency of a correct pair, as its plan says, timed on connections of its own; then its scaled copies. */
async function timePlanned(result: QuestionResult, plan: TimingPlan, engine: DatabaseEngine, options: EvalOptions): Promise<void> {
  try {
    if (plan.kind === 'untimeable') {
      result.notes.push(plan.note);
      zeroEfficiency(result, options.metrics);
    } else if (plan.kind === 'identical') {
      applyTimings(result, { ves: identicalTiming('first-row', engine), rves: identicalTiming('full', engine) }, options);
    } else if (options.timing === 'official') {
      applyTimings(result, await timeOfficially(plan, options), options);
    } else {
      applyTimings(result, fromPair(await runPairTimer(pairTimer(plan, options), options.signal)), options);
    }
    if (options.scales?.length && plan.kind !== 'untimeable') await timeAtScales(result, plan, options);
  } catch (error) {
    timingFailed(result, error as Error, options);
  }
}

/**
 * How the ratio grows with the data: the pair re-timed on copies of its database scaled ×N (built once and
 * cached; see scale/). Identical programs stay at 1. A copy or a size that times out is said, not guessed.
 */
async function timeAtScales(result: QuestionResult, plan: TimingPlan, options: EvalOptions): Promise<void> {
  if (plan.kind === 'untimeable') return;
  const byScale =
    plan.kind === 'identical'
      ? Object.fromEntries((options.scales ?? []).map((factor) => [factor, 1]))
      : await fullRatioByScale(plan.dbPath, plan.gold, plan.pred, options.scales ?? [], {
          ...fastOptions(options),
          schemaFile: options.schemaFile,
          dbId: result.db_id,
          cacheDir: options.scaleCacheDir,
          signal: options.signal,
          onError: (factor, error) => result.notes.push(`×${factor}: ${error.message}`),
        });
  result.time_ratio_by_scale = byScale;
  result.growth = growthVerdict(byScale);
}

export { NOT_RUN } from './runFailure';

/** A question its server could not run (it went away): an error, with efficiency zeroed as officially. */
function notRun(task: EvalTask, message: string, options: EvalOptions): QuestionResult {
  const result = emptyResult(task);
  result.outcome = 'gold_error';
  result.error = `${NOT_RUN} (${message})`;
  if (options.metrics.includes('f1')) result.f1 = 0;
  zeroEfficiency(result, options.metrics);
  return result;
}

/** scoreWithoutTiming, or the question not run when its server went away (said through onServerUnavailable). */
async function scoreOrNotRun(db: DatabaseConnection, task: EvalTask, options: EvalOptions): Promise<QuestionResult> {
  try {
    return await scoreWithoutTiming(db, task, options);
  } catch (error) {
    if (!(error instanceof ServerUnavailable)) throw error;
    options.onServerUnavailable?.(error.message);
    return notRun(task, error.message, options);
  }
}

/** Correctness of one task (EX, Soft-F1, outcome); efficiency zeroed unless the pair is correct. */
async function scoreWithoutTiming(db: DatabaseConnection, task: EvalTask, options: EvalOptions): Promise<QuestionResult> {
  const result = emptyResult(task);
  if (task.missing) {
    result.outcome = task.goldSql === undefined ? 'gold_error' : 'prediction_error';
    result.error = task.missing;
    if (options.metrics.includes('f1')) result.f1 = 0;
    zeroEfficiency(result, options.metrics);
    await options.techniques?.score(db, task, result, options);
    return result;
  }
  await scoreCorrectness(db, task, result, options);
  if (result.ex !== 1) zeroEfficiency(result, options.metrics);
  // SQLMorph's techniques (eval/techniqueStep.ts): only when asked; reads the outcome, re-reads a mismatch.
  await options.techniques?.score(db, task, result, options);
  return result;
}

/** One question after the correctness pass: its result, and what it still needs (a fast timer, official timing, scales). */
interface Scored {
  result: QuestionResult;
  timer?: PairTimer;
  /** Official timing, left for after the pass when lanes score several questions at once. */
  timeLater?: { plan: TimingPlan; engine: DatabaseEngine };
  scalePlan?: TimingPlan;
}

/**
 * Scores every task. Correctness first, in `jobs` lanes at once (eval/parallelEval.ts; the same results in the
 * same order whatever the number); timings after it, one at a time with nothing else running (they must not compete
 * for the CPU). Questions whose database the source does not have are `skipped`, never scored as wrong. Fast timing
 * runs in passes over the correct pairs (see timeInPasses), so each pair's samples are spread over the whole run. A
 * server that goes away ends the asking: that question and the rest are errors (EvalOptions.onServerUnavailable).
 */
export async function evaluateTasks(tasks: readonly EvalTask[], runOptions: EvalRunOptions): Promise<QuestionResult[]> {
  // The first report of a lost server is kept (and passed on once); every question after it is not run.
  let serverLost: string | undefined;
  const loseServer = (message: string) => {
    if (serverLost !== undefined) return;
    serverLost = message;
    runOptions.onServerUnavailable?.(message);
  };
  const options: EvalRunOptions = { ...runOptions, onServerUnavailable: loseServer };
  const jobs = laneCount(options.jobs, options.source, tasks.length);
  let finished = 0;
  const finish = (result: QuestionResult) => options.onResult?.(result, ++finished, tasks.length);

  /** Correctness of one question on its lane's connection, and what it needs after the pass; undefined when aborted. */
  const scoreOne = async (task: EvalTask, lane: Lane): Promise<Scored | undefined> => {
    const { dbId } = task.question;
    const opened = serverLost === undefined ? await lane.forQuestion(dbId) : undefined;
    if (opened instanceof DatabaseUnavailable && opened.serverUnavailable) loseServer(opened.message);
    const db = opened instanceof DatabaseUnavailable ? opened : opened?.db;
    const scored: Scored = { result: emptyResult(task) };
    if (serverLost !== undefined || db === undefined) {
      scored.result = notRun(task, serverLost ?? '', options);
    } else if (db instanceof DatabaseUnavailable) {
      scored.result.outcome = 'skipped';
      scored.result.error = db.message;
    } else if (options.timing === 'fast' || jobs > 1) {
      const result = (scored.result = await scoreOrNotRun(db, task, options));
      const plan = result.outcome === 'correct' && wantsEfficiency(options.metrics) ? await planTiming(db, task, options) : undefined;
      if (options.timing === 'official') {
        if (plan) scored.timeLater = { plan, engine: db.engine };
      } else {
        if (plan && plan.kind !== 'untimeable' && options.scales?.length) scored.scalePlan = plan;
        if (plan?.kind === 'time') {
          scored.timer = pairTimer(plan, options, PASS_FAST_TIMING); // timed in passes, with the run's allocation
        } else if (plan?.kind === 'identical') {
          applyTimings(result, { ves: identicalTiming('first-row', db.engine), rves: identicalTiming('full', db.engine) }, options);
        } else if (plan?.kind === 'untimeable') {
          result.notes.push(plan.note);
          zeroEfficiency(result, options.metrics);
        }
      }
    } else {
      scored.result = await scoreTask(db, task, options); // official timing in turn, as with one lane it always was
    }
    // A question interrupted by the cancel is not scored at all.
    return options.signal?.aborted ? undefined : scored;
  };

  // Results are passed on in question order: each once every question before it is scored.
  const byIndex: (Scored | undefined)[] = new Array(tasks.length);
  let scoredCount = 0;
  let passedOn = 0;
  await scoreInLanes(
    tasks.length,
    jobs,
    options.source,
    options.signal,
    (index, lane) => scoreOne(tasks[index], lane),
    (index, scored) => {
      byIndex[index] = scored;
      options.onProgress?.({ phase: 'correctness', done: ++scoredCount, total: tasks.length });
      for (let next = byIndex[passedOn]; next; next = byIndex[++passedOn]) {
        if (!next.timer && !next.timeLater && !next.scalePlan) finish(next.result);
      }
    },
  );
  // After a cancel, the questions scored before the first one that was not (as one at a time would have it).
  const scoredInOrder = byIndex.slice(0, passedOn) as Scored[];

  // Official timing of pairs scored in lanes, one at a time now that every lane is idle.
  for (const [i, { result, timeLater }] of scoredInOrder.entries()) {
    if (!timeLater) continue;
    if (options.signal?.aborted) {
      scoredInOrder.length = i; // not timed: not scored, as a question the cancel interrupted
      break;
    }
    await timePlanned(result, timeLater.plan, timeLater.engine, options);
    // Aborted during its timing (the loop was ended): its efficiency is no measurement, so it is not scored either.
    if (options.signal?.aborted) {
      scoredInOrder.length = i;
      break;
    }
    finish(result);
  }
  const results = scoredInOrder.map((scored) => scored.result);
  const pending = scoredInOrder.filter((scored) => scored.timer) as { result: QuestionResult; timer: PairTimer }[];
  const scaled = scoredInOrder.filter((scored) => scored.scalePlan).map(({ result, scalePlan }) => ({ result, plan: scalePlan! }));

  const failures = new Map<PairTimer, Error>();
  await timeInPasses(
    pending.map((p) => p.timer),
    {
      signal: options.signal,
      onError: (timer, error) => failures.set(timer, error),
      onPass: (pass, count) => options.onProgress?.({ phase: 'timing', pass, done: pending.length - count, total: pending.length }),
    },
  );
  for (const { result, timer } of pending) {
    const failure = failures.get(timer);
    if (failure) timingFailed(result, failure, options);
    else if (timer.blockCount > 0) applyTimings(result, fromPair(timer.results()), options);
    else timingFailed(result, new Error('cancelled before it was timed'), options);
    if (!scaled.some((p) => p.result === result)) finish(result);
  }
  // Scaled copies last: building them is the slow part, and the scores above never depend on it.
  for (const [i, { result, plan }] of scaled.entries()) {
    options.onProgress?.({ phase: 'scales', done: i, total: scaled.length });
    if (result.ex === 1 && result.time_ratio !== null) await timeAtScales(result, plan, options);
    finish(result);
  }
  return results;
}
