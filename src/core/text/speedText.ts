/**
 * How a measured speed-up and a duration are worded in every face (the optimizer's results, the terminal, the
 * editor): structural, so that a face words core/optimize's SpeedMeasurement with this layer alone.
 */

/** The fields of a measurement (core/optimize/types.ts's SpeedMeasurement) the wording reads. */
export interface MeasurementText {
  speedup: number;
  low: number;
  /** null: the original was stopped, the speed-up is at least `low`. */
  high: number | null;
  scale: number;
  originalMs: number;
  rewriteMs: number;
  originalCutOff?: boolean;
  blocks: number;
  runs: number;
}

/** "412× (interval 380–450×) at ×10", or "at least 2,000× (…stopped at 60 s)". */
export function describeMeasurement(m: MeasurementText): string {
  const x = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));
  if (m.high === null)
    return `at least ${x(m.low)}× at ×${m.scale} (${m.originalCutOff ? `the original was stopped at the ${(m.originalMs / 1000).toFixed(0)} s limit` : `the original took ${(m.originalMs / 1000).toFixed(1)} s`}; the rewrite ${fmtMs(m.rewriteMs)}, ${m.runs} runs)`;
  return `${x(m.speedup)}× at ×${m.scale} (repeat interval ${x(m.low)}–${x(m.high)}×; ${fmtMs(m.originalMs)} → ${fmtMs(m.rewriteMs)}, ${m.blocks} blocks, ${m.runs} runs)`;
}

export function fmtMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(2)} ms`;
}
