import { NOT_RUN, serverWentAway } from './runFailure';
import { StreamingComparison } from '../results/streamingComparison';
import { DatabaseConnection } from '../db/engine';
import { DatabaseUnavailable } from '../db/connectionCache';
import { ServerUnavailable } from '../db/database';
import { dialectOf, failsBeforeRunning, plannedWork, QueryFailure, streamQuery } from '../db/readQuery';
import { scaledCopies } from '../scale/scaledCopy';
import { PairToTime, planPairTiming, TimingPlan, timePairs } from '../timing/timePairs';
import { EvalTask } from '../bird/tasks';
import { Metric, QuestionResult } from './types';
import { EvalOptions, EvalRunOptions } from './evalOptions';
import { Lane, laneCount, scoreInLanes } from './parallelEval';
import { readGoldQuery } from './goldResultCache';
import { applyOutcome, timingRequest, zeroEfficiency } from './timingFields';

export { DEFAULT_MAX_ROWS } from './evalOptions';
export type { EvalOptions, EvalProgress, EvalRunOptions } from './evalOptions';

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

/** A failure of the server, not of the query: flagged by the engine, or a driver's socket error (`write EPIPE`). */
const lostServer = (run: QueryFailure) => Boolean(run.serverUnavailable) || serverWentAway(new Error(run.message));

const wantsEfficiency = (metrics: readonly Metric[]) => metrics.includes('ves') || metrics.includes('rves');

/** A pair the run times: a correct prediction, when VES or R-VES is asked. */
export const isTimedPair = (result: QuestionResult, metrics: readonly Metric[]) => result.outcome === 'correct' && wantsEfficiency(metrics);

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

/** A result's note when its gold was not run (failedBeforeGold). */
const GOLD_NOT_RUN_NOTE =
  'gold not run: the prediction fails before running, and the official scripts, which run the prediction first, score 0 without running the gold';

/**
 * On a server (or the embedded PostgreSQL), a prediction that fails before running (it does not compile, or is
 * refused) is scored as the official scripts score it, without running its gold, when the gold compiles: a gold
 * can take seconds there (mixtral's MySQL file: 103 of 140 predictions do not compile, and their golds were half
 * the run). Its outcome and error are the prediction's, as when the gold runs. True when the result is complete;
 * false when the prediction ran after all, or the gold does not compile either: then both run as usual. Not on
 * SQLite: its compile check costs a third of a millisecond a question, more than the golds it would skip save, and
 * the gold-result cache makes most golds free.
 */
async function failedBeforeGold(db: DatabaseConnection, task: EvalTask, result: QuestionResult, options: EvalOptions): Promise<boolean> {
  if (dialectOf(db.engine) === 'sqlite') return false;
  if (!(await failsBeforeRunning(db, task.predictedSql ?? ' ')) || (await failsBeforeRunning(db, task.goldSql ?? ' '))) return false;
  const pred = await streamQuery(db, task.predictedSql ?? ' ', queryLimits(options), () => undefined);
  if (pred.status !== 'error' && pred.status !== 'refused') return false;
  if (lostServer(pred)) throw new ServerUnavailable(pred.message);
  result.outcome = pred.status === 'refused' ? 'refused' : 'prediction_error';
  result.error = pred.message;
  result.notes.push(GOLD_NOT_RUN_NOTE);
  if (options.metrics.includes('f1')) result.f1 = 0;
  return true;
}

/** One pair's limits: both queries share one time limit, as in the official scripts. */
function queryLimits(options: EvalOptions) {
  return { deadline: performance.now() + options.timeoutMs, budgetMs: options.timeoutMs, maxRows: options.maxRows, signal: options.signal };
}

/**
 * EX and Soft-F1 of one pair, with the outcome that explains them. Both queries share one time limit, as in
 * the official scripts. Gold runs first so that the prediction can be compared row by row as it streams
 * (memory stays bounded whatever it returns); when gold fails, the prediction still runs, to report it too.
 * On a server, a prediction that fails before running is scored without its gold (failedBeforeGold).
 */
