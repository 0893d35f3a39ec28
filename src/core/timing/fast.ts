import { median } from 'simple-statistics';
import { RunLimits } from '../db/database';
import { engineFor, timeExecution } from '../db/engines';
import { BLOCK_PRIOR, estimateRatio, probabilityBelow, RatioEstimate } from './estimate';
import { rvesOutlook, rvesReward } from '../metrics/efficiency';
import { OFFICIAL_ITERATIONS } from './official';
import { TimedQuantity, TimingResult } from './types';
import { DEFAULT_RUN_ALLOCATION, extraBlocks, RunAllocation } from './runAllocation';
import { fastTimingClock, OfficialClock, timeBlockWithPython } from './pythonTimer';

/**
 * Timing protocol v2 (`--timing fast`). It measures what the official scripts measure, in far fewer
 * executions, and says how far a second run may move:
 * - each execution runs on a fresh read-only connection opened outside the timed span, as both official
 *   scripts do, and times what the metric's script times (first row: DAMO's VES; every row and the close:
 *   mini_dev's R-VES); on SQLite a whole block runs in the Python process, with Python's sqlite3 as the scripts
 *   (pythonTimer.ts), where python3 runs, else in node-sqlite3 (PairTimer.timedBy says which);
 * - an iteration is one predicted and one gold execution, as in the scripts, in alternating order (which
 *   cancels drift and cold starts); each iteration gives the ratio t_gold / t_pred;
 * - iterations come in blocks taken at separated moments (in `eval`, one block per pass over all questions),
 *   and the interval includes the spread between blocks (see estimate.ts); a block holds enough iterations to
 *   span `blockMs`, so a sub-millisecond pair's block centre is taken over many;
 * - the ratio is the typical one (a robust centre of the single-execution ratios), not their mean (see estimate.ts);
 * - a pair stops as soon as what was asked is settled (the R-VES bucket with `bucketConfidence`, the ratio
 *   within `precision`), or when it has used its blocks or budget; then it says so.
 */
export interface FastTimingOptions {
  /** What to time: `first-row` for VES, `full` for R-VES (and for hints and index advice). */
  quantities: TimedQuantity[];
  /** Which quantities must be settled before a pair stops: the ratio's precision, the R-VES bucket. */
  settle: { ratioOf: TimedQuantity[]; bucketOf: TimedQuantity[] };
  /** Blocks before a pair may stop (the spread between blocks needs a few), and at most. */
  minBlocks: number;
  maxBlocks: number;
  /**
   * A block repeats iterations until it spans about this long (at least `minIterations`, at most
   * `maxIterations`): longer for a quantity whose ratio must be pinned down (VES sums √ratio, so every pair's
   * noise reaches the total), shorter for one that only needs its R-VES bucket.
   */
  blockMs: { ratio: number; bucket: number };
  minIterations: number;
  maxIterations: number;
  /** No new block starts once a pair has spent this long being timed. */
  pairBudgetMs: number;
  /** Settled when the 95 % repeat interval's half-width is within this share of the ratio (log scale). */
  precision: number;
  /** The R-VES bucket is settled when a repeat run lands in it with this probability. */
  bucketConfidence: number;
  /** Timing a single pair: a pause between its blocks, so that they are not one stretch of time. */
  blockPauseMs: number;
  timeoutMs: number;
  /**
   * `eval` only: the official scripts' time limit on a pair's whole loop of 100 iterations. A quantity whose
   * loop would run past it is one the official scripts cut off and score 0: fast mode scores it 0 too, says
   * so, and stops timing it after one block.
   */
  officialLimitMs?: number;
  /** `eval` only: where a run's extra blocks go once every pair has its own (runAllocation.ts). */
  runAllocation?: RunAllocation;
}

export const DEFAULT_FAST_TIMING: FastTimingOptions = {
  quantities: ['first-row', 'full'],
  settle: { ratioOf: ['first-row'], bucketOf: ['full'] },
  minBlocks: 3,
  maxBlocks: 4,
  blockMs: { ratio: 3.6, bucket: 1.8 },
  minIterations: 2,
  maxIterations: 16,
  pairBudgetMs: 800,
  precision: 0.16,
  bucketConfidence: 0.99,
  blockPauseMs: 15,
  timeoutMs: 30_000,
};

