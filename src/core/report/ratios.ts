import type { QuestionResult } from '../eval/types';

/** The fields of a question's result that say what was timed (a report read back may lack any of them). */
type TimedFields = Partial<
  Pick<QuestionResult, 'ves' | 'time_ratio' | 'time_ratio_interval' | 'rves_time_ratio' | 'rves_time_ratio_interval'>
>;

/** A ratio t_gold / t_pred with the interval a repeat run lands in. */
export interface RatioWithInterval {
  ratio: number;
  low: number;
  high: number;
}

function withInterval(ratio: number | null | undefined, interval: readonly [number, number] | null | undefined): RatioWithInterval | null {
  if (ratio === null || ratio === undefined || !(ratio > 0)) return null;
  const [low, high] = interval ?? [ratio, ratio];
  return { ratio, low, high };
}

/**
 * VES's ratio (timed to the first row). `time_ratio` holds it when VES was scored; without VES it holds R-VES's
 * ratio instead (the report's headline), which is not this quantity.
 */
export function firstRowRatio(q: TimedFields): RatioWithInterval | null {
  if (q.ves === null || q.ves === undefined) return null;
  return withInterval(q.time_ratio, q.time_ratio_interval);
}

/** R-VES's ratio (every row fetched and the connection closed). */
export function allRowsRatio(q: TimedFields): RatioWithInterval | null {
  return withInterval(q.rves_time_ratio, q.rves_time_ratio_interval);
}
