import type { Metric, Outcome } from './types';

/** Each outcome as a person reads it: the terminal report, the Score panel and the evaluation report alike. */
export const OUTCOME_LABELS: Readonly<Record<Outcome, string>> = {
  correct: 'correct',
  mismatch: 'mismatch',
  prediction_error: 'prediction error',
  gold_error: 'gold error',
  timeout: 'timeout',
  refused: 'refused',
  skipped: 'skipped',
};

/** Each metric's name in tables and charts (terminal, HTML reports, the evaluation report panel). */
export const METRIC_LABELS: Readonly<Record<Metric, string>> = { ex: 'EX', f1: 'Soft-F1', ves: 'VES', rves: 'R-VES' };