/**
 * `eval`'s pairs, timed in passes (timeInPasses): shorter blocks, so that the run's allocation has the time to
 * give more blocks where they move the totals and narrow the intervals (runAllocation.ts). An interval is set
 * by how many separated blocks a ratio has more than by how many iterations each holds (bench/timing.mjs). Timed
 * in Python, a sub-millisecond iteration costs a fraction of node's wall time, so a block holds up to 16 of them:
 * with 6, the median interval on gpt-4's file was ×1.36 at 3–4 blocks; with 16, ×1.22 at 5–6 (bench/timing.mjs
 * --fast-only, with runAllocation's officialShare at 0.09).
 */
export const PASS_FAST_TIMING: FastTimingOptions = {
  ...DEFAULT_FAST_TIMING,
  blockMs: { ratio: 2.4, bucket: 1.2 },
  maxIterations: 16,
  runAllocation: DEFAULT_RUN_ALLOCATION,
};

/** Times one execution of a query, in milliseconds, of the quantity asked. */
export type ExecutionTimer = ((quantity: TimedQuantity, limits: RunLimits) => Promise<number>) & {
  /** The file and query a fresh-connection timer runs: what lets PairTimer time its blocks in Python instead. */
  freshConnection?: { dbPath: string; body: string };
};

/** Executions on fresh read-only connections to `dbPath`, as the official scripts time them. */
export function freshConnectionTimer(dbPath: string, body: string): ExecutionTimer {
  const timer = (quantity: TimedQuantity, limits: RunLimits) => timeExecution(dbPath, body, quantity, limits);
  return Object.assign(timer, { freshConnection: { dbPath, body } });
}

/** `count` iterations of one quantity from iteration `firstIndex` on (the order alternating by index). */
type BlockTimer = (quantity: TimedQuantity, firstIndex: number, count: number) => Promise<Iteration[]>;

/** A loop projected this far past (or short of) the official limit is clearly past (or within) it. */
const OFFICIAL_LIMIT_CERTAIN = 1.25;

/** A bucket-only ratio of long iterations this factor away from every bucket edge is settled after one block. */
const FAR_FROM_EDGE = 2;

/** An iteration this long is past any warm-up effect after the first. */
const LONG_ITERATION_MS = 20;

/** One iteration: the gold and predicted milliseconds of one quantity, one execution each. */
type Iteration = { gold: number; pred: number };

/**
 * The timing state of one pair: blocks of iterations, added one block at a time. Each quantity keeps its own
 * blocks and stops on its own: an R-VES bucket settled in three blocks need not wait while the first-row ratio
 * is still being pinned down (q738's gold takes 80 ms to drain but 0.3 ms to its first row).
 */
export class PairTimer {
  private readonly blocks: Partial<Record<TimedQuantity, Iteration[][]>> = {};
  /** Iterations per block of each quantity: cheap quantities get more, so that each block spans its blockMs. */
  private readonly iterationsPerBlock: Partial<Record<TimedQuantity, number>> = {};
  /** Wall milliseconds of each quantity's blocks, executions and connections included: what another block costs. */
  private readonly blockWallMs: Partial<Record<TimedQuantity, number[]>> = {};
  private spentMs = 0;
  private warmedUp = false;
  /** Where the blocks are timed, decided at the first one (chooseBlockTimer). */
  private blockTimer?: Promise<BlockTimer>;
  /** Which runtime timed the blocks: Python's sqlite3 or node-sqlite3 (undefined before the first block). */
  timedBy?: OfficialClock['clock'];

  constructor(
    private readonly gold: ExecutionTimer,
    private readonly pred: ExecutionTimer,
    readonly options: FastTimingOptions = DEFAULT_FAST_TIMING,
    /** Interrupts a running execution when aborted. */
    private readonly signal?: AbortSignal,
  ) {
    for (const quantity of options.quantities) this.blocks[quantity] = [];
  }

