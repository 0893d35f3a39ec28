/**
 * Measuring a rewrite against its original: t_original / t_rewrite over interleaved blocks on fresh read-only
 * connections (the fast protocol's PairTimer, timing/fast.ts), so the interval is one a repeat run falls into.
 * An original too slow to run a few times within the time limit is measured as a bound instead: it was stopped
 * at the limit, so the rewrite is at least limit / its slowest run faster, and the interval is open above.
 */
import { timeExecution } from '../db/engines';
import { DEFAULT_FAST_TIMING, freshConnectionTimer, measurePair } from '../timing/fast';
import { speedVerdict } from '../timing/verdict';
import { SpeedMeasurement } from './types';

export interface SpeedOptions {
  /** Time limit of one execution. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The interleaved measurement: full executions, at least 3 blocks, one execution a block for a slow pair. */
const OPTIMIZE_TIMING = {
  ...DEFAULT_FAST_TIMING,
  quantities: ['full' as const],
  settle: { ratioOf: ['full' as const], bucketOf: [] },
  minBlocks: 3,
  maxBlocks: 5,
  minIterations: 1,
  pairBudgetMs: 2_000,
};

/**
 * Times `original` against `rewrite` on `target` (a database file or URL). `originalMs`: what one run of the
 * original took in the search (or the limit, when it was stopped): an original that cannot run three times
 * within the limit is measured as a bound.
 */
export async function measureSpeedup(
  target: string,
  scale: number,
  original: string,
  rewrite: string,
  originalMs: number | 'cut-off',
  options: SpeedOptions,
): Promise<SpeedMeasurement> {
  if (originalMs === 'cut-off' || originalMs * 3 > options.timeoutMs)
    return measureAgainstLimit(target, scale, rewrite, originalMs, options);
  const timing = await measurePair(
    freshConnectionTimer(target, original),
    freshConnectionTimer(target, rewrite),
    { ...OPTIMIZE_TIMING, timeoutMs: options.timeoutMs },
    options.signal,
  );
  const full = timing.full!;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return {
    scale,
    speedup: full.ratio,
    low: full.low,
    high: full.high,
    originalMs: median(full.goldSamples),
    rewriteMs: median(full.predSamples),
    runs: full.runs,
    blocks: full.blocks ?? 1,
  };
}

/** Three runs of the rewrite against the original's one stopped (or nearly stopped) at the limit. */
async function measureAgainstLimit(
  target: string,
  scale: number,
  rewrite: string,
  originalMs: number | 'cut-off',
  options: SpeedOptions,
): Promise<SpeedMeasurement> {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    if (options.signal?.aborted) break;
    runs.push(
      await timeExecution(target, rewrite, 'full', {
        deadline: performance.now() + options.timeoutMs,
        budgetMs: options.timeoutMs,
        signal: options.signal,
      }),
    );
  }
  const slowest = Math.max(...runs);
  const originalBound = originalMs === 'cut-off' ? options.timeoutMs : originalMs;
  const sorted = [...runs].sort((a, b) => a - b);
  return {
    scale,
    speedup: originalBound / sorted[Math.floor(sorted.length / 2)],
    low: originalBound / slowest,
    high: null,
    originalMs: originalBound,
    rewriteMs: sorted[Math.floor(sorted.length / 2)],
    runs: runs.length,
    blocks: runs.length,
    ...(originalMs === 'cut-off' ? { originalCutOff: true } : {}),
  };
}

/** Faster as every speed claim of VES Lens: the whole repeat interval above 1 and at least 10 % (timing/verdict.ts). */
export function measuredFaster(m: SpeedMeasurement): boolean {
  return speedVerdict({ ratio: m.speedup, low: m.low, high: m.high ?? Infinity }) === 'faster';
}
