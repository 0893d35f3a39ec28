import { rvesOutlook } from '../metrics/efficiency';
import { probabilityBelow, RatioEstimate } from './estimate';
import { TimedQuantity } from './types';

/**
 * Where a run's timing goes once every pair has taken its own blocks (eval's passes, `timeInPasses`). A total
 * moves between runs by the sum of its pairs' variances, and a few pairs carry most of it: VES sums √ratio, so a
 * pair 30× faster than gold weighs 30 times a pair at 1×; the expected R-VES reward moves only for a ratio near a
 * bucket edge. Extra blocks go, within a budget, to the quantities whose next block removes most of that variance
 * per millisecond, and to those whose interval is still wider than `precision`; a quantity settled and light
 * stops. Nothing here narrows an interval: each extra block is measured, and estimate.ts turns blocks into it.
 */
export interface RunAllocation {
  /** Extra blocks may take up to this share of the time the pairs' own blocks took. */
  extraShare: number;
  /**
   * And the whole timing, own blocks and extra, at most this share of what the official protocol's loops would
   * take on the same pairs (100 iterations each, at the wall time an iteration takes here). Below 0.10: fast mode's
   * goal is a tenth of the official wall time, whose loops also run correctness executions this projection leaves out.
   */
  officialShare: number;
  /** No quantity gets more blocks than this in all. */
  maxBlocks: number;
  /** An interval is narrow enough at this log half-width (e^0.11: a repeat run within ±11.6 %, ×1.25 wide in all). */
  precision: number;
  /** A quantity carrying more than this many even shares of its total's variance keeps going, however narrow. */
  dominantShares: number;
}

export const DEFAULT_RUN_ALLOCATION: RunAllocation = {
  extraShare: 0.5,
  officialShare: 0.09,
  maxBlocks: 6,
  precision: 0.11,
  dominantShares: 2,
};

/** What the allocation reads of a pair's timer (fast.ts's PairTimer; declared here so the two files form no circle). */
export interface AllocatedTimer {
  readonly options: {
    quantities: readonly TimedQuantity[];
    settle: { ratioOf: readonly TimedQuantity[]; bucketOf: readonly TimedQuantity[] };
  };
  mayExtend(quantity: TimedQuantity): boolean;
  estimate(quantity: TimedQuantity): RatioEstimate;
  blocksOf(quantity: TimedQuantity): number;
  pendingQuantities(): readonly TimedQuantity[];
  blockCostMs(quantity: TimedQuantity): number;
}

/** One more block of one quantity of one pair, and how much it is worth per millisecond. */
export interface ExtraBlock<Timer extends AllocatedTimer = AllocatedTimer> {
  timer: Timer;
  quantity: TimedQuantity;
  priority: number;
}

/** Step on the log ratio for the slope of the expected R-VES contribution. */
const SLOPE_STEP = 0.01;

/**
 * How much a quantity's contribution to its total moves per unit of log ratio, squared: the factor that turns the
 * ratio's log variance into the total's. VES: d√r / d ln r = √r / 2. R-VES (a bucket quantity): the slope of the
 * expected contribution over the buckets a repeat run lands in, which is 0 far from every edge.
 */
export function varianceWeight(estimate: Pick<RatioEstimate, 'ratio' | 'logSe' | 'df'>, bucket: boolean): number {
  if (!bucket) return estimate.ratio / 4;
  const expected = (shift: number) =>
    rvesOutlook((threshold) => probabilityBelow({ ...estimate, ratio: estimate.ratio * Math.exp(shift) }, threshold)).expectedContribution;
  return ((expected(SLOPE_STEP) - expected(-SLOPE_STEP)) / (2 * SLOPE_STEP)) ** 2;
}

/**
 * The extra blocks worth taking now, most valuable first: one per quantity that its pair's own rules have
 * finished with, that more blocks could still move (mayExtend), under `maxBlocks`, and either wider than
 * `precision` or carrying a dominant share of its total's variance. A block is worth its quantity's share of
 * that variance plus an even share (its interval, which the user reads), divided by the blocks it already has
 * plus one (what one more removes), per millisecond it costs.
 */
export function extraBlocks<Timer extends AllocatedTimer>(timers: readonly Timer[], allocation: RunAllocation): ExtraBlock<Timer>[] {
  const measured = timers.flatMap((timer) =>
    timer.options.quantities
      .filter((quantity) => timer.mayExtend(quantity))
      .map((quantity) => {
        const estimate = timer.estimate(quantity);
        const bucket = timer.options.settle.bucketOf.includes(quantity) && !timer.options.settle.ratioOf.includes(quantity);
        return { timer, quantity, estimate, variance: varianceWeight(estimate, bucket) * estimate.logSe ** 2 };
      }),
  );
  const byQuantity = new Map<TimedQuantity, { total: number; count: number }>();
  for (const { quantity, variance } of measured) {
    const group = byQuantity.get(quantity) ?? { total: 0, count: 0 };
    byQuantity.set(quantity, { total: group.total + variance, count: group.count + 1 });
  }
  const chosen: ExtraBlock<Timer>[] = [];
  for (const { timer, quantity, estimate, variance } of measured) {
    const blocks = timer.blocksOf(quantity);
    if (blocks >= allocation.maxBlocks || timer.pendingQuantities().includes(quantity)) continue;
    const group = byQuantity.get(quantity)!;
    const share = group.total > 0 ? variance / group.total : 0;
    const even = 1 / group.count;
    const wide = Math.log(estimate.high / estimate.ratio) > allocation.precision;
    if (!wide && share <= allocation.dominantShares * even) continue;
    chosen.push({ timer, quantity, priority: (share + even) / (blocks + 1) / timer.blockCostMs(quantity) });
  }
  return chosen.sort((a, b) => b.priority - a.priority);
}
