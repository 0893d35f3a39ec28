/**
 * The messages between the extension and its webview pages (media/*.js), declared once. The pages are
 * plain scripts: they read these shapes, and test/webview/*.test.ts posts them with these types.
 */
import type { EvaluateFileResult, ExplainResult, ReportRow, ScoreResult, TimeQueryResult } from './protocol';

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
  | { type: 'error'; message: string; rerun: boolean };

/** Score panel → extension. */
export type ScorePanelRequest = { type: 'cancel' } | { type: 'rerun'; context: ScoreContext };

/** Extension → Plan panel: a plan (explain), or one query timed alone (with its plan). */
export type PlanPanelMessage =
  | { type: 'plan'; explain: ExplainResult; following: boolean }
  | { type: 'timing'; timing: TimeQueryResult }
  | { type: 'running'; what: string }
  | { type: 'error'; message: string };

/** Extension → Report panel. */
export type ReportPanelMessage =
  | { type: 'start'; file: string }
  | { type: 'rows'; rows: ReportRow[]; message: string; percentage: number }
  | { type: 'report'; file: string; result: EvaluateFileResult }
  | { type: 'failed'; file: string; message: string };

/** Report panel → extension. */
export type ReportPanelRequest =
  | { type: 'open'; questionId: number | string; sql: string }
  | { type: 'jump'; file: string; line: number; character: number }
  | { type: 'export'; file: string; format: 'csv' | 'json'; rows: ReportRow[] }
  | { type: 'cancel' };