  /** One execution, in milliseconds. Single executions, as the official scripts time them: a sub-millisecond query's occasional stall is left to the robust centres (estimate.ts), not averaged into a sample. */
  private execute(timer: ExecutionTimer, quantity: TimedQuantity): Promise<number> {
    return timer(quantity, { deadline: performance.now() + this.options.timeoutMs, budgetMs: this.options.timeoutMs, signal: this.signal });
  }

  private async iteration(quantity: TimedQuantity, index: number): Promise<Iteration> {
    // Which query runs first swaps every iteration: the first one after other work meets colder caches.
    if (index % 2 === 0) {
      const pred = await this.execute(this.pred, quantity);
      return { pred, gold: await this.execute(this.gold, quantity) };
    }
    const gold = await this.execute(this.gold, quantity);
    return { gold, pred: await this.execute(this.pred, quantity) };
  }

  /**
   * Iterations as a block: in the Python process when both queries are fresh-connection timers on SQLite files and
   * python3 runs with a SQLite at least as new as VES Lens's (fastTimingClock), else one execution at a time in
   * node. Python's sqlite3 adds 3–7 µs to an execution where node-sqlite3's hop to its worker thread adds 80–170 µs
   * with jitter (bench/fixedCost.mjs): a fixed cost added to both sides pulls a sub-millisecond ratio toward 1.
   */
  private timeIterations(quantity: TimedQuantity, firstIndex: number, count: number): Promise<Iteration[]> {
    this.blockTimer ??= this.chooseBlockTimer();
    return this.blockTimer.then((timeBlock) => timeBlock(quantity, firstIndex, count));
  }

  private async chooseBlockTimer(): Promise<BlockTimer> {
    const gold = this.gold.freshConnection;
    const pred = this.pred.freshConnection;
    const onSqlite = gold && pred && [gold, pred].every(({ dbPath }) => engineFor(dbPath).name === 'sqlite');
    this.timedBy = onSqlite ? (await fastTimingClock()).clock : 'node-sqlite3';
    if (gold && pred && this.timedBy === 'python-sqlite3') {
      return async (quantity, firstIndex, iterations) => {
        const times = await timeBlockWithPython({
          ...{ gold, pred, quantity, iterations, firstIndex },
          ...{ executionLimitMs: this.options.timeoutMs, signal: this.signal },
        });
        return times.goldMs.map((goldMs, i) => ({ gold: goldMs, pred: times.predMs[i] }));
      };
    }
    return async (quantity, firstIndex, count) => {
      const iterations: Iteration[] = [];
      for (let i = 0; i < count; i++) iterations.push(await this.iteration(quantity, firstIndex + i));
      return iterations;
    };
  }

  /**
   * The first iterations warm the OS page cache and the JIT, and size the blocks; they are not kept, but for one
   * case: a long iteration (one block on its own) of a quantity whose queries an earlier quantity's warm-up has
   * just run. That iteration is past the warm-up effect (LONG_ITERATION_MS) and is kept as the quantity's first
   * block instead of being run again: the all-rows iteration of a 300 ms query is what its warm-up cost most.
   * Returns the quantities whose first block was taken so.
   */
  private async warmUp(): Promise<Set<TimedQuantity>> {
    const { blockMs, minIterations, maxIterations, settle } = this.options;
    const kept = new Set<TimedQuantity>();
    for (const [order, quantity] of this.options.quantities.entries()) {
      const minBlockMs = settle.ratioOf.includes(quantity) ? blockMs.ratio : blockMs.bucket;
      const started = performance.now();
      const warm = await this.timeIterations(quantity, 0, 1);
      const long = warm[0].gold + warm[0].pred >= LONG_ITERATION_MS;
      if (long && order > 0) {
        this.iterationsPerBlock[quantity] = 1;
        this.blocks[quantity]!.push(warm);
        (this.blockWallMs[quantity] ??= []).push(performance.now() - started);
        kept.add(quantity);
        continue;
      }
      // A second warm-up iteration only pays off for short queries (JIT, caches); a long one is warm after one.
      if (!long) warm.push(...(await this.timeIterations(quantity, 1, 1)));
      const iterationMs = Math.min(...warm.map((it) => it.gold + it.pred));
      // A long iteration is a block on its own: its median needs no company, and each one costs real time.
      const fewest = iterationMs >= LONG_ITERATION_MS ? 1 : minIterations;
      this.iterationsPerBlock[quantity] = Math.min(maxIterations, Math.max(fewest, Math.ceil(minBlockMs / Math.max(0.001, iterationMs))));
    }
    this.warmedUp = true;
    return kept;
  }

