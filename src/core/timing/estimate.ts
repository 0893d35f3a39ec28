import { jStat } from 'jstat';
import { hodgesLehmann } from './stats';

/**
 * How sure a timed ratio is, between runs as well as within one.
 *
 * Samples come in blocks taken at separated moments (passes over the questions, or pauses in the editor), so
 * slow drift and regime switches of the machine show up as a spread between blocks rather than hiding in one
 * stretch of time. On the log scale, each block's centre is one draw; their spread is moderated towards a prior
 * (a limma-style pooled variance: a few blocks alone can look deceptively quiet), and a Student t with the
 * combined degrees of freedom gives the interval.
 *
 * The interval answers the question users ask of it: where will a second run's ratio land? It is a 95 %
 * prediction interval for a repeat measurement (√2 wider than a confidence interval for the mean, because
 * both runs carry noise), and the bucket probabilities of R-VES are those of a repeat run too.
 */
export interface RatioEstimate {
  /**
   * The typical ratio: the centre (Hodges–Lehmann, log scale) of the single-execution ratios. Not the arithmetic
   * mean of single-execution ratios the official scripts average: that mean also carries timing noise (see
   * official.ts), which is not a property of either query.
   */
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
export const BLOCK_PRIOR = { logSd: 0.09, df: 4 } as const;

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: readonly number[]) => sum(values) / values.length;

/** Estimate from per-round ratios grouped by block (each inner list: the ratios of one block). */
export function estimateRatio(blocks: readonly (readonly number[])[], prior: { logSd: number; df: number } = BLOCK_PRIOR): RatioEstimate {
  const logBlocks = blocks.filter((block) => block.length > 0).map((block) => block.map((ratio) => Math.log(Math.max(ratio, 1e-12))));
  if (logBlocks.length === 0) throw new Error('estimateRatio of no samples');
  // Each block is summarised by its Hodges–Lehmann centre (a spike in one of four or more iterations barely
  // moves it); what spikes do move shows up as spread between blocks.
  const blockCentres = logBlocks.map((block) => hodgesLehmann(block));
  const b = blockCentres.length;
  const blockMean = mean(blockCentres);
  const blockVariance = b > 1 ? sum(blockCentres.map((y) => (y - blockMean) ** 2)) / (b - 1) : 0;
  // The centre pools every execution (a robust centre of 20 values varies less than a median of 4 block
  // centres); a block caught in a stall widens the interval through the variance.
  const center = hodgesLehmann(logBlocks.flat());
  const df = prior.df + b - 1;
  const variance = (prior.df * prior.logSd ** 2 + (b - 1) * blockVariance) / df;
  const logSe = Math.sqrt(variance / b);

  const ratio = Math.exp(center);

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
