/** A measured speed comparison of gold and prediction. */
export interface TimingResult {
  /** Which protocol measured it: `fast`, `official-ves` (DAMO) or `official-rves` (mini_dev). */
  protocol: string;
  /** t_gold / t_pred: above 1, the prediction is faster. 0 where the official protocol scores 0. */
  ratio: number;
  low: number;
  high: number;
  /** How many times each query was timed. */
  runs: number;
  goldMs: number;
  predMs: number;
  /** Milliseconds per execution, in the order measured (for charts). */
  goldSamples: number[];
  predSamples: number[];
  note?: string;
}
