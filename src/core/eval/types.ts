import { InputProblem } from '../bird/problems';
import type { TimingResult } from '../timing/types';
import type { TechniqueName, TechniqueScore } from '../results/sqlmorph/types';
import type { EquivalenceVerdict } from '../results/equivalence';
import type { Counterexample, CounterexampleSearch } from '../results/counterexample/search';
import type { ExFragile } from '../results/counterexample/exFragile';

/** What happened to one question; the official scripts only know "1" and "0". */
export type Outcome =
  | 'correct' // same result set as gold
  | 'mismatch' // ran, different result
  | 'prediction_error' // SQLite rejected the prediction (or there was none)
  | 'gold_error' // the gold SQL itself fails: the question cannot be scored fairly
  | 'timeout' // the pair did not finish within the time limit
  | 'refused' // not a single read query (a write, ATTACH, PRAGMA, several statements...): never executed
  | 'locked' // another process held the database past the busy timeout: scored 0, as the official scripts would
  | 'skipped'; // its database is not under --db-root (not counted in any score)

export const OUTCOMES: readonly Outcome[] = [
  'correct',
  'mismatch',
  'prediction_error',
  'gold_error',
  'timeout',
  'refused',
  'locked',
  'skipped',
];

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
  /** t_gold / t_pred (above 1: the prediction is faster) of VES's quantity (first row) when VES is asked, else R-VES's; null where not timed. */
  time_ratio: number | null;
  /** Interval on time_ratio: where a repeat run lands, 95 % (fast), or mean ± 1.96 standard errors (official). */
  time_ratio_interval: [number, number] | null;
  /** sqrt(time_ratio) for a correct prediction, else 0; the VES is 100 × the mean. */
  ves: number | null;
  /** sqrt(R-VES reward); the R-VES is 100 × the mean. */
  rves: number | null;
  rves_reward: number | null;
  /** True when no R-VES bucket is settled (fast: a repeat run lands in the most probable one with < 99 %; official: the interval crosses an edge). */
  rves_uncertain: boolean | null;
  /** Fast timing: probability that a repeat run lands in each reward bucket, and the expected reward (`rves` is the expected sqrt(reward)). */
  rves_bucket_probabilities: Record<string, number> | null;
  rves_expected_reward: number | null;
  /** Fast timing: the log-scale standard error of one run's R-VES ratio and its degrees of freedom, which the bucket probabilities come from. */
  rves_spread?: { log_se: number; df: number };
  /** The ratio R-VES is computed from (mini_dev's quantity: every row fetched, connection closed), with its interval. */
  rves_time_ratio: number | null;
  rves_time_ratio_interval: [number, number] | null;
  /** Official timing: the typical single-execution ratio of each quantity (Hodges–Lehmann), what fast mode estimates (the official mean also carries timing noise). */
  time_ratio_typical?: number;
  rves_time_ratio_typical?: number;
  /** Gold and prediction compile to the same SQLite program: ratio exactly 1, not timed. */
  same_program: boolean | null;
  /** fast: the metrics whose official loop of 100 iterations would outlast its limit, scored 0 as officially. */
  past_official_limit?: ('ves' | 'rves')[];
  /** With --scales: the full-execution ratio on copies of the database scaled ×N (null where it timed out), and what it says. */
  time_ratio_by_scale?: Record<string, number | null>;
  growth?: string;
  error: string | null;
  /** Median milliseconds per execution of each query in the timing runs. */
  gold_ms: number | null;
  pred_ms: number | null;
  /** How many times each query was timed. */
  runs: number | null;
  timing: string | null;
  notes: string[];
  difference?: ResultDifference;
  /** With --techniques: SQLMorph's result-comparison techniques, by name ({EX, EXP, EXR, F1}, {EX} or {error}). */
  techniques?: Partial<Record<TechniqueName, TechniqueScore>>;
  /** With --counterexamples, an EX-correct pair: provably equivalent, or only agreeing on this data (results/equivalence.ts). */
  equivalence?: EquivalenceVerdict;
  /** With --counterexamples: a small database on which the EX-correct pair returns different results, re-checked. */
  counterexample?: Counterexample;
  /** With --counterexamples: how much was searched for one (also when none was found). */
  counterexample_search?: CounterexampleSearch;
  /** With --counterexamples, a mismatch: it differs only in float digits or through the physical row order. */
  ex_fragile?: ExFragile;
  /** The timings themselves, samples included, when asked for (EvalOptions.keepSamples); never written to JSON. */
  timings?: { ves?: TimingResult; rves?: TimingResult };
}

export interface EvalProblems {
  problems: InputProblem[];
}
