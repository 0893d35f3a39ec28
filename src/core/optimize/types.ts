import type { EquivalenceVerdict } from '../results/equivalence';
import type { CounterexampleSearch } from '../results/counterexample/search';

/**
 * How far a kept rewrite is known to return the original's rows:
 * - `proven`: equivalent on every database with this schema (the equivalence subset, results/equivalence.ts);
 * - `by-rule`: made by rules whose proof conditions (docs/rules/VL0nn.md) were checked on the statement, and
 *   equal on the data and on the varied copies searched;
 * - `tested`: equal on the data and on the varied copies searched, nothing more (a model's proposal).
 * "Equal on this data" never reads as proven.
 */
export type ProofStatus = 'proven' | 'by-rule' | 'tested';

export interface Verification {
  /** The rows compared with the original's: as a set (EX), as a bag (duplicates counted), and in order where the original orders them. */
  sameRows: { scales: number[]; set: true; bag: true; order: 'same' | 'unordered' };
  /** The counterexample search on varied copies of the tables read (SQLite), or why it did not run. */
  counterexample: CounterexampleSearch;
  equivalence?: EquivalenceVerdict;
  proof: ProofStatus;
  /** One line: what was checked. */
  summary: string;
}

/** t_original / t_rewrite at one scale, with the interval a repeat run falls into. */
export interface SpeedMeasurement {
  scale: number;
  speedup: number;
  low: number;
  /** null: unbounded, because the original was stopped at the time limit (then `speedup` is a lower bound). */
  high: number | null;
  originalMs: number;
  rewriteMs: number;
  /** Executions of each form. */
  runs: number;
  blocks: number;
  /** The original did not finish within the time limit: the speed-up is at least `low`. */
  originalCutOff?: boolean;
}

export interface KeptRewrite {
  sql: string;
  /** The rules applied, in order (`model` for a chat model's proposal). */
  patterns: string[];
  notes: string[];
  /** At the scale asked. */
  speedup: number;
  low: number;
  high: number | null;
  scale: number;
  verification: Verification;
  /** Each scale measured (the scale asked, and ×1 when another was asked). */
  measurements: SpeedMeasurement[];
}

export type RejectionReason = 'changes-rows' | 'counterexample' | 'same-work' | 'slower' | 'not-faster' | 'fails' | 'refused';

export interface RejectedCandidate {
  sql: string;
  patterns: string[];
  reason: RejectionReason;
  detail: string;
  /** changes-rows / counterexample: the database on which the rows differ (a witness file for a counterexample). */
  witness?: string;
}

export type OptimizeStatus = 'optimized' | 'no-faster-form' | 'original-fails' | 'refused' | 'interrupted';

export interface StatementOptimization {
  sql: string;
  dbId?: string;
  questionId?: number | string;
  /** Where the statement came from (`gold`, a prediction file). */
  source?: string;
  status: OptimizeStatus;
  /** The original at the scale asked: its time from the search's runs (median), or cut off at the limit. */
  original: { ms: number; cutOff: boolean; scale: number };
  best: KeptRewrite | null;
  /** Candidate forms examined. */
  tried: number;
  /** What was tried and not kept, most telling first (at most REJECTIONS_KEPT; `rejectedCounts` counts all). */
  rejected: RejectedCandidate[];
  rejectedCounts: Partial<Record<RejectionReason, number>>;
  notes: string[];
  seconds: number;
}

export interface OptimizeTotals {
  statements: number;
  optimized: number;
  /** Σ original time at the scale, and Σ after (the best rewrite's time where one was kept). */
  beforeMs: number;
  afterMs: number;
  savedShare: number;
  /** Some originals were stopped at the limit: `beforeMs` counts them at the limit (a lower bound). */
  lowerBound: boolean;
}
