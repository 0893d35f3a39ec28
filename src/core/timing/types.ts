/**
 * What a timing protocol times in one execution: `first-row` is prepare plus the first step (DAMO's
 * `cursor.execute()`, the BIRD paper's VES); `full` runs to the last row and closes (mini_dev's R-VES).
 * The engine times it (DatabaseEngine.timeExecution), so the type lives with the engine.
 */
import { TimedQuantity } from '../db/engine';
export type { TimedQuantity };

/** A measured speed comparison of gold and prediction (or of an original and its rewrite). */
export interface TimingResult {
  /** `fast`, `official-ves` (DAMO), `official-rves` (mini_dev), or `same-program` (not timed: identical work). */
  protocol: string;
  quantity: TimedQuantity;
  /** t_gold / t_pred: above 1, the prediction is faster. 0 where the official protocol scores 0. */
  ratio: number;
  /** fast: 95 % interval for a repeat run's ratio; official: mean ± 1.96 standard errors. */
  low: number;
  high: number;
  /** official: the typical single-execution ratio (Hodges–Lehmann centre), the quantity fast mode estimates (the mean above also carries timing noise). */
  typicalRatio?: number;
  /** fast: log-scale standard error of the run's ratio and its degrees of freedom (bucket probabilities use them). */
  spread?: { logSe: number; df: number };
  /** How many times each query was executed while timing. */
  runs: number;
  /** Blocks of rounds taken at separated moments (fast). */
  blocks?: number;
  goldMs: number;
  predMs: number;
  /** Milliseconds per execution, in the order measured (for charts). */
  goldSamples: number[];
  predSamples: number[];
  /** fast, in `eval`: the official loop of 100 iterations would run past the time limit, so the official scripts score 0. */
  pastOfficialLimit?: boolean;
  /** Gold and prediction compile to the same SQLite program: the ratio is exactly 1 and nothing was timed. */
  sameProgram?: boolean;
  note?: string;
}
