import { mean, standardDeviation } from 'simple-statistics';

/**
 * The official outlier cleaning: keep values strictly inside mean ± 3σ (population σ, as numpy.std).
 * When σ is 0 nothing is strictly inside, which is why the official scripts score such a question 0.
 */
export function officialClean(values: readonly number[]): number[] {
  if (values.length === 0) return [];
  const mu = mean(values as number[]);
  const sigma = standardDeviation(values as number[]);
  return values.filter((x) => x < mu + 3 * sigma && x > mu - 3 * sigma);
}

/** Python's sum(values) / len(values): plain left-to-right addition, so results match to the bit. */
export function pythonMean(values: readonly number[]): number {
  let total = 0;
  for (const x of values) total += x;
  return total / values.length;
}