  /** Adds one block of iterations to each quantity given (by default, each quantity not yet done). */
  async runBlock(quantities: readonly TimedQuantity[] = this.pendingQuantities()): Promise<void> {
    const started = performance.now();
    const takenInWarmUp = this.warmedUp ? new Set<TimedQuantity>() : await this.warmUp();
    for (const quantity of quantities) {
      if (takenInWarmUp.has(quantity)) continue;
      const blockStarted = performance.now();
      const taken = this.blocks[quantity]!;
      taken.push(await this.timeIterations(quantity, taken.length, this.iterationsPerBlock[quantity]!));
      (this.blockWallMs[quantity] ??= []).push(performance.now() - blockStarted);
    }
    this.spentMs += performance.now() - started;
  }

  /** The quantities this pair's own rules still time (minimum blocks, settling, its blocks and budget). */
  pendingQuantities(): TimedQuantity[] {
    return this.options.quantities.filter((q) => !this.quantityDone(q));
  }

  /** Blocks taken of one quantity. */
  blocksOf(quantity: TimedQuantity): number {
    return this.blocks[quantity]!.length;
  }

  /** What one more block of this quantity costs in wall time (the median of its blocks so far). */
  blockCostMs(quantity: TimedQuantity): number {
    const walls = this.blockWallMs[quantity];
    return walls?.length ? median(walls) : Infinity;
  }

  /**
   * What the official protocol would spend on this pair: 100 iterations of each quantity timed, at the wall time
   * an iteration takes here (its connections included), a loop past the official limit cut off there.
   */
  projectedOfficialMs(): number {
    let total = 0;
    for (const quantity of this.options.quantities) {
      if (!this.blockWallMs[quantity]?.length) continue;
      total += Math.min(this.officialLoopMs(quantity), this.options.officialLimitMs ?? Infinity);
    }
    return total;
  }

  /**
   * A block more of this quantity could still move its score: it has been timed, and neither the official limit
   * nor a bucket far from every edge has closed it. A run's allocation (runAllocation.ts) may add blocks past the
   * pair's own rules to such a quantity.
   */
  mayExtend(quantity: TimedQuantity): boolean {
    const taken = this.blocks[quantity]!.length;
    return taken >= 1 && !this.closed(quantity);
  }

  /** Blocks taken so far (of the quantity timed longest). */
  get blockCount(): number {
    return Math.max(0, ...this.options.quantities.map((q) => this.blocks[q]!.length));
  }

  estimate(quantity: TimedQuantity): RatioEstimate {
    const ratios = this.blocks[quantity]!.map((block) => block.map((it) => it.gold / Math.max(it.pred, 1e-6)));
    return estimateRatio(ratios, BLOCK_PRIOR);
  }

  /** Every quantity is settled, or the pair may not take more time. */
  get done(): boolean {
    return this.options.quantities.every((q) => this.quantityDone(q));
  }

  /** More blocks cannot change this quantity's score. */
  private closed(quantity: TimedQuantity): boolean {
    const { options } = this;
    if (this.blocks[quantity]!.length === 0) return false;
    // Far past the official limit, more blocks cannot change the score: the official scripts give it 0.
    if (options.officialLimitMs !== undefined && this.officialLoopMs(quantity) > OFFICIAL_LIMIT_CERTAIN * options.officialLimitMs)
      return true;
    return this.bucketOnly(quantity) && this.farFromBucketEdges(quantity);
  }

