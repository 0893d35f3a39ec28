/**
 * The one entry point that times pairs (a run's correct predictions against their gold, or one pair the editor
 * scores): what each pair needs is decided once (`planPairTiming`: time it, identical programs, or untimeable),
 * and `timePairs` holds the one switch over it, runs the protocol asked (official loops one pair at a time, fast
 * blocks in passes over every pair or one pair alone), then re-times on the scaled copies it is handed (built
 * before, by scale/: nothing here reads BIRD's tables file or writes a copy). It returns typed outcomes; the
 * caller turns them into its result rows (eval/timingFields.ts).
 */
import { DatabaseConnection } from '../db/engine';
import { dialectOf, runnableBody } from '../db/readQuery';
import { SqlDialect } from '../sql/statements';
import { IDENTICAL } from './estimate';
import {
  DEFAULT_FAST_TIMING,
  FastTimingOptions,
  freshConnectionTimer,
  fullRatioOnCopies,
  PairTimer,
  PairTiming,
  PASS_FAST_TIMING,
  runPairTimer,
  timeInPasses,
} from './fast';
import { measureOfficial, OFFICIAL_ITERATIONS, OfficialProtocol, officialLoopLimitMs } from './official';
import { sameProgram, sameWorkPhrase } from './sameProgram';
import { TimedQuantity, TimingResult } from './types';

/** What a correct pair needs before its timing: bodies to time, or why it needs none, or why it cannot be timed. */
export type TimingPlan =
  | { kind: 'time'; dbPath: string; gold: string; pred: string }
  | { kind: 'identical'; dialect: SqlDialect }
  | { kind: 'untimeable'; note: string };

/** What a run asks of timing (eval's options, narrowed to what timing reads). */
export interface TimingRequest {
  /** `fast` (VES Lens's blocks) or `official` (the scripts' loops). */
  protocol: 'fast' | 'official';
  /** Which scores are asked: VES times first rows (DAMO's script), R-VES full executions (mini_dev's). */
  scores: readonly OfficialProtocol[];
  /** Limit of one execution, as the official meta_time_out. */
  timeoutMs: number;
  officialIterations?: number;
  fastTiming?: Partial<FastTimingOptions>;
  signal?: AbortSignal;
}

/** One pair handed to timePairs, with the factors to re-time it at and the copies of its database built for them. */
export interface PairToTime {
  plan: TimingPlan;
  /** Re-time on copies of its database scaled by these factors (1: the database itself). */
  scales?: readonly number[];
  /** The copies, built by scale/ before timing (factor → path, or why it could not be built); a `time` plan needs them. */
  copies?: ReadonlyMap<number, string | Error>;
}

/** How a pair's timing ended. `cancelled`: the run was stopped before or while its official loop ran (no measurement). */
export type PairOutcome =
  | { kind: 'timed'; ves?: TimingResult; rves?: TimingResult; byScale?: Record<string, number | null>; scaleNotes: string[] }
  | { kind: 'untimeable'; note: string }
  | { kind: 'failed'; error: Error }
  | { kind: 'cancelled' };

export interface TimePairsHooks {
  /** Fast timing in passes: pass `pass` times `pending` pairs not settled yet. */
  onPass?: (pass: number, pending: number) => void;
  /** Re-timing on scaled copies: `done` of `total` pairs. */
  onScales?: (done: number, total: number) => void;
  /** A pair's outcome is final (after its scaled copies, if it has any). */
  onOutcome?: (index: number, outcome: PairOutcome) => void;
}

/** Time, identical (same program: ratio exactly 1) or untimeable (an empty query): decided on the pair's own connection. */
export async function planPairTiming(
  db: DatabaseConnection,
  goldSql: string,
  predSql: string,
  request: TimingRequest,
): Promise<TimingPlan> {
  const dialect = dialectOf(db.engine);
  const gold = runnableBody(goldSql, dialect);
  const pred = runnableBody(predSql, dialect);
  if ('status' in gold || 'status' in pred || !gold.body || !pred.body)
    return { kind: 'untimeable', note: 'an empty query cannot be timed; efficiency scored 0' };
  // Identical programs do identical work: timing them could only measure noise. The official protocol
  // still times them, as the scripts do.
  if (request.protocol === 'fast' && (await sameProgram(db, gold.body, pred.body))) return { kind: 'identical', dialect };
  return { kind: 'time', dbPath: db.path, gold: gold.body, pred: pred.body };
}

/**
 * Times the pairs: official loops one pair at a time, in order (a cancel leaves that pair and every later one
 * `cancelled`); fast blocks in passes over every pair (`inPasses`: eval's run, each pair's blocks spread over
 * it), or each pair alone (the editor's Score). Then the pairs timed, on their copies. Nothing else may run
 * meanwhile: the caller starts it once its correctness work is idle.
 */
