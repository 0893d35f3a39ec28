import { median } from 'simple-statistics';
import { ReadOnlyDatabase, RunLimits } from '../db/database';
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
  /** Short queries repeat within a sample until it spans this long: timer and scheduling noise would dominate otherwise. */
  minSampleMs: number;
  timeoutMs: number;
}

export const DEFAULT_FAST_TIMING: FastTimingOptions = {
  minRounds: 7,
  maxRounds: 60,
  precision: 0.05,
  budgetMs: 4000,
  minSampleMs: 5,
  timeoutMs: 30_000,
};

/** One execution of a query to its last row, within the limits. */
export type QueryRunner = (limits: RunLimits) => Promise<void>;

/** Milliseconds per execution, the query run `repetitions` times back to back. */
async function timeSample(run: QueryRunner, repetitions: number, timeoutMs: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < repetitions; i++) await run({ deadline: start + timeoutMs, budgetMs: timeoutMs });
  return (performance.now() - start) / repetitions;
}

/** The fast protocol for gold and prediction on one connection. */
export function measureFast(db: ReadOnlyDatabase, goldBody: string, predBody: string, options: FastTimingOptions = DEFAULT_FAST_TIMING): Promise<TimingResult> {
  return measureRunners(
    (limits) => db.drain(goldBody, limits),
    (limits) => db.drain(predBody, limits),
    options,
  );
}

/**
 * The default protocol: a warm-up run of each query, then rounds of one gold and one predicted sample in
 * alternating order, until the median ratio's 95 % interval is tight (or the budget ends).
 * Alternation cancels drift (CPU frequency, cache warmth, a busy neighbour) that would bias a fixed order.
 */
export async function measureRunners(gold: QueryRunner, pred: QueryRunner, options: FastTimingOptions = DEFAULT_FAST_TIMING): Promise<TimingResult> {
  const started = performance.now();
  const warmGold = await timeSample(gold, 1, options.timeoutMs);
  const warmPred = await timeSample(pred, 1, options.timeoutMs);
  // Each query gets its own repetition count, so a 1 ms prediction is averaged as well as a 70 ms gold.
  const repetitionsFor = (ms: number) => Math.min(1000, Math.max(1, Math.ceil(options.minSampleMs / Math.max(0.001, ms))));
  const goldRepetitions = repetitionsFor(warmGold);
  const predRepetitions = repetitionsFor(warmPred);

  const goldSamples: number[] = [];
  const predSamples: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < options.maxRounds; round++) {
    let goldMs: number;
    let predMs: number;
    if (round % 2 === 0) {
      goldMs = await timeSample(gold, goldRepetitions, options.timeoutMs);
      predMs = await timeSample(pred, predRepetitions, options.timeoutMs);
    } else {
      predMs = await timeSample(pred, predRepetitions, options.timeoutMs);
      goldMs = await timeSample(gold, goldRepetitions, options.timeoutMs);
    }
    goldSamples.push(goldMs);
    predSamples.push(predMs);
    ratios.push(goldMs / Math.max(predMs, 1e-6));
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
    runs: ratios.length * Math.min(goldRepetitions, predRepetitions),
    goldMs: median(goldSamples),
    predMs: median(predSamples),
    goldSamples,
    predSamples,
    note:
      goldRepetitions > 1 || predRepetitions > 1
        ? `each sample repeats gold ${goldRepetitions}× and prediction ${predRepetitions}× (short queries), ${ratios.length} rounds`
        : `${ratios.length} rounds`,
  };
}
