/**
 * Every custom request, notification and progress between the extension (client) and the language server,
 * declared once as typed message types (as vscode-eslint's customMessages.ts and rust-analyzer's lsp_ext.ts
 * do): both sides import this file, so a parameter or result type cannot drift between them. Plain data
 * only: the server imports it without vscode, the client without core (type-only imports from core vanish
 * at build time).
 */
import { NotificationType, ProgressType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type { EvalSummary } from '../core/eval/evalSummary';
import type { QuestionResult } from '../core/eval/types';
import type { PlanNode } from '../core/plan/parsePlan';
import type { TimingResult } from '../core/timing/types';
import type { ColumnPair, RowMatch, RowMatchKind, TechniqueName, TechniqueScore } from '../core/results/sqlmorph/types';
import type { SealedSecret } from './sealedSecret';
import type { GoldAudit } from '../core/audit/goldAudit';
import type { AuditMark } from '../core/audit/auditMarks';
import type { JudgeMethod, JudgeOutcome } from '../core/judge/types';
import type { ChatMessage } from '../core/llm/chatModel';
import type { VesLensSettings } from './settings';

export type { VesLensSettings } from './settings';
export type { AuditMark } from '../core/audit/auditMarks';
export type { GoldAudit, GoldAuditEntry } from '../core/audit/goldAudit';

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
export interface PlanNodeView
  extends Pick<PlanNode, 'kind' | 'detail' | 'table' | 'alias' | 'index' | 'covering' | 'automatic' | 'constraint' | 'purpose' | 'subqueryType' | 'correlated' | 'subquery' | 'operator'> {
  /** Position in the tree: indexes from the root list down (`[0, 2]`: the first root's third child). */
  path: number[];
  /** The real table behind an alias, and its row count. */
  realTable?: string;
  rowCount?: number;
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

// ---- partial credit: SQLMorph's techniques on the scored pair --------------------------------------------

/** One side's result as the techniques read it: its column names, its first rows (cells as JSON values) and how many rows it has. */
export interface TechniqueTableView {
  columns: string[];
  rows: unknown[][];
  rowCount: number;
}

/** How the rows of one technique fared: each shown row's fate, and the fates of all rows counted. */
export interface TechniqueRowsView {
  /** The first `rowLimit` rows of each side: exact, partial (with its partner and similarity), or none. */
  gold: RowMatch[];
  predicted: RowMatch[];
  goldCounts: Record<RowMatchKind, number>;
  predictedCounts: Record<RowMatchKind, number>;
}

export interface TechniqueView {
  name: TechniqueName;
  /** `{EX}` for execution_accuracy, `{EX, EXP, EXR, F1}`, or `{error}` where it could not be computed. */
  score: TechniqueScore;
  /** The exact- and semantic-column techniques: each pair the matching made (by position), with its similarity. */
  columns?: ColumnPair[];
  rows?: TechniqueRowsView;
}

/** SQLMorph's result-comparison techniques for one pair (settings vesLens.techniques, vesLens.penalizeExtraColumns, vesLens.embeddings.*). */
export interface TechniquesView {
  /** The techniques asked for, in SQLMorph's order. */
  techniques: TechniqueView[];
  gold: TechniqueTableView | null;
  predicted: TechniqueTableView | null;
  /** Rows of each side listed with their fate; any more are only counted. */
  rowLimit: number;
  /** Equal sets of rows: every technique scored 1 without matching columns or rows (SQLMorph's check_ex). */
  sameRows: boolean;
  penalizeExtraColumns: boolean;
  /** The embeddings the semantic techniques used (never the key). */
  embeddings: { provider: 'openai'; url: string; model: string } | { provider: 'local' } | null;
  /** How to set embeddings up, when a semantic technique could not score for want of a provider or a key: what to say, and what the panel's button opens. */
  setup: { hint: string; action: 'settings' | 'key' } | null;
  /** Where VES Lens scores what SQLMorph's code would not (`<technique>: ...`), and settings it ignored. */
  notes: string[];
  /** A query the techniques could not read (they score 0, or `error` past a bound). */
  failure: { side: 'gold' | 'prediction'; message: string } | null;
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
  /** SQLMorph's partial-credit techniques (null when vesLens.techniques names none). */
  techniques?: TechniquesView | null;
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
/** One query timed on its own. */
export interface TimedAlone {
  /** Median milliseconds per execution and a 95 % interval of that median; how many executions. */
  ms: number;
  low: number;
  high: number;
  runs: number;
  samples: number[];
  /** Milliseconds to the first row (prepare and first step), median. */
  firstRowMs: number;
}

export interface TimeQueryResult extends TimedAlone {
  question?: QuestionInfo;
  sql: string;
  formattedSql: string;
  dbId?: string;
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

// ---- the LLM judge ----------------------------------------------------------------------------------------

/**
 * Which chat model judges: one of VS Code's (vscode.lm, in the extension host: the server asks the client for
 * each completion with ChatCompletionRequest) or an OpenAI-compatible endpoint the server calls itself (its key,
 * `judgeApiKey`, the server asks for sealed with SecretRequest: never in a request's parameters or a log).
 */
export type JudgeModelSpec =
  | { provider: 'vscode-lm'; vendor: string; family: string; id: string; name: string }
  | { provider: 'openai'; url: string; model: string };

/** What "Judge" acts on: a prediction and its question, as ScoreParams names them. */
export interface JudgeParams {
  sql?: string;
  uri?: string;
  offset?: number;
  questionId?: number | string;
  questionIndex?: number;
  method: JudgeMethod;
  model: JudgeModelSpec;
  /** Replies kept here (the extension's global storage) so a re-judgement costs no call; none: no cache. */
  cacheDir?: string;
  progressToken?: string;
}

export interface JudgeResult {
  question: QuestionInfo;
  /** Both SQLs, formatted for reading (the judge saw them as they are). */
  predSql: string;
  goldSql: string;
  /** The prediction as it was judged (to match it with a report's row). */
  predictedSql: string;
  /** core's verdict: score, branch, the Prover's and Refuter's answers, the Refuter's flags, errors, tokens. */
  judge: JudgeOutcome;
  /** The model's id, e.g. `vscode-lm:copilot/gpt-4o` or `openai-compatible:gpt-4o`. */
  model: string;
  elapsedMs: number;
}

/** Server → client: one chat completion with a vscode.lm model (the extension host owns that API). */
export interface ChatCompletionParams {
  messages: ChatMessage[];
  /** The model the client chose when the judgement started (vscode.lm's LanguageModelChat.id). */
  modelId: string;
}

export interface ChatCompletionResult {
  text: string;
  /** Tokens as the model's own tokenizer counts them (vscode.lm reports no usage). */
  usage?: { promptTokens: number; completionTokens: number };
}

/**
 * Error codes of a failed ChatCompletionRequest. `unavailable` (no chat model, consent refused, blocked, not
 * found) would fail every request alike: the judgement stops with the client's message. `failed`: this
 * request only (a model_error for the pair).
 */
export const ChatCompletionErrors = { unavailable: -32001, failed: -32002 } as const;

// ---- the gold audit ---------------------------------------------------------------------------------------

export interface AuditGoldParams {
  /** Prediction files or `eval --json` reports: how many hold a correct prediction at least 2× faster than each gold. */
  predictionFiles?: string[];
  /** Data scales at which each gold is re-timed alone (setting vesLens.scales); none: no scaled copies. */
  scales?: number[];
  /** A token for AuditProgress while it runs. */
  progressToken?: string;
}

export interface AuditGoldResult {
  /** core's audit: every gold with its plan, verified rewrites, measured indexes, growth, faster predictions; `ranked` the flagged ones. */
  audit: GoldAudit;
  /** One mark per flagged question, in rank order (the explorer shows them). */
  marks: AuditMark[];
  /** The page `ves-lens audit --html` writes for the same audit (the panel shows it; "Save as HTML" writes it). */
  html: string;
  /** Cancelled before the end: the gold audited so far. */
  partial: boolean;
  /** Questions in the dataset (all of them, however many were audited). */
  total: number;
  /** Input problems (a report that covers only some questions, ...), each naming its file. */
  problems: string[];
  /** The dataset audited, to tell a saved audit of another dataset. */
  dataset: Dataset;
  sqlite: string;
  /** When it finished (ISO 8601). */
  finishedAt: string;
}

export interface AuditProgressValue {
  message: string;
  /** Gold audited so far, of `total` (prediction files scored first count as 0). */
  done: number;
  total: number;
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
/** Audits every gold SQL of the dataset (long: per-question AuditProgress; cancelled, it returns what it measured). */
export const AuditGoldRequest = new RequestType<AuditGoldParams, AuditGoldResult, void>('vesLens/auditGold');
export const AuditProgress = new ProgressType<AuditProgressValue>();
/** Progress of a Score or Time request, as a line of text. */
export const StepProgress = new ProgressType<{ message: string }>();
/** Judges a prediction with a chat model (ROSE's Prover/Refuter by default); progress as StepProgress. */
export const JudgeRequest = new RequestType<JudgeParams, JudgeResult, void>('vesLens/judge');
/** Server → client: a completion from a vscode.lm chat model (see JudgeModelSpec). */
export const ChatCompletionRequest = new RequestType<ChatCompletionParams, ChatCompletionResult, void>('vesLens/chatCompletion');

/** What the client starts the server with (LSP's initializationOptions). */
export interface InitializationOptions {
  dataset?: Dataset | null;
  trusted?: boolean;
  settings?: Partial<VesLensSettings>;
  /** The extension's own storage (globalStorageUri): the embeddings cache lives under it. */
  storageDir?: string;
}

/** The secrets the server may ask the client for, each a SecretStorage entry of the extension's. */
export type SecretName = 'embeddingsApiKey' | 'judgeApiKey';

/**
 * Server → client: a secret when the server needs it (the embeddings API key for a score), sealed with the
 * session key the client put in the server's environment (see sealedSecret.ts); null when none is stored.
 */
export const SecretRequest = new RequestType<{ name: SecretName }, SealedSecret | null, void>('vesLens/secret');
export type { SealedSecret } from './sealedSecret';

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
  'vesLens.judge': [uri: string, offset: number, questionId?: number | string, questionIndex?: number];
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
  judge: 'vesLens.judge',
  setJudgeApiKey: 'vesLens.setJudgeApiKey',
  clearJudgeApiKey: 'vesLens.clearJudgeApiKey',
  setEmbeddingsApiKey: 'vesLens.setEmbeddingsApiKey',
  clearEmbeddingsApiKey: 'vesLens.clearEmbeddingsApiKey',
  showOutput: 'vesLens.showOutput',
  restartServer: 'vesLens.restartServer',
  auditGold: 'vesLens.auditGold',
  showGoldAudit: 'vesLens.showGoldAudit',
  showFlaggedOnly: 'vesLens.showFlaggedOnly',
  showAllQuestions: 'vesLens.showAllQuestions',
} as const;

/** A code lens or code action command, typed by its id. */
export function command<K extends keyof CommandArguments>(title: string, id: K, ...args: CommandArguments[K]): { title: string; command: K; arguments: CommandArguments[K] } {
  return { title, command: id, arguments: args };
}

/** The URI scheme of the read-only question documents (`ves-lens-question:/717.sql`). */
export const QUESTION_SCHEME = 'ves-lens-question';
