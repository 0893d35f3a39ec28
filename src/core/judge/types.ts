/** `rose`: ROSE's Prover/Refuter cascade; `prover-only`: the Prover on every pair, no gold; `flex`: FLEX's one gold-anchored call. */
export type JudgeMethod = 'rose' | 'prover-only' | 'flex';
export const JUDGE_METHODS: readonly JudgeMethod[] = ['rose', 'prover-only', 'flex'];

/** The Prover's answer (judged without the gold). */
export interface ProverVerdict {
  /** True: the SQL sufficiently answers the question. */
  verdict: boolean;
  reason: string;
  expected_answer: string;
  sql_description: string;
  /** Where in the result the Prover saw its answer (only with verdict true). */
  result_evidence?: string;
}

/** The Refuter's answer (judged with the gold and both results). */
export interface RefuterVerdict {
  /** True: the prediction is rejected; false: the Prover's pass (or matching results) stands. */
  overturn: boolean;
  judgement: string;
  /** `ambiguous question`, `ambiguous schema`, both comma-separated, or `na`. Never changes the score. */
  ambiguity: string;
  /** False when the Refuter says the gold SQL itself is wrong; null when it did not say. Never changes the score. */
  gold_correct: boolean | null;
}

export interface FlexVerdict {
  correct: boolean;
  reason: string;
}

/**
 * Which way a pair went through the cascade:
 * - `no_prediction` / `prediction_failed`: score 0, no call;
 * - `results_match`: both ran with the same result (resultEquality.ts): the Refuter alone;
 * - `results_differ`: the Prover, then the Refuter if the Prover passed;
 * - `gold_failed`: the gold failed (or there is none): the Prover alone (ROSE crashes here);
 * - `prover_only`, `flex`: the other methods.
 */
export type JudgeBranch =
  'no_prediction' | 'prediction_failed' | 'results_match' | 'results_differ' | 'gold_failed' | 'prover_only' | 'flex';

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** One pair's judgement: the `judge` object of each question in the JSON (snake_case, as the rest of the contract). */
export interface JudgeOutcome {
  /** 1: the prediction answers the question; 0: it does not; null: no verdict (see `error`). */
  score: 0 | 1 | null;
  method: JudgeMethod;
  branch: JudgeBranch;
  prover: ProverVerdict | null;
  refuter: RefuterVerdict | null;
  flex?: FlexVerdict | null;
  /**
   * Why there is no score: `judge_error: ...` (a reply without the required boolean, after one retry with the
   * parse error) or `model_error: ...` (no reply: HTTP errors after retries, timeouts). Null otherwise.
   */
  error: string | null;
  /** Rows each query returned (null where it did not run). */
  pred_rows: number | null;
  gold_rows: number | null;
  /** Model requests made for this pair (retries of a malformed reply included), how many came from the cache, and their tokens. */
  calls: number;
  cached_calls: number;
  usage: TokenUsage;
  notes: string[];
}