export async function timePairs(
  pairs: readonly PairToTime[],
  request: TimingRequest,
  options: { inPasses: boolean } & TimePairsHooks,
): Promise<PairOutcome[]> {
  const outcomes: PairOutcome[] = new Array(pairs.length);
  const timers = new Map<number, PairTimer>();
  let stopped = false;
  for (const [i, { plan }] of pairs.entries()) {
    if (request.protocol === 'official' && stopped) outcomes[i] = { kind: 'cancelled' };
    else if (plan.kind === 'untimeable') outcomes[i] = plan;
    else if (plan.kind === 'identical') outcomes[i] = { kind: 'timed', ...identicalTimings(plan.dialect), scaleNotes: [] };
    else if (request.protocol === 'official') {
      // Each metric's own script times something different: run only the protocols asked for.
      stopped = Boolean(request.signal?.aborted);
      outcomes[i] = stopped ? { kind: 'cancelled' } : await settled(() => timeOfficially(plan, request));
      stopped = Boolean(request.signal?.aborted); // a cut loop is no measurement
      if (stopped) outcomes[i] = { kind: 'cancelled' };
    } else if (options.inPasses) {
      timers.set(i, pairTimer(plan, request, PASS_FAST_TIMING)); // timed in passes, with the run's allocation
    } else {
      outcomes[i] = await settled(async () => fromPair(await runPairTimer(pairTimer(plan, request), request.signal)));
    }
  }
  if (timers.size) {
    const failures = new Map<PairTimer, Error>();
    await timeInPasses([...timers.values()], {
      signal: request.signal,
      onError: (timer, error) => failures.set(timer, error),
      onPass: options.onPass,
    });
    for (const [i, timer] of timers) {
      const failure = failures.get(timer);
      if (failure) outcomes[i] = { kind: 'failed', error: failure };
      else if (timer.blockCount > 0) outcomes[i] = { kind: 'timed', ...fromPair(timer.results()), scaleNotes: [] };
      else outcomes[i] = { kind: 'failed', error: new Error('cancelled before it was timed') };
    }
  }
  // Scaled copies last: the scores above never depend on them.
  const scaled = pairs.flatMap((pair, i) => (pair.scales?.length && outcomes[i].kind === 'timed' ? [i] : []));
  for (const [i, outcome] of outcomes.entries()) if (!scaled.includes(i)) options.onOutcome?.(i, outcome);
  for (const [n, i] of scaled.entries()) {
    options.onScales?.(n, scaled.length);
    const outcome = outcomes[i] as Extract<PairOutcome, { kind: 'timed' }>;
    outcome.byScale = await ratioByScale(pairs[i], request, (factor, error) => outcome.scaleNotes.push(`×${factor}: ${error.message}`));
    options.onOutcome?.(i, outcome);
  }
  return outcomes;
}

/** The fast timing options of a request: time only what was asked, within the official loop's limit. */
function fastOptions(request: TimingRequest, base: FastTimingOptions = DEFAULT_FAST_TIMING): FastTimingOptions {
  // VES is DAMO's ratio of first rows; R-VES is mini_dev's ratio of full executions: time only what was asked.
  const ves = request.scores.includes('ves');
  const rves = request.scores.includes('rves');
  const quantities: TimedQuantity[] = [...(ves ? ['first-row' as const] : []), ...(rves ? ['full' as const] : [])];
  const settle: FastTimingOptions['settle'] = { ratioOf: ves ? ['first-row'] : [], bucketOf: rves ? ['full'] : [] };
  // The order alternates: with the prediction always first, short blocks after other pairs' work made it pay
  // the cold start, and first-row ratios read 1.5-3 % below the official loop's (bench/timing.mjs).
  return {
    ...base,
    quantities,
    settle,
    timeoutMs: request.timeoutMs,
    officialLimitMs: officialLoopLimitMs(request.timeoutMs),
    ...request.fastTiming,
  };
}

type Timed = { ves?: TimingResult; rves?: TimingResult };

const fromPair = (timing: Partial<PairTiming>): Timed => ({ ves: timing['first-row'], rves: timing.full });

const pairTimer = (plan: { dbPath: string; gold: string; pred: string }, request: TimingRequest, base?: FastTimingOptions) =>
  new PairTimer(
    freshConnectionTimer(plan.dbPath, plan.gold),
    freshConnectionTimer(plan.dbPath, plan.pred),
    fastOptions(request, base),
    request.signal,
  );

async function timeOfficially(plan: { dbPath: string; gold: string; pred: string }, request: TimingRequest): Promise<Timed> {
  const iterations = request.officialIterations ?? OFFICIAL_ITERATIONS;
  const run = (protocol: OfficialProtocol) =>
    request.scores.includes(protocol)
      ? measureOfficial(plan.dbPath, plan.gold, plan.pred, protocol, request.timeoutMs, iterations, request.signal)
      : undefined;
  return { ves: await run('ves'), rves: await run('rves') };
}

/** A pair timed, or the error that stopped its timing. */
async function settled(time: () => Promise<Timed>): Promise<PairOutcome> {
  try {
    return { kind: 'timed', ...(await time()), scaleNotes: [] };
  } catch (error) {
    return { kind: 'failed', error: error as Error };
  }
}

function identicalTimings(dialect: SqlDialect): Timed {
  const identical = (quantity: TimedQuantity): TimingResult => ({
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
    note: `gold and prediction ${sameWorkPhrase(dialect)}: identical work, ratio exactly 1, not timed`,
  });
  return { ves: identical('first-row'), rves: identical('full') };
}

/** How the ratio grows with the data: identical programs stay at 1; a timed pair is re-timed on its copies (fast.ts). */
function ratioByScale(
  pair: PairToTime,
  request: TimingRequest,
  onError: (factor: number, error: Error) => void,
): Promise<Record<string, number | null>> {
  const scales = pair.scales ?? [];
  if (pair.plan.kind !== 'time') return Promise.resolve(Object.fromEntries(scales.map((factor) => [factor, 1])));
  return fullRatioOnCopies(pair.plan.gold, pair.plan.pred, scales, pair.copies ?? new Map(), {
    ...fastOptions(request),
    signal: request.signal,
    onError,
  });
}
