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
