/**
 * Every custom request and notification between the extension (client) and the language server, declared
 * once. Plain data only: both sides import this file, the server without vscode, the client without core
 * (type-only imports from core vanish at build time).
 */
import type { TimingResult } from '../core/timing/types';

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
  problems: string[];
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

/** What a "Score against gold" acts on: a SQL and the question it answers. */
export interface ScoreParams {
  /** The SQL to score; or `uri` + `offset`: the statement there in the current document (lenses use this, so an edit made since the lens was drawn counts). */
  sql?: string;
  uri?: string;
  offset?: number;
  /** The question, by id (as `-- bird: <id>` says) or by position in the question file. */
  questionId?: number | string;
  questionIndex?: number;
  /** Time longer than the default for a tighter interval ("Re-run with more iterations"). */
  thorough?: boolean;
  /** Data scales to re-time the pair at (setting vesLens.scales), e.g. [1, 10, 100]; none: no scaled copies. */
  scales?: number[];
  /** A token for $/progress while it runs. */
  progressToken?: string;
}

/** A measured speed comparison, as core's timing protocols give it (t_gold / t_pred, interval, samples). */
export type TimingSummary = Omit<TimingResult, 'protocol'>;

export interface PlanSummary {
  error?: string;
  rule: number;
  work: number;
  /** The annotated tree as text lines (as the CLI prints it, without colour). */
  lines: string[];
}

export interface ScoreResult {
  question: QuestionInfo;
  outcome: string;
  ex: number;
  f1: number | null;
  error: string | null;
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
  goldPlan: PlanSummary;
  predPlan: PlanSummary;
  planDifferences: { direction: number; message: string }[];
  sqlite: string;
  elapsedMs: number;
}

export interface ExplainParams {
  /** The SQL to explain, or `uri` + `offset` as in ScoreParams. */
  sql?: string;
  offset?: number;
  /** Which database: a db_id of the attached dataset, or an absolute path. */
  dbId?: string;
  dbPath?: string;
  /** The document it comes from, to find its database (`-- bird:` comment or setting). */
  uri?: string;
}

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

export interface EvaluateFileParams {
  predictionsFile: string;
  metrics?: string[];
  timing?: 'fast' | 'official';
  progressToken?: string;
}

export interface EvaluateFileResult {
  summary: unknown;
  questions: unknown[];
  problems: string[];
  sqlite: string;
}

export const Requests = {
  setDataset: 'vesLens/setDataset', // Dataset | null → DatasetSummary
  datasetSummary: 'vesLens/datasetSummary', // void → DatasetSummary
  questions: 'vesLens/questions', // { dbId?: string } → QuestionInfo[]
  score: 'vesLens/score', // ScoreParams → ScoreResult
  explain: 'vesLens/explain', // ExplainParams → PlanSummary & { sqlite }
  verifyHint: 'vesLens/verifyHint', // VerifyHintParams → VerifyHintResult
  evaluateFile: 'vesLens/evaluateFile', // EvaluateFileParams → EvaluateFileResult
} as const;

export const Notifications = {
  /** Client → server: workspace trust changed (untrusted workspaces never run SQL). */
  trust: 'vesLens/trust', // { trusted: boolean }
} as const;

/** Commands the server's code lenses invoke on the client. */
export const Commands = {
  scoreAgainstGold: 'vesLens.scoreAgainstGold', // (uri, offset, questionId?, questionIndex?)
  explain: 'vesLens.explain', // (uri, offset, dbId?)
  showHints: 'vesLens.showHints', // (uri, line)
  applyVerifiedRewrite: 'vesLens.applyVerifiedRewrite', // (VerifyHintParams)
  attachDataset: 'vesLens.attachDataset',
  evaluatePredictionFile: 'vesLens.evaluatePredictionFile',
  openQuestion: 'vesLens.openQuestion',
} as const;