async function scoreCorrectness(db: DatabaseConnection, task: EvalTask, result: QuestionResult, options: EvalOptions) {
  if (await failedBeforeGold(db, task, result, options)) return;
  const limits = () => queryLimits(options);
  // The gold's rows may come from the cache of gold results (eval/goldResultCache.ts), which moves the shared limit.
  const { gold, shared } = await readGoldQuery(db, task.goldSql ?? ' ', limits(), options);
  if (gold.status !== 'ok' && lostServer(gold)) throw new ServerUnavailable(gold.message);
  if (gold.status === 'locked') return lockedOut(result, failureText('gold', gold), options);
  const comparison = new StreamingComparison(gold.status === 'ok' ? gold.rows : []);
  const pred = await streamQuery(db, task.predictedSql ?? ' ', gold.status === 'ok' ? shared : limits(), (row) => comparison.add(row));
  if (pred.status !== 'ok' && lostServer(pred)) throw new ServerUnavailable(pred.message);
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

/** What a correct pair needs for its timing, decided on its own connection (timing/timePairs.ts); undefined: nothing to time. */
async function timingPlan(db: DatabaseConnection, task: EvalTask, result: QuestionResult, options: EvalOptions) {
  if (!isTimedPair(result, options.metrics)) return undefined;
  return planPairTiming(db, task.goldSql ?? '', task.predictedSql ?? '', timingRequest(options));
}

/**
 * The pairs handed to timing, each with the scaled copies of its database built first (scale/; one database's
 * copies once per run): timing itself never builds one.
 */
async function pairsToTime(plans: readonly TimingPlan[], dbIds: readonly string[], options: EvalOptions): Promise<PairToTime[]> {
  const scales = options.scales?.length ? options.scales : undefined;
  const built = new Map<string, Promise<Map<number, string | Error>>>();
  const pairs: PairToTime[] = [];
  for (const [i, plan] of plans.entries()) {
    if (!scales || plan.kind !== 'time') {
      pairs.push({ plan, scales: plan.kind === 'untimeable' ? undefined : scales });
      continue;
    }
    const copyOptions = { schemaFile: options.schemaFile, dbId: dbIds[i], cacheDir: options.scaleCacheDir, signal: options.signal };
    if (!built.has(plan.dbPath)) built.set(plan.dbPath, scaledCopies(plan.dbPath, scales, copyOptions));
    pairs.push({ plan, scales, copies: await built.get(plan.dbPath) });
  }
  return pairs;
}

/** Scores one task on an open connection to its database, timing it on its own (the editor's Score). */
export async function scoreTask(db: DatabaseConnection, task: EvalTask, options: EvalOptions): Promise<QuestionResult> {
  const result = await scoreOrNotRun(db, task, options);
  const plan = await timingPlan(db, task, result, options);
  if (!plan) return result;
  const pairs = await pairsToTime([plan], [result.db_id], options);
  const [outcome] = await timePairs(pairs, timingRequest(options), { inPasses: false });
  applyOutcome(result, outcome, options);
  return result;
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

/**
 * The planner's estimate of a question's work on a server (readQuery.ts's plannedWork), for the lanes to start
 * the costliest first: its prediction's, or its gold's when that is more and the prediction compiles (on a server,
 * the gold of a prediction that fails before running is not run: failedBeforeGold).
 */
async function plannedTaskWork(task: EvalTask, lane: Lane, signal: AbortSignal): Promise<number | undefined> {
  if (task.missing || task.predictedSql === undefined || task.goldSql === undefined) return undefined;
  const opened = await lane.forQuestion(task.question.dbId);
  if (opened instanceof DatabaseUnavailable) return undefined;
  const stop = () => opened.db.interrupt();
  signal.addEventListener('abort', stop);
  try {
    const pred = await plannedWork(opened.db, task.predictedSql);
    if (!pred) return pred;
    return Math.max(pred, (await plannedWork(opened.db, task.goldSql)) ?? 0);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** One question after the correctness pass: its result, and its timing plan when it still needs timing. */
interface Scored {
  result: QuestionResult;
  plan?: TimingPlan;
}

/**
 * Scores every task. Correctness first, in `jobs` lanes at once (eval/parallelEval.ts; the same results in the
 * same order whatever the number); then the correct pairs handed to timing (timing/timePairs.ts), one at a time
 * with nothing else running (they must not compete for the CPU). Questions whose database the source does not
 * have are `skipped`, never scored as wrong. A server that goes away ends the asking: that question and those no
 * lane had started are errors (EvalOptions.onServerUnavailable); another lane's question under way keeps its result.
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
  // With one lane, official timing runs in turn after each question, as it always has; otherwise after the pass.
  const timeInTurn = options.timing === 'official' && jobs === 1;
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
    } else if (timeInTurn) {
      scored.result = await scoreTask(db, task, options);
    } else {
      scored.result = await scoreOrNotRun(db, task, options);
      scored.plan = await timingPlan(db, task, scored.result, options);
    }
    const scoredOnDb = db !== undefined && !(db instanceof DatabaseUnavailable) && serverLost === undefined;
    if (scoredOnDb && !options.signal?.aborted) await options.onLane?.(db, task, scored.result);
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
      for (let next = byIndex[passedOn]; next; next = byIndex[++passedOn]) if (!next.plan) finish(next.result);
    },
    // Looking ahead needs a planner's estimates (SQLite's plans have none) and cores of the server's own: on the
    // embedded PostgreSQL (maxLanes) the EXPLAINs would run on the lanes' own WASM threads.
    dialectOf(options.source.engine) === 'sqlite' || options.source.engine.maxLanes
      ? undefined
      : (index, lane, signal) => plannedTaskWork(tasks[index], lane, signal),
  );
  // After a cancel, the questions scored before the first one that was not (as one at a time would have it).
  const scoredInOrder = byIndex.slice(0, passedOn) as Scored[];
  const timed = scoredInOrder.filter((scored) => scored.plan) as Required<Scored>[];
  if (serverLost !== undefined) {
    // A server that went away times nothing: each correct pair is marked as the run's failure, for --resume to time.
    for (const scored of timed) {
      applyOutcome(scored.result, { kind: 'failed', error: new ServerUnavailable(serverLost) }, options);
      finish(scored.result);
    }
    return scoredInOrder.map((scored) => scored.result);
  }
  const pairs = await pairsToTime(
    timed.map((scored) => scored.plan),
    timed.map((scored) => scored.result.db_id),
    options,
  );
  const outcomes = await timePairs(pairs, timingRequest(options), {
    inPasses: true,
    onPass: (pass, count) => options.onProgress?.({ phase: 'timing', pass, done: pairs.length - count, total: pairs.length }),
    onScales: (done, total) => options.onProgress?.({ phase: 'scales', done, total }),
    onOutcome: (i, outcome) => {
      if (outcome.kind === 'cancelled') return;
      applyOutcome(timed[i].result, outcome, options);
      finish(timed[i].result);
    },
  });
  // An official loop the cancel stopped is no measurement: that question and every later one are not scored.
  const cancelled = outcomes.findIndex((outcome) => outcome.kind === 'cancelled');
  if (cancelled >= 0) scoredInOrder.length = scoredInOrder.indexOf(timed[cancelled]);
  return scoredInOrder.map((scored) => scored.result);
}
