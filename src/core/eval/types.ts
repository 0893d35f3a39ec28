import { InputProblem } from '../bird/problems';

/** What happened to one question; the official scripts only know "1" and "0". */
export type Outcome =
  | 'correct' // same result set as gold
  | 'mismatch' // ran, different result
  | 'prediction_error' // SQLite rejected the prediction (or there was none)
  | 'gold_error' // the gold SQL itself fails: the question cannot be scored fairly
  | 'timeout' // the pair did not finish within the time limit
  | 'refused' // not a single read query (a write, ATTACH, PRAGMA, several statements...): never executed
  | 'skipped'; // its database is not under --db-root (not counted in any score)

export const OUTCOMES: readonly Outcome[] = ['correct', 'mismatch', 'prediction_error', 'gold_error', 'timeout', 'refused', 'skipped'];

export type Metric = 'ex' | 'f1' | 'ves' | 'rves';
export const METRICS: readonly Metric[] = ['ex', 'f1', 'ves', 'rves'];

export type TimingMode = 'fast' | 'official';

/** A small picture of how two results differ, for people (the score itself never depends on it). */
export interface ResultDifference {
  pred_rows: number;
  gold_rows: number;
  /** A few gold rows the prediction lacks, and predicted rows gold lacks (as JSON-friendly values). */
  missing: unknown[][];
  extra: unknown[][];
}

/** One question's result: the JSON contract other tools read (snake_case on purpose). */
export interface QuestionResult {
  index: number;
  question_id: number | string;
  db_id: string;
  difficulty: string;
  outcome: Outcome;
  ex: 0 | 1;
  f1: number | null;
  /** t_gold / t_pred (above 1: the prediction is faster); null where not timed. */
  time_ratio: number | null;
  /** Interval on time_ratio: 95 % for the median (fast), or mean ± 1.96 standard errors (official). */
  time_ratio_interval: [number, number] | null;
  /** sqrt(time_ratio) for a correct prediction, else 0; the VES is 100 × the mean. */
  ves: number | null;
  /** sqrt(R-VES reward); the R-VES is 100 × the mean. */
  rves: number | null;
  rves_reward: number | null;
  /** True when the interval crosses an R-VES bucket edge, so the reward could go either way. */
  rves_uncertain: boolean | null;
  error: string | null;
  /** Median milliseconds per execution of each query in the timing runs. */
  gold_ms: number | null;
  pred_ms: number | null;
  /** How many times each query was timed. */
  runs: number | null;
  timing: string | null;
  notes: string[];
  difference?: ResultDifference;
  /** Milliseconds per execution of each timing sample, when asked for (EvalOptions.keepSamples). */
  samples?: { gold: number[]; pred: number[] };
}

export interface EvalProblems {
  problems: InputProblem[];
}
