import { mean, median, standardDeviation } from 'simple-statistics';

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

/**
 * The Hodges–Lehmann centre (pseudo-median): the median of all pairwise means (Walsh averages, each value with
 * itself included). It equals the median on symmetric data, resists occasional stalls (it breaks down past
 * 29 % of outliers; on two or three values it is close to their mean), and is almost as efficient as the mean
 * on quiet data (95 % vs the median's 64 %): on the 6 to 64 executions a fast pair gets, its ratio moves less
 * between runs.
 */
export function hodgesLehmann(values: readonly number[]): number {
  if (values.length === 0) throw new Error('hodgesLehmann of no values');
  const walsh: number[] = [];
  for (let i = 0; i < values.length; i++) for (let j = i; j < values.length; j++) walsh.push((values[i] + values[j]) / 2);
  return median(walsh);
}
