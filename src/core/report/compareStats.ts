import { binomialDistribution, quantileSorted, sampleWithReplacement } from 'simple-statistics';

/**
 * A seeded pseudo-random source in [0, 1) (mulberry32): the bootstrap must give the same interval on every run
 * of the same files, so it never draws from Math.random.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DEFAULT_BOOTSTRAP = { seed: 20240521, resamples: 2000, confidence: 0.95 };

export interface PairedDelta {
  /** Mean of (b − a) over the pairs. */
  delta: number;
  /** Percentile interval of the mean difference over the bootstrap resamples. */
  low: number;
  high: number;
  /** Pairs the delta is over. */
  n: number;
}

/**
 * The mean paired difference b − a with a percentile bootstrap interval: questions are resampled with
 * replacement (both runs' values of a question travel together), seeded, so the interval is the same on every
 * run. Null when there are no pairs.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: { seed?: number; resamples?: number; confidence?: number } = {},
): PairedDelta | null {
  const n = Math.min(a.length, b.length);
  if (n === 0) return null;
  const { seed, resamples, confidence } = { ...DEFAULT_BOOTSTRAP, ...options };
  const differences = Array.from({ length: n }, (_, i) => b[i] - a[i]);
  let total = 0;
  for (const d of differences) total += d;
  const delta = total / n;
  const random = seededRandom(seed);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (const d of sampleWithReplacement(differences, n, random)) sum += d;
    means.push(sum / n);
  }
  means.sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  return { delta, low: quantileSorted(means, tail), high: quantileSorted(means, 1 - tail), n };
}

export interface McNemar {
  /** Pairs correct in A only, and in B only (the discordant pairs). */
  onlyA: number;
  onlyB: number;
  /** Two-sided exact p: twice the smaller binomial tail of the discordant pairs at 1/2, at most 1. */
  p: number;
}

/** McNemar's exact test on paired 0/1 outcomes (EX of two runs over the same questions). */
export function mcnemarExact(a: readonly number[], b: readonly number[]): McNemar {
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === 1 && b[i] !== 1) onlyA++;
    else if (a[i] !== 1 && b[i] === 1) onlyB++;
  }
  const discordant = onlyA + onlyB;
  if (discordant === 0) return { onlyA, onlyB, p: 1 };
  const cells = binomialDistribution(discordant, 0.5);
  if (!cells) throw new Error(`binomial distribution of ${discordant} trials could not be computed`);
  let tail = 0;
  for (let k = 0; k <= Math.min(onlyA, onlyB); k++) tail += cells[k] ?? 0;
  return { onlyA, onlyB, p: Math.min(1, 2 * tail) };
}
