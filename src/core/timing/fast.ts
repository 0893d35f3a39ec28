import { median } from 'simple-statistics';
import { ReadOnlyDatabase } from '../db/database';
import { medianInterval } from './stats';
import { TimingResult } from './types';

export interface FastTimingOptions {
  /** Rounds before the interval may stop the run. */
  minRounds: number;
  maxRounds: number;
  /** Stop once the 95 % interval's half-width is within this share of the ratio. */
  precision: number;
  /** Time after which no new round starts (at least 3 rounds always run). */
  budgetMs: number;
  /** Sub-millisecond queries repeat within a sample until it spans this long: timer and scheduling noise would dominate otherwise. */
  minSampleMs: number;
  timeoutMs: number;
}

export const DEFAULT_FAST_TIMING: FastTimingOptions = {
  minRounds: 7,
  maxRounds: 60,
  precision: 0.05,
  budgetMs: 4000,
  minSampleMs: 2,
  timeoutMs: 30_000,
};

/** Milliseconds per execution of `body`, run `repetitions` times back to back, to the last row. */
async function timeSample(db: ReadOnlyDatabase, body: string, repetitions: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < repetitions; i++) await db.drain(body, { deadline: start + timeoutMs, budgetMs: timeoutMs });
  return (performance.now() - start) / repetitions;
}

/**
 * The default protocol: a warm-up run of each query, then rounds of one gold and one predicted sample in
 * alternating order on one connection, until the median ratio's 95 % interval is tight (or the budget ends).
 * Alternation cancels drift (CPU frequency, cache warmth, a busy neighbour) that would bias a fixed order.
 */
export async function measureFast(
  db: ReadOnlyDatabase,
  goldBody: string,
  predBody: string,
  options: FastTimingOptions = DEFAULT_FAST_TIMING,
): Promise<TimingResult> {
  const started = performance.now();
  const warmGold = await timeSample(db, goldBody, 1, options.timeoutMs);
  const warmPred = await timeSample(db, predBody, 1, options.timeoutMs);
  const fastest = Math.max(0.001, Math.min(warmGold, warmPred));
  const repetitions = Math.min(1000, Math.max(1, Math.ceil(options.minSampleMs / fastest)));

  const goldSamples: number[] = [];
  const predSamples: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < options.maxRounds; round++) {
    let gold: number;
    let pred: number;
    if (round % 2 === 0) {
      gold = await timeSample(db, goldBody, repetitions, options.timeoutMs);
      pred = await timeSample(db, predBody, repetitions, options.timeoutMs);
    } else {
      pred = await timeSample(db, predBody, repetitions, options.timeoutMs);
      gold = await timeSample(db, goldBody, repetitions, options.timeoutMs);
    }
    goldSamples.push(gold);
    predSamples.push(pred);
    ratios.push(gold / Math.max(pred, 1e-6));
    if (ratios.length >= options.minRounds) {
      const estimate = medianInterval(ratios);
      if ((estimate.high - estimate.low) / (2 * estimate.value) <= options.precision) break;
    }
    if (performance.now() - started > options.budgetMs && ratios.length >= 3) break;
  }
  const estimate = medianInterval(ratios);
  return {
    protocol: 'fast',
    ratio: estimate.value,
    low: estimate.low,
    high: estimate.high,
    runs: ratios.length * repetitions,
    goldMs: median(goldSamples),
    predMs: median(predSamples),
    goldSamples,
    predSamples,
    note: repetitions > 1 ? `each sample repeats the queries ${repetitions} times (sub-millisecond queries)` : undefined,
  };
}
