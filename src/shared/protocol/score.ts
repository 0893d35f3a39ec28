/** The score slice: "Score against gold" on one prediction, with SQLMorph's partial-credit techniques (the Score panel). */
import { RequestType } from 'vscode-languageserver-protocol';
import type { TechniquesView } from '../../app/scoreTechniques';
import type { Outcome, QuestionResult } from '../../core/eval/types';
import type { CounterexampleSearch } from '../../core/results/counterexample/search';
import type { EquivalenceVerdict } from '../../core/results/equivalence';
import type { TimingResult } from '../../core/timing/types';
import type { SpeedVerdict } from '../../core/timing/verdict';
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

/**
 * A measured speed comparison, as core's timing protocols give it (t_gold / t_pred, interval, samples), and what
 * its interval rests on: `estimate`, the spread between this run's blocks (taken within one sitting, where the
 * CLI's eval spreads a pair's blocks over passes minutes apart); `none`, one block only (nothing measured, no
 * interval shown); `exact`, the same program (ratio 1 by construction).
 */
export type TimingSummary = Omit<TimingResult, 'protocol'> & {
  intervalKind?: 'estimate' | 'none' | 'exact';
  /** core's speed verdict on this run's ratio and interval ("faster": the prediction is). */
  verdict: SpeedVerdict;
  /**
   * From this pair's third Score run on (in this session, same engine, database, gold and prediction): the ratio
   * over its runs and the 95 % interval a next run lands in, measured from the spread between the runs as the CLI's
   * eval measures it between passes (server/score/repeatRuns.ts).
   */
  repeat?: { runs: number; ratio: number; low: number; high: number; verdict: SpeedVerdict };
};

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
 * Both timed quantities, keyed as QuestionResult.timings: `ves` is VES's (first row, as DAMO times it), `rves`
 * R-VES's (every row fetched and the connection closed, as mini_dev times it); a quantity not timed is absent.
 */
export type TimingSummaries = { [Quantity in keyof NonNullable<QuestionResult['timings']>]?: TimingSummary };

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

/** One side's result on the witness: its first rows, which of them the other side's result lacks (EX's set comparison). */
export interface WitnessResultView {
  columns: string[];
  rows: unknown[][];
  /** For each row shown: the other result has no equal row. */
  differs: boolean[];
  rowCount: number;
  /** Rows of the whole result the other result lacks (the shown ones may not hold them all). */
  differingCount: number;
  /** The query failed when read back for the page (the search had run it on the file). */
  error?: string;
}

/** A table of the witness: its first rows and how many it holds. */
export interface WitnessTableView {
  name: string;
  columns: string[];
  rows: unknown[][];
  rowCount: number;
}

/** The witness database, read back from its file: its tables and both results on it. */
export interface WitnessView {
  /** The SQLite file (under the extension's storage, never beside the real database). */
  database: string;
  /** How the real database was varied, and how small the witness is. */
  how: string;
  tables: WitnessTableView[];
  gold: WitnessResultView;
  prediction: WitnessResultView;
}

/**
 * What the search came to. `equivalent`: proved, nothing searched (`equivalence.reason` says why); `found`: a
 * witness, both queries re-run on its file and still differing; `none_found`, `budget_spent`, `not_searched`:
 * core's search result (`search` says how much was tried, in how long); `not_correct`: the pair does not agree on
 * the real database (`outcome`), so there is nothing to look for.
 */
export interface CounterexampleResult {
  question: QuestionInfo;
  status: 'equivalent' | 'not_correct' | CounterexampleSearch['result'];
  outcome: Outcome;
  equivalence: EquivalenceVerdict | null;
  search: CounterexampleSearch | null;
  witness: WitnessView | null;
  /** The search's budget in seconds, as it ran. */
  budgetSeconds: number;
  elapsedMs: number;
}

export const CounterexampleRequest = new RequestType<CounterexampleParams, CounterexampleResult, void>('vesLens/counterexample');
