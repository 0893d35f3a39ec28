/** VES (BIRD paper): a correct prediction contributes sqrt(t_gold / t_pred); an incorrect one 0. */
export function vesContribution(timeRatio: number): number {
  return timeRatio > 0 ? Math.sqrt(timeRatio) : 0;
}

/** The R-VES reward buckets of mini_dev: how much faster (or slower) than gold a correct prediction runs. */
export const RVES_BUCKETS: readonly { atLeast: number; reward: number }[] = [
  { atLeast: 2, reward: 1.25 },
  { atLeast: 1, reward: 1 },
  { atLeast: 0.5, reward: 0.75 },
  { atLeast: 0.25, reward: 0.5 },
];

export function rvesReward(timeRatio: number): number {
  if (!(timeRatio > 0)) return 0;
  return RVES_BUCKETS.find((bucket) => timeRatio >= bucket.atLeast)?.reward ?? 0.25;
}

/** R-VES contribution of one question: sqrt(reward); the metric is 100 × the mean over questions. */
export function rvesContribution(timeRatio: number): number {
  return Math.sqrt(rvesReward(timeRatio));
}

/** True when an interval on the ratio crosses an R-VES bucket edge: the reward itself is uncertain. */
export function rvesBucketUncertain(low: number, high: number): boolean {
  return rvesReward(low) !== rvesReward(high);
}

/** The reward of each R-VES bucket with its ratio range [atLeast, below), from the lowest reward up. */
export const RVES_BUCKET_RANGES: readonly { reward: number; atLeast: number; below: number }[] = [
  { reward: 0.25, atLeast: 0, below: 0.25 },
  ...[...RVES_BUCKETS]
    .reverse()
    .map((bucket, i, all) => ({ reward: bucket.reward, atLeast: bucket.atLeast, below: all[i + 1]?.atLeast ?? Infinity })),
];

/** Each bucket's ratio range in words, by reward: "ratio ≥ 2", "0.5 ≤ ratio < 1", "ratio < 0.25" (the Score panel's titles). */
export const RVES_BUCKET_RANGE_TEXTS: Readonly<Record<string, string>> = Object.fromEntries(
  RVES_BUCKET_RANGES.map((bucket) => [
    String(bucket.reward),
    bucket.atLeast === 0
      ? `ratio < ${bucket.below}`
      : bucket.below === Infinity
        ? `ratio ≥ ${bucket.atLeast}`
        : `${bucket.atLeast} ≤ ratio < ${bucket.below}`,
  ]),
);

export interface RvesOutlook {
  /** Probability that a repeat run lands in each reward bucket (only buckets with p ≥ 0.001; they sum to ~1). */
  probabilities: Record<string, number>;
  /** The most probable reward. */
  reward: number;
  /** Σ p·reward, and Σ p·sqrt(reward): what an R-VES total averages to over repeat runs. */
  expectedReward: number;
  expectedContribution: number;
  /** No single bucket reaches the confidence asked for: the reward could go either way between runs. */
  uncertain: boolean;
}

/**
 * The R-VES buckets a ratio may fall in on a repeat run, given the probability that a repeat run stays below a
 * threshold. Near a bucket edge the official scripts' reward itself is a coin toss; the expected contribution
 * is what their totals average to, which is why fast mode reports it.
 */
export function rvesOutlook(probabilityBelow: (threshold: number) => number, confidence = 0.99): RvesOutlook {
  const probabilities: Record<string, number> = {};
  let expectedReward = 0;
  let expectedContribution = 0;
  let best = { reward: 0, p: -1 };
  for (const bucket of RVES_BUCKET_RANGES) {
    const p = Math.max(0, probabilityBelow(bucket.below) - probabilityBelow(bucket.atLeast));
    expectedReward += p * bucket.reward;
    expectedContribution += p * Math.sqrt(bucket.reward);
    if (p >= 0.001) probabilities[String(bucket.reward)] = Number(p.toFixed(3));
    if (p > best.p) best = { reward: bucket.reward, p };
  }
  return { probabilities, reward: best.reward, expectedReward, expectedContribution, uncertain: best.p < confidence };
}

/** "VES", "R-VES" or "VES and R-VES": the metrics scored 0 past the official loop's limit. */
export function pastLimitMetrics(metrics: readonly ('ves' | 'rves')[]): string {
  return metrics.map((metric) => (metric === 'ves' ? 'VES' : 'R-VES')).join(' and ');
}
