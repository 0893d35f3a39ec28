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

export interface Estimate {
  value: number;
  low: number;
  high: number;
}

/**
 * Median with a distribution-free confidence interval from order statistics (exact binomial ranks): no
 * assumption on the shape of timing noise, robust to the odd scheduling spike. With fewer than 6 values no
 * pair of ranks reaches 95 %, and the interval is the whole range.
 */
export function medianInterval(values: readonly number[], confidence = 0.95): Estimate {
  if (values.length === 0) throw new Error('medianInterval of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const median = (sorted[Math.floor((n - 1) / 2)] + sorted[Math.ceil((n - 1) / 2)]) / 2;
  // Largest rank j (0-based) with P(Binomial(n, 1/2) <= j) <= alpha/2: [x_j, x_(n-1-j)] covers the median.
  const tail = (1 - confidence) / 2;
  let probability = Math.pow(0.5, n);
  let cumulative = probability;
  let rank = -1;
  for (let k = 0; k < n / 2 && cumulative <= tail; k++) {
    rank = k;
    probability = (probability * (n - k)) / (k + 1);
    cumulative += probability;
  }
  const low = Math.max(0, rank);
  return { value: median, low: sorted[low], high: sorted[n - 1 - low] };
}
