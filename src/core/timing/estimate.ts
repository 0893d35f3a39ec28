import { jStat } from 'jstat';
import { median } from 'simple-statistics';

/**
 * How sure a timed ratio is, between runs as well as within one.
 *
 * Samples come in blocks taken at separated moments (passes over the questions, or pauses in the editor), so
 * slow drift and regime switches of the machine show up as a spread between blocks rather than hiding in one
 * stretch of time. On the log scale, each block's mean is one draw; their spread is moderated towards a prior
 * (a limma-style pooled variance: a few blocks alone can look deceptively quiet), and a Student t with the
 * combined degrees of freedom gives the interval.
 *
 * The interval answers the question users ask of it: where will a second run's ratio land? It is a 95 %
 * prediction interval for a repeat measurement (√2 wider than a confidence interval for the mean, because
 * both runs carry noise), and the bucket probabilities of R-VES are those of a repeat run too.
 */
export interface RatioEstimate {
  /** Mean per-iteration ratio, as the official protocols average it (log-normal correction of the geometric mean). */
  ratio: number;
  /** 95 % interval for the ratio a repeat run reports. */
  low: number;
  high: number;
  /** Standard error of one run's log ratio, and its degrees of freedom. */
  logSe: number;
  df: number;
}

/**
 * Prior spread of one block's mean log ratio and its weight in degrees of freedom. Calibrated by
 * `bench/timing.mjs` (coverage of a second run by the first run's intervals): ratios move by a few per cent
 * between runs even when the blocks of one run agree closely.
 */
export const BLOCK_PRIOR = { logSd: 0.075, df: 4 } as const;

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: readonly number[]) => sum(values) / values.length;

/** Estimate from per-round ratios grouped by block (each inner list: the ratios of one block). */
export function estimateRatio(
  blocks: readonly (readonly number[])[],
  prior: { logSd: number; df: number } = BLOCK_PRIOR,
  /**
   * How much more a single execution's log ratio varies than one iteration's: an iteration that averages kg
   * gold and kp predicted executions has about 2 / (1/kg + 1/kp) times less variance than the official
   * scripts' single-execution ratios, whose mean the estimate must match.
   */
  singleExecutionVarianceScale = 1,
): RatioEstimate {
  const logBlocks = blocks.filter((block) => block.length > 0).map((block) => block.map((ratio) => Math.log(Math.max(ratio, 1e-12))));
  if (logBlocks.length === 0) throw new Error('estimateRatio of no samples');
  // Each block is summarised by its median: a scheduling spike in one iteration must not move a block.
  const blockMeans = logBlocks.map((block) => median(block));
  const center = mean(blockMeans);
  const b = blockMeans.length;
  const blockVariance = b > 1 ? sum(blockMeans.map((y) => (y - center) ** 2)) / (b - 1) : 0;
  const df = prior.df + b - 1;
  const variance = (prior.df * prior.logSd ** 2 + (b - 1) * blockVariance) / df;
  const logSe = Math.sqrt(variance / b);

  // The official scripts average ratios, not log ratios: E[ratio] = exp(μ + σ²/2) for log-normal noise, with
  // σ taken robustly (MAD) so that one scheduling spike does not inflate it.
  const rounds = logBlocks.flat();
  const roundMedian = median(rounds);
  const robustSd = 1.4826 * median(rounds.map((x) => Math.abs(x - roundMedian)));
  const ratio = Math.exp(center + Math.min(robustSd ** 2 * singleExecutionVarianceScale, 0.25) / 2);

  const halfWidth = jStat.studentt.inv(0.975, df) * Math.SQRT2 * logSe;
  return { ratio, low: ratio * Math.exp(-halfWidth), high: ratio * Math.exp(halfWidth), logSe, df };
}

/** Probability that a repeat run reports a ratio below `threshold`. */
export function probabilityBelow(estimate: Pick<RatioEstimate, 'ratio' | 'logSe' | 'df'>, threshold: number): number {
  if (threshold <= 0) return 0;
  if (!Number.isFinite(threshold)) return 1;
  const scale = Math.SQRT2 * estimate.logSe;
  if (scale === 0) return estimate.ratio < threshold ? 1 : 0;
  return jStat.studentt.cdf((Math.log(threshold) - Math.log(estimate.ratio)) / scale, estimate.df);
}

/** The estimate of a pair known to do identical work: exactly 1, no spread. */
export const IDENTICAL: RatioEstimate = { ratio: 1, low: 1, high: 1, logSe: 0, df: Infinity };
