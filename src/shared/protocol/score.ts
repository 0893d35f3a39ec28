/** The score slice: "Score against gold" on one prediction, with SQLMorph's partial-credit techniques (the Score panel). */
import { RequestType } from 'vscode-languageserver-protocol';
import type { PairSearched } from '../../app/counterexampleSearch';
import type { TechniquesView } from '../../app/scoreTechniques';
import type { TimingSummaries } from '../../app/statementScore';
import type { QuestionResult } from '../../core/eval/types';
import type { QuestionInfo } from './dataset';
import type { PlanComparison, PlanView } from './plan';
import type { ResultPreview } from './queries';

/** What a "Score against gold" acts on: a SQL and the question it answers. */
export interface ScoreParams {
  /**
   * The SQL to score; or `uri` + `offset`: the statement there in the current document (lenses use this, so an
   * edit made since the lens was drawn counts).
   */
  sql?: string;
  uri?: string;
  offset?: number;
  /** The question, by id (as `-- bird: <id>` says) or by position in the question file. */
  questionId?: number | string;
  questionIndex?: number;
  /** `correctness`: EX and Soft-F1 only (a first answer at once); `full` (default): timing too. */
  phase?: 'correctness' | 'full';
  /** Time longer than the default for a tighter interval ("Re-run with more iterations"). */
  thorough?: boolean;
  /** Data scales to re-time the pair at (setting vesLens.scales), e.g. [1, 10, 100]; none: no scaled copies. */
  scales?: number[];
  /** A token for StepProgress while it runs. */
  progressToken?: string;
}

// A measured speed comparison with its interval's kind and core's verdict, as app/statementScore.ts gives it.
export type { TimingSummaries, TimingSummary } from '../../app/statementScore';

// ---- partial credit: SQLMorph's techniques on the scored pair --------------------------------------------

// SQLMorph's techniques on the scored pair, as app/scoreTechniques.ts gives them to the Score panel.
export type { TechniqueRowsView, TechniquesView, TechniqueTableView, TechniqueView } from '../../app/scoreTechniques';

/**
 * The fields a Score result shares with core's QuestionResult, under the JSON contract's names and types (picked,
 * so the two cannot drift): outcome, EX, Soft-F1, each metric's term, R-VES's buckets, the scale ratios.
 */
export type ScoredFields = Pick<
  QuestionResult,
  | 'outcome'
  | 'ex'
  | 'f1'
  | 'error'
  | 'same_program'
  | 'ves'
  | 'rves'
  | 'rves_reward'
  | 'rves_bucket_probabilities'
  | 'rves_expected_reward'
  | 'rves_uncertain'
  | 'time_ratio_by_scale'
  | 'growth'
  | 'difference'
  | 'ex_fragile'
  | 'notes'
>;

/**
 * "Score against gold" on one pair. Fields shared with QuestionResult keep its snake_case names (ScoredFields:
 * `same_program`, `rves_reward`, `time_ratio_by_scale`...); fields only the editor has are camelCase.
 */
export interface ScoreResult extends ScoredFields {
  question: QuestionInfo;
  /** Both SQLs, formatted for reading (as they run: formatting never changes what is scored). */
  goldSql: string;
  predSql: string;
  goldPreview: ResultPreview;
  predPreview: ResultPreview;
  /** Why the scores are what they are, in sentences: "3 columns vs 2: ...", "EX 1 but Soft-F1 0: ...". */
  explanations: string[];
  /** The timings with their samples (none for a wrong prediction, the correctness phase, or the same program). */
  timings: TimingSummaries;
  /** Each R-VES reward bucket's ratio range in words, by reward ("0.5 ≤ ratio < 1"): core's buckets, for the reward card. */
  rvesBucketRanges: Readonly<Record<string, string>>;
  goldPlan: PlanView;
  predPlan: PlanView;
  planComparison: PlanComparison;
  /** SQLMorph's partial-credit techniques, each with its matching (null when vesLens.techniques names none). */
  techniques?: TechniquesView | null;
  /**
   * An EX-correct pair on SQLite: the panel offers "Look for a database where they differ" (CounterexampleRequest),
   * with this many seconds of search; absent otherwise.
   */
  counterexampleSeconds?: number;
  sqlite: string;
  /** What ran the SQL, in one line (DatasetSummary's engine line: engine, version, embedded or server, no password). */
  engine: string;
  elapsedMs: number;
}

export const ScoreRequest = new RequestType<ScoreParams, ScoreResult, void>('vesLens/score');

// ---- "Look for a database where they differ": a counterexample to an EX-correct pair ------------------------

/** The folder under the extension's storage where the editor's witness databases are written. */
export const WITNESS_FOLDER = 'counterexamples';

/** The pair to search (named as ScoreParams names it), and how long the search may take. */
export interface CounterexampleParams {
  sql?: string;
  uri?: string;
  offset?: number;
  questionId?: number | string;
  questionIndex?: number;
  /** Seconds for trying variations (default 10, at most 120); shrinking a witness found may take as long again. */
  budgetSeconds?: number;
  /** A token for StepProgress while it runs. */
  progressToken?: string;
}

// The witness database read back for the page, as app/counterexampleSearch.ts gives it.
export type { WitnessResultView, WitnessTableView, WitnessView } from '../../app/counterexampleSearch';

/** What the search came to (PairSearched in app/counterexampleSearch.ts), for the pair's question, in how long. */
export interface CounterexampleResult extends PairSearched {
  question: QuestionInfo;
  elapsedMs: number;
}

export const CounterexampleRequest = new RequestType<CounterexampleParams, CounterexampleResult, void>('vesLens/counterexample');
