/**
 * The messages between the extension and its webview pages (src/webview, one folder per panel), declared once:
 * the pages import these types, and test/webview/*.test.ts posts them.
 */
import type {
  CounterexampleResult,
  EvaluateFileResult,
  ExplainResult,
  IndexAdviceResult,
  JudgeResult,
  OptimizeBounds,
  OptimizeResult,
  ReportRow,
  EvalReportDocument,
  ScoreResult,
  TimeQueryResult,
} from './protocol';

/** What a Score panel acts on, sent back with `rerun` so a restored panel can re-run without the extension remembering it. */
export interface ScoreContext {
  target: { sql: string } | { uri: string; offset: number };
  questionId?: number | string;
  questionIndex?: number;
}

/** Extension → Score panel. */
export type ScorePanelMessage =
  | { type: 'running' }
  | { type: 'rerunning' }
  | { type: 'result'; result: ScoreResult; partial: boolean; context: ScoreContext }
  | { type: 'cancelled'; rerun: boolean }
  | { type: 'error'; message: string; rerun: boolean }
  // The Judge's section (its own state: a score and a judgement of the same prediction show together).
  | { type: 'judging'; context: ScoreContext; model: string }
  | { type: 'judgement'; judgement: JudgeResult; context: ScoreContext }
  | { type: 'judge-failed'; message: string; cancelled: boolean }
  // "Look for a database where they differ" (its own state, under the explanations of the same score).
  | { type: 'counterexample-running'; context: ScoreContext; budgetSeconds: number }
  | { type: 'counterexample-progress'; message: string }
  | { type: 'counterexample'; result: CounterexampleResult; context: ScoreContext }
  | { type: 'counterexample-failed'; message: string; cancelled: boolean };

/** Score panel → extension. */
export type ScorePanelRequest =
  | { type: 'cancel' }
  | { type: 'rerun'; context: ScoreContext }
  | { type: 'judge'; context: ScoreContext }
  | { type: 'cancel-judge' }
  | { type: 'counterexample'; context: ScoreContext; budgetSeconds: number }
  | { type: 'cancel-counterexample' }
  // "Find a faster equivalent" of the prediction scored (the Optimize panel), on the question's database.
  | { type: 'optimize'; context: ScoreContext; dbId: string }
  // A witness database the panel showed: reveal it in the file manager or the explorer, or copy its path.
  | { type: 'witness'; action: 'reveal' | 'copy'; database: string }
  // The partial-credit section's setup hint: open the embeddings settings, or ask for the API key.
  | { type: 'setUpEmbeddings'; action: 'settings' | 'key' };

/** The latest judgement of a question, as the explorer and a report's judge column show it. */
export interface JudgeFlag {
  score: 0 | 1 | null;
  error: string | null;
  /** The Refuter says the gold SQL is wrong. */
  goldFlagged: boolean;
  /** `ambiguous question`, `ambiguous schema`, both; null when none. */
  ambiguity: string | null;
  judgement: string | null;
  /** The prediction judged: a report row shows the verdict only for the same SQL (the flags are the question's). */
  predictedSql: string;
  model: string;
}

/** Extension → Plan panel: a plan (explain), or one query timed alone (with its plan). */
export type PlanPanelMessage =
  | { type: 'plan'; explain: ExplainResult; following: boolean }
  | { type: 'timing'; timing: TimeQueryResult }
  | { type: 'running'; what: string }
  | { type: 'error'; message: string };

/** Plan panel → extension: run the plan shown with EXPLAIN ANALYZE (PostgreSQL; read-only, within the time limit). */
export type PlanPanelRequest = { type: 'analyze' };

/**
 * What the Optimize panel does with a rewrite: `apply` it to the statement's document, or only `copy` it (a
 * read-only gold: a gold cannot be edited in place); `none`: the SQL came from no document.
 */
export type RewriteAction = 'apply' | 'copy' | 'none';

/** Extension → Optimize panel ("Find a faster equivalent", and index advice kept apart from the rewrites). */
export type OptimizePanelMessage =
  | { type: 'running'; label: string; bounds: OptimizeBounds }
  | { type: 'step'; message: string }
  | { type: 'result'; label: string; result: OptimizeResult; action: RewriteAction }
  | { type: 'cancelled' }
  | { type: 'error'; message: string }
  | { type: 'applied'; message: string }
  | { type: 'index-running'; measure: boolean }
  | { type: 'index-advice'; advice: IndexAdviceResult }
  | { type: 'index-failed'; message: string };

/** Optimize panel → extension. */
export type OptimizePanelRequest =
  | { type: 'cancel' }
  | { type: 'rerun' }
  | { type: 'apply' }
  | { type: 'copy' }
  | { type: 'indexAdvice'; measure: boolean }
  // A witness database of a rejected rewrite: reveal it, or copy its path.
  | { type: 'witness'; action: 'reveal' | 'copy'; database: string }
  | { type: 'settings' };

/** Extension → Report panel. */
export type ReportPanelMessage =
  | { type: 'start'; file: string }
  | { type: 'rows'; rows: ReportRow[]; message: string; percentage: number }
  | { type: 'report'; file: string; result: EvaluateFileResult }
  | { type: 'failed'; file: string; message: string }
  /** The judge's latest verdicts by question id (a judge column appears when any row has one). */
  | { type: 'judgements'; byQuestion: Record<string, JudgeFlag> };

/** Report panel → extension. */
export type ReportPanelRequest =
  | { type: 'open'; questionId: number | string; sql: string }
  | { type: 'jump'; file: string; line: number; character: number }
  | { type: 'export'; file: string; format: 'csv'; rows: ReportRow[] }
  /** The run's eval report (EvaluateFileResult.report), saved as `ves-lens eval --json` writes it. */
  | { type: 'exportReport'; file: string; report: EvalReportDocument }
  | { type: 'cancel' };

/** Gold audit page (core's auditHtml in a webview, src/webview/audit/auditPage.ts) → extension. */
export type AuditPanelRequest = { type: 'openQuestion'; questionId: string; dbId: string } | { type: 'save' } | { type: 'rerun' };

/** Comparison page (core's compareHtml in a webview, src/webview/compare/comparePage.ts) → extension. */
export type ComparePanelRequest = { type: 'save' } | { type: 'pick' };

/** What the comparison page keeps across a reload: the reports it compares, to compare them again. */
export interface ComparePageState {
  files: string[];
}

/** Any panel page → extension, once its script has run: the messages held for it can be posted now. */
export interface PageReady {
  type: 'ready';
}
