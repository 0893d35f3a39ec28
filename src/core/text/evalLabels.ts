// The words of eval's results, shared by core's reports and the editor's pages (which load only this layer of core).
// Keyed by core/eval/types.ts's Outcome and Metric, which this layer cannot name: a lookup by an Outcome or a
// Metric fails to compile if one has no label here.

/** Each outcome as a person reads it: the terminal report, the Score panel and the evaluation report alike. */
export const OUTCOME_LABELS = {
  correct: 'correct',
  mismatch: 'mismatch',
  prediction_error: 'prediction error',
  gold_error: 'gold error',
  timeout: 'timeout',
  refused: 'refused',
  locked: 'database locked',
  skipped: 'skipped',
} as const satisfies Readonly<Record<string, string>>;

/** Each metric's name in tables and charts (terminal, HTML reports, the evaluation report panel). */
export const METRIC_LABELS = { ex: 'EX', f1: 'Soft-F1', ves: 'VES', rves: 'R-VES' } as const satisfies Readonly<Record<string, string>>;

/**
 * One name per per-question quantity, wherever it is shown (Score panel, Report, HTML report, CLI). The two ratios
 * time different things (VES: to the first row; R-VES: every row and the close). The R-VES reward is mini_dev's
 * bucket reward (0.25 to 1.25); the term is what one question adds to the sum each metric averages: VES is
 * 100 × the mean of √ratio, R-VES 100 × the mean of √reward (in fast mode, √reward expected over the buckets a
 * repeat run may land in).
 */
export const QUANTITY_LABELS = {
  firstRowRatio: 'time ratio (VES, first row)',
  allRowsRatio: 'R-VES ratio (all rows)',
  vesTerm: 'VES term √ratio',
  rvesReward: 'R-VES reward',
  rvesTerm: 'R-VES term √reward',
} as const;

export type Quantity = keyof typeof QUANTITY_LABELS;

/** What each quantity is, in a sentence (tooltips and legends). */
export const QUANTITY_DESCRIPTIONS: Readonly<Record<Quantity, string>> = {
  firstRowRatio: "t_gold / t_pred timed to the first row, as VES's script times it; above 1 the prediction is faster",
  allRowsRatio: "t_gold / t_pred timed over every row and the close, as R-VES's script times it; above 1 the prediction is faster",
  vesTerm: '√ of the first-row ratio for a correct prediction, else 0: VES is 100 × the mean of this term',
  rvesReward: "mini_dev's bucket reward of the all-rows ratio: 1.25 (≥ 2), 1 (≥ 1), 0.75 (≥ 0.5), 0.5 (≥ 0.25), 0.25",
  rvesTerm: '√ of the R-VES reward (expected over the buckets a repeat run may land in): R-VES is 100 × the mean of this term',
};
