/**
 * Every custom request, notification and progress between the extension (client) and the language server,
 * declared once as typed message types (as vscode-eslint's customMessages.ts and rust-analyzer's lsp_ext.ts
 * do): both sides import this file, so a parameter or result type cannot drift between them. Plain data
 * only: the server imports it without vscode, the client without core (type-only imports from core vanish
 * at build time).
 */
import { NotificationType, ProgressType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type { EvalSummary } from '../core/eval/summary';
import type { QuestionResult } from '../core/eval/types';
import type { PlanNodeKind } from '../core/plan/parsePlan';
import type { TimingResult } from '../core/timing/types';
import type { VesLensSettings } from './settings';

export type { VesLensSettings } from './settings';

// ---- dataset -------------------------------------------------------------------------------------------

export interface Dataset {
  /** Absolute paths. */
  questionsFile: string;
  goldFile?: string;
  dbRoot: string;
}

export interface DatasetSummary {
  dataset: Dataset | null;
  sqlite: string;
  questionCount: number;
  /** db_id → whether its file is present, and how many questions use it. */
  databases: { dbId: string; present: boolean; questions: number }[];
  /** Input problems of the files (each naming file and key or line). */
  problems: string[];
  /** Why the dataset could not be used at all (a question file that is no question file...), naming the file and what was expected. */
  error?: string;
}

export interface QuestionInfo {
  index: number;
  questionId: number | string;
  dbId: string;
  difficulty: string;
  question: string;
  evidence: string;
  gold: string;
}

// ---- plans ----------------------------------------------------------------------------------------------

/** One step of a query plan, as core's costed plan tree has it (kind, table, index, both costs), for a view to draw. */
export interface PlanNodeView {
  /** Position in the tree: indexes from the root list down (`[0, 2]`: the first root's third child). */
  path: number[];
  kind: PlanNodeKind;
  /** SQLite's own text for the step. */
  detail: string;
  table?: string;
  alias?: string;
  /** The real table behind an alias, and its row count. */
  realTable?: string;
  rowCount?: number;
  index?: string;
  covering?: boolean;
  automatic?: boolean;
  constraint?: string;
  purpose?: string;
  subqueryType?: 'SCALAR' | 'LIST';
  correlated?: boolean;
  subquery?: string;
  operator?: string;
  /** Rule cost of this step alone (SCAN +100, temp B-tree +50). */
  ruleCost: number;
  /** Estimated rows the step yields each time it runs, and how often it runs. */
  rowsOut: number;
  loops: number;
  /** Estimated row visits of this step with its children, and its share of the plan's total (0..1). */
  work: number;
  share: number;
  /** Row visits of this step alone (without its children). */
  selfWork: number;
  /** The step with the most row visits of its own in the plan. */
  costliest: boolean;
  children: PlanNodeView[];
}

export interface PlanView {
  /** Why there is no plan: SQLite's compile error, or a refusal. */
  error?: string;
  rule: number;
  work: number;
  nodes: PlanNodeView[];
}

export interface PlanDifferenceView {
  /** Better (+1), worse (-1) or neutral (0) for the prediction. */
  direction: number;
  message: string;
}

/** One row of two plans laid side by side: a gold step, a predicted step, or both when they correspond. */
export interface AlignedPlanRow {
  gold?: number[];
  pred?: number[];
  depth: number;
  /** same: identical step; changed: the same place read another way; gold-only / pred-only: a step the other plan lacks. */
  mark: 'same' | 'changed' | 'gold-only' | 'pred-only';
}

export interface PlanComparison {
  rows: AlignedPlanRow[];
  differences: PlanDifferenceView[];
  /** One sentence: "the two plans take the same steps", "the prediction has no plan: ...", or what differs. */
  summary: string;
}

// ---- score ----------------------------------------------------------------------------------------------

/** What a "Score against gold" acts on: a SQL and the question it answers. */
export interface ScoreParams {
  /** The SQL to score; or `uri` + `offset`: the statement there in the current document (lenses use this, so an edit made since the lens was drawn counts). */
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

/** A measured speed comparison, as core's timing protocols give it (t_gold / t_pred, interval, samples). */
export type TimingSummary = Omit<TimingResult, 'protocol'>;

/** The first rows of a query's result, with its column names: what a person compares first. */
export interface ResultPreview {
  columns: string[];
  rows: unknown[][];
  /** Rows the whole result has (when it ran to the end), and whether the preview shows them all. */
  rowCount: number | null;
  truncated: boolean;
  error?: string;
}

export interface ScoreResult {
  question: QuestionInfo;
  outcome: QuestionResult['outcome'];
  ex: number;
  f1: number | null;
  error: string | null;
  /** Both SQLs, formatted for reading (as they run: formatting never changes what is scored). */
  goldSql: string;
  predSql: string;
  goldPreview: ResultPreview;
  predPreview: ResultPreview;
  /** Why the scores are what they are, in sentences: "3 columns vs 2: ...", "EX 1 but Soft-F1 0: ...". */
  explanations: string[];
  /** The headline timing: VES's quantity (first row, as DAMO times it). */
  timing: TimingSummary | null;
  /** R-VES's quantity (every row fetched and the connection closed, as mini_dev times it). */
  rvesTiming: TimingSummary | null;
  /** Gold and prediction compile to the same SQLite program: ratio exactly 1, nothing timed. */
  sameProgram: boolean;
  ves: number | null;
  /** The most probable reward, the probability of each bucket on a repeat run, and the expected reward. */
  rvesReward: number | null;
  rvesBucketProbabilities: Record<string, number> | null;
  rvesExpectedReward: number | null;
  rvesUncertain: boolean | null;
  /** With scales: the full-execution ratio at each data scale (null where it timed out), and what it says. */
  timeRatioByScale?: Record<string, number | null> | null;
  growth?: string | null;
  difference: { pred_rows: number; gold_rows: number; missing: unknown[][]; extra: unknown[][] } | null;
  goldPlan: PlanView;
  predPlan: PlanView;
  planComparison: PlanComparison;
  notes: string[];
  sqlite: string;
  elapsedMs: number;
}

// ---- explain and time one query -----------------------------------------------------------------------

/** One query on one database: SQL given outright or the statement at `uri` + `offset`, the database by id or path (or from the document's `-- bird:` / `-- db:` comment, or the default database). */
export interface QueryTarget {
  sql?: string;
  uri?: string;
  offset?: number;
  dbId?: string;
  dbPath?: string;
  /** The question it belongs to, if any (shown in the panel's title). */
  questionId?: number | string;
  /** A token for StepProgress while it runs. */
  progressToken?: string;
}

export type ExplainParams = QueryTarget;

export interface ExplainResult {
  plan: PlanView;
  /** As it ran, and formatted for reading. */
  sql: string;
  formattedSql: string;
  dbId?: string;
  dbPath: string;
  question?: QuestionInfo;
  /** Where the statement is: the document and 1-based line, when it came from one. */
  source?: { uri: string; line: number };
  sqlite: string;
}

export type TimeQueryParams = QueryTarget;

/** One query timed alone: milliseconds per full execution (fresh connection each time), with an interval. */
export interface TimeQueryResult {
  question?: QuestionInfo;
  sql: string;
  formattedSql: string;
  dbId?: string;
  /** Median milliseconds per execution and a 95 % interval of that median; how many executions. */
  ms: number;
  low: number;
  high: number;
  runs: number;
  samples: number[];
  /** Milliseconds to the first row (prepare and first step), median. */
  firstRowMs: number;
  preview: ResultPreview;
  plan: PlanView;
  error?: string;
  sqlite: string;
}

// ---- hints ------------------------------------------------------------------------------------------------

export interface VerifyHintParams {
  uri: string;
  /** Offsets of the diagnostic's statement in the document. */
  statementStart: number;
  rule: string;
  hintStart: number;
}

export interface VerifyHintResult {
  status: 'faster' | 'slower' | 'no-difference' | 'changes-results' | 'failed';
  message: string;
  /** The edit: a range of the document (offsets) and its new text; only when the rows agree. */
  edit?: { start: number; end: number; text: string };
  /** Apply without asking: same rows and measured faster (or a correctness hazard confirmed). Otherwise the client shows the measurement and offers "Apply anyway". */
  recommended: boolean;
}

/** Every hint of one rule in a document, for "fix all of this rule". */
export interface RuleHintsParams {
  uri: string;
  rule: string;
}

// ---- evaluation -----------------------------------------------------------------------------------------

export interface EvaluateFileParams {
  predictionsFile: string;
  metrics?: string[];
  timing?: 'fast' | 'official';
  /** A token for EvaluationProgress: results stream in as they are final. */
  progressToken?: string;
}

/** One question of a report: the JSON contract's fields, plus what the editor needs. */
export type ReportRow = Omit<QuestionResult, 'timings'> & {
  predicted_sql: string;
  /** Why it scored what it scored, in one line. */
  reason: string;
  /** Where its prediction is in the prediction file (0-based line and character), to jump there. */
  location?: { line: number; character: number };
};

export interface EvaluateFileResult {
  summary: EvalSummary;
  questions: ReportRow[];
  problems: string[];
  sqlite: string;
  /** Cancelled before the end: the questions scored so far, and a summary of them only. */
  partial: boolean;
  /** Questions in the file's pairing (all of them, however many were scored). */
  total: number;
  metrics: string[];
}

export interface EvaluationProgressValue {
  message: string;
  percentage: number;
  /** Questions whose result became final since the last report. */
  rows: ReportRow[];
}

// ---- the messages, declared once ---------------------------------------------------------------------

export const SetDatasetRequest = new RequestType<Dataset | null, DatasetSummary, void>('vesLens/setDataset');
export const DatasetSummaryRequest = new RequestType0<DatasetSummary, void>('vesLens/datasetSummary');
export const QuestionsRequest = new RequestType<{ dbId?: string }, QuestionInfo[], void>('vesLens/questions');
/** The read-only document of one question: its text, evidence and gold SQL (formatted). */
export const QuestionDocumentRequest = new RequestType<{ questionId: number | string }, string, void>('vesLens/questionDocument');
export const ScoreRequest = new RequestType<ScoreParams, ScoreResult, void>('vesLens/score');
export const ExplainRequest = new RequestType<ExplainParams, ExplainResult, void>('vesLens/explain');
export const TimeQueryRequest = new RequestType<TimeQueryParams, TimeQueryResult, void>('vesLens/timeQuery');
export const VerifyHintRequest = new RequestType<VerifyHintParams, VerifyHintResult, void>('vesLens/verifyHint');
export const RuleHintsRequest = new RequestType<RuleHintsParams, VerifyHintParams[], void>('vesLens/ruleHints');
export const EvaluateFileRequest = new RequestType<EvaluateFileParams, EvaluateFileResult, void>('vesLens/evaluateFile');
/** Results of an evaluation as they become final (the report keeps them if the run is cancelled). */
export const EvaluationProgress = new ProgressType<EvaluationProgressValue>();
/** Progress of a Score or Time request, as a line of text. */
export const StepProgress = new ProgressType<{ message: string }>();

/** Client → server: the settings, at start and whenever they change (they take effect at once). */
export const SettingsNotification = new NotificationType<VesLensSettings>('vesLens/settings');
/** Client → server: workspace trust (untrusted workspaces never run SQL). */
export const TrustNotification = new NotificationType<{ trusted: boolean }>('vesLens/trust');

/** Commands the server's code lenses and code actions invoke on the client, with their arguments. */
export interface CommandArguments {
  'vesLens.scoreAgainstGold': [uri: string, offset: number, questionId?: number | string, questionIndex?: number];
  'vesLens.explain': [uri: string, offset: number, dbId?: string];
  'vesLens.showHints': [uri: string, line: number];
  'vesLens.applyVerifiedRewrite': [params: VerifyHintParams];
  'vesLens.applyAllRewrites': [uri: string, rule: string];
  'vesLens.timeGold': [question: QuestionInfo];
}

export const Commands = {
  scoreAgainstGold: 'vesLens.scoreAgainstGold',
  explain: 'vesLens.explain',
  showHints: 'vesLens.showHints',
  applyVerifiedRewrite: 'vesLens.applyVerifiedRewrite',
  applyAllRewrites: 'vesLens.applyAllRewrites',
  attachDataset: 'vesLens.attachDataset',
  evaluatePredictionFile: 'vesLens.evaluatePredictionFile',
  openQuestion: 'vesLens.openQuestion',
  explainGold: 'vesLens.explainGold',
  timeGold: 'vesLens.timeGold',
  showOutput: 'vesLens.showOutput',
  restartServer: 'vesLens.restartServer',
} as const;

/** A code lens or code action command, typed by its id. */
export function command<K extends keyof CommandArguments>(title: string, id: K, ...args: CommandArguments[K]): { title: string; command: K; arguments: CommandArguments[K] } {
  return { title, command: id, arguments: args };
}

/** The URI scheme of the read-only question documents (`ves-lens-question:/717.sql`). */
export const QUESTION_SCHEME = 'ves-lens-question';