  private quantityDone(quantity: TimedQuantity): boolean {
    const { options } = this;
    const taken = this.blocks[quantity]!.length;
    if (this.closed(quantity)) return true;
    if (taken < options.minBlocks) return false;
    return taken >= options.maxBlocks || this.spentMs >= options.pairBudgetMs || this.quantitySettled(quantity);
  }

  /** Only the R-VES bucket of this quantity is asked for, not its ratio. */
  private bucketOnly(quantity: TimedQuantity): boolean {
    return this.options.settle.bucketOf.includes(quantity) && !this.options.settle.ratioOf.includes(quantity);
  }

  /**
   * Long iterations (q738's 80 ms gold, a prediction 500× slower) whose every single ratio, halved or doubled,
   * stays in one bucket: more blocks cannot move the reward, and these are the pairs whose iterations cost
   * most. Short iterations never qualify: a block of two or three of them can carry a stall.
   */
  private farFromBucketEdges(quantity: TimedQuantity): boolean {
    const iterations = this.blocks[quantity]!.flat();
    if (iterations.some((it) => it.gold + it.pred < LONG_ITERATION_MS)) return false;
    const rewards = new Set(
      iterations.flatMap((it) => {
        const ratio = it.gold / Math.max(it.pred, 1e-6);
        return [rvesReward(ratio / FAR_FROM_EDGE), rvesReward(ratio * FAR_FROM_EDGE)];
      }),
    );
    return rewards.size === 1;
  }

  /**
   * How long the official loop of this quantity would take (after a block): 100 iterations at the wall time one
   * takes here, connections included, as the scripts' limit bounds the whole loop. Not the timed spans alone: in
   * Python those leave out most of a tiny query's iteration.
   */
  private officialLoopMs(quantity: TimedQuantity): number {
    return (OFFICIAL_ITERATIONS * median(this.blockWallMs[quantity]!)) / this.iterationsPerBlock[quantity]!;
  }

  /** What `officialLimitMs` means for this quantity's score, in words (empty when the limit is far). */
  private officialLimitNote(quantity: TimedQuantity): { past: boolean; note: string } {
    const limitMs = this.options.officialLimitMs;
    const loopMs = this.officialLoopMs(quantity);
    if (limitMs === undefined || loopMs * OFFICIAL_LIMIT_CERTAIN < limitMs) return { past: false, note: '' };
    const loop = `the official loop of ${OFFICIAL_ITERATIONS} iterations would take about ${(loopMs / 1000).toFixed(1)} s`;
    if (loopMs > limitMs)
      return {
        past: true,
        note: `; ${loop}, past the ${limitMs / 1000} s limit: the official scripts cut it off and score 0, and so does fast mode`,
      };
    return { past: false, note: `; ${loop}, near the ${limitMs / 1000} s limit: an official run may cut it off and score 0` };
  }

  /** What was asked is known well enough: the ratio within the precision, the R-VES bucket with its confidence. */
  get settled(): boolean {
    return this.options.quantities.every((q) => this.quantitySettled(q));
  }

  private quantitySettled(quantity: TimedQuantity): boolean {
    const { options } = this;
    if (this.blocks[quantity]!.length === 0) return false;
    const estimate = this.estimate(quantity);
    const precise = Math.log(estimate.high / estimate.ratio) <= options.precision;
    if (options.settle.ratioOf.includes(quantity) && !precise) return false;
    // A ratio known to within the precision that still straddles a bucket edge sits on the edge: more
    // blocks would not settle it, and its bucket probabilities already say what a repeat run would do.
    if (options.settle.bucketOf.includes(quantity) && !precise)
      return this.farFromBucketEdges(quantity) || !rvesOutlook(probabilityBelowFor(estimate), options.bucketConfidence).uncertain;
    return true;
  }

  /** The timing of each quantity timed. */
  results(): Partial<PairTiming> {
    return Object.fromEntries(this.options.quantities.map((q) => [q, this.result(q)]));
  }

  result(quantity: TimedQuantity): TimingResult {
    const estimate = this.estimate(quantity);
    const blocks = this.blocks[quantity]!;
    const iterations = blocks.flat();
    const goldSamples = iterations.map((it) => it.gold);
    const predSamples = iterations.map((it) => it.pred);
    const limit = this.officialLimitNote(quantity);
    const unsettled =
      limit.past || this.quantitySettled(quantity)
        ? ''
        : '; not settled within its blocks and budget: the interval says how far a repeat run may move';
    return {
      protocol: 'fast',
      quantity,
      ratio: estimate.ratio,
      low: estimate.low,
      high: estimate.high,
      spread: { logSe: estimate.logSe, df: estimate.df },
      runs: iterations.length,
      blocks: blocks.length,
      goldMs: median(goldSamples),
      predMs: median(predSamples),
      goldSamples,
      predSamples,
      pastOfficialLimit: limit.past || undefined,
      note: `${quantity === 'first-row' ? 'first row' : 'all rows'}: ${iterations.length} iterations in ${blocks.length} block${blocks.length === 1 ? '' : 's'}${unsettled}${limit.note}`,
    };
  }
}

/** Probability that a repeat run's ratio stays below a threshold, for an estimate. */
export function probabilityBelowFor(estimate: Pick<RatioEstimate, 'ratio' | 'logSe' | 'df'>): (threshold: number) => number {
  return (threshold) => probabilityBelow(estimate, threshold);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The timing of each quantity of one pair. */
export type PairTiming = Record<TimedQuantity, TimingResult>;

/** Runs a pair's blocks back to back, separated by a short pause, until it is done (or aborted after a block). */
export async function runPairTimer(timer: PairTimer, signal?: AbortSignal): Promise<Partial<PairTiming>> {
  while (!timer.done && !(signal?.aborted && timer.blockCount > 0)) {
    if (timer.blockCount > 0 && timer.options.blockPauseMs > 0) await pause(timer.options.blockPauseMs);
    await timer.runBlock();
  }
  return timer.results();
}

/** Times one pair on its own (editor, hints, index advice). */
export function measurePair(
  gold: ExecutionTimer,
  pred: ExecutionTimer,
  options: FastTimingOptions = DEFAULT_FAST_TIMING,
  signal?: AbortSignal,
): Promise<Partial<PairTiming>> {
  return runPairTimer(new PairTimer(gold, pred, options, signal), signal);
}

/** Gold and prediction on fresh connections to one database. */
export function measureFast(
  dbPath: string,
  goldBody: string,
  predBody: string,
  options: FastTimingOptions = DEFAULT_FAST_TIMING,
): Promise<Partial<PairTiming>> {
  return measurePair(freshConnectionTimer(dbPath, goldBody), freshConnectionTimer(dbPath, predBody), options);
}

/** What a run's passes spent: the pairs' own blocks, the extra ones, and what the official loops would take. */
export interface PassSummary {
  ownMs: number;
  extraMs: number;
  extraBlocks: number;
  projectedOfficialMs: number;
}

/**
 * Times many pairs in passes: each pass adds one block to every pair not yet done, so the blocks of one pair
 * are minutes apart in a long run and the interval sees the machine's slow drift. Once every pair has its own
 * blocks, further passes add blocks where the run's allocation (the options' `runAllocation`) says they move the
 * totals most (runAllocation.ts), within its budget. A pair whose timing fails (a timeout in a later pass) is
 * handed to `onError` and dropped from later passes.
 */
export async function timeInPasses(
  timers: readonly PairTimer[],
  hooks: {
    onPass?: (pass: number, pending: number) => void;
    onError?: (timer: PairTimer, error: Error) => void;
    signal?: AbortSignal;
  } = {},
): Promise<PassSummary> {
  const allocation = timers[0]?.options.runAllocation ?? NO_EXTRA_BLOCKS;
  const failed = new Set<PairTimer>();
  const summary: PassSummary = { ownMs: 0, extraMs: 0, extraBlocks: 0, projectedOfficialMs: 0 };
  /** How much shorter than MIN_PASS_MS the last extra pass was: waited before the next one, none after the last. */
  let shortByMs = 0;
  for (let pass = 1; ; pass++) {
    const live = timers.filter((timer) => !failed.has(timer));
    const own = live.filter((timer) => !timer.done).map((timer) => ({ timer, quantities: timer.pendingQuantities() }));
    // Extra blocks take at most their share of the own blocks' time, and never take the run past its share of
    // what the official loops would spend on the same pairs.
    summary.projectedOfficialMs = live.reduce((total, timer) => total + timer.projectedOfficialMs(), 0);
    const budgetMs =
      Math.min(allocation.extraShare * summary.ownMs, allocation.officialShare * summary.projectedOfficialMs - summary.ownMs) -
      summary.extraMs;
    const extra = own.length === 0;
    const work = !extra
      ? own
      : budgetMs > 0
        ? extraBlocks(live, allocation).map(({ timer, quantity }) => ({ timer, quantities: [quantity] }))
        : [];
    if (work.length === 0 || hooks.signal?.aborted) return summary;
    // A short pass of a few extra blocks would put a pair's blocks back to back: they are to be separated moments.
    if (shortByMs > 0) await pause(shortByMs);
    if (hooks.signal?.aborted) return summary;
    hooks.onPass?.(pass, new Set(work.map(({ timer }) => timer)).size);
    const started = performance.now();
    for (const { timer, quantities } of work) {
      if (hooks.signal?.aborted) break;
      // Extra blocks run most valuable first, so the budget's end leaves out the least valuable.
      if (extra && performance.now() - started >= budgetMs) break;
      try {
        await timer.runBlock(quantities);
        if (extra) summary.extraBlocks++;
      } catch (error) {
        failed.add(timer);
        hooks.onError?.(timer, error as Error);
      }
    }
    const passMs = performance.now() - started;
    if (extra) summary.extraMs += passMs;
    else summary.ownMs += passMs;
    shortByMs = extra ? Math.max(0, MIN_PASS_MS - passMs) : 0;
  }
}

/** Timers without a run allocation (timed in passes outside `eval`) take their own blocks only. */
const NO_EXTRA_BLOCKS: RunAllocation = { ...DEFAULT_RUN_ALLOCATION, extraShare: 0 };

/** Extra passes last at least this long, so that a pair's blocks are not one stretch of time. */
const MIN_PASS_MS = 50;

/**
 * t_first / t_second of full executions on the copies of a database handed in for each factor (1: the database
 * itself; built before, by scale/'s scaledCopies: nothing here builds one or reads the tables file), with fewer
 * blocks than a verdict: a trend, not a score. A copy that could not be built, or a timing that fails (a timeout,
 * most often), is null, and `onError` says why.
 */
export async function fullRatioOnCopies(
  first: string,
  second: string,
  scales: readonly number[],
  copies: ReadonlyMap<number, string | Error>,
  options: FastTimingOptions & { signal?: AbortSignal; onError?: (factor: number, error: Error) => void },
): Promise<Record<string, number | null>> {
  const byScale: Record<string, number | null> = {};
  for (const factor of scales) {
    if (options.signal?.aborted) break;
    try {
      const copy = copies.get(factor) ?? new Error('no scaled copy was built');
      if (copy instanceof Error) throw copy;
      const timing = await measurePair(
        freshConnectionTimer(copy, first),
        freshConnectionTimer(copy, second),
        { ...options, ...SCALE_TIMING },
        options.signal,
      );
      byScale[factor] = timing.full!.ratio;
    } catch (error) {
      byScale[factor] = null;
      options.onError?.(factor, error as Error);
    }
  }
  return byScale;
}

/** Scaled timing settles the full-execution ratio only, in 2 to 3 blocks. */
const SCALE_TIMING: Partial<FastTimingOptions> = {
  quantities: ['full'],
  settle: { ratioOf: ['full'], bucketOf: [] },
  minBlocks: 2,
  maxBlocks: 3,
  officialLimitMs: undefined,
};
