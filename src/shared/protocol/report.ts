/** The report slice: a whole prediction file evaluated, its rows streamed as they are final (the Report panel). */
import { ProgressType, RequestType } from 'vscode-languageserver-protocol';
import type { ReportRow } from '../../app/scoreExplanations';
import type { EvalSummary } from '../../core/eval/evalSummary';
import type { EvalReportJson } from '../../core/eval/reportFile';

export interface EvaluateFileParams {
  predictionsFile: string;
  metrics?: string[];
  timing?: 'fast' | 'official';
  /** A token for EvaluationProgress: results stream in as they are final. */
  progressToken?: string;
}

// One question of a report: the JSON contract's fields, plus what the editor needs (app/scoreExplanations.ts makes it).
export type { ReportRow } from '../../app/scoreExplanations';

export interface EvaluateFileResult {
  summary: EvalSummary;
  questions: ReportRow[];
  problems: string[];
  sqlite: string;
  /** What ran the SQL, in one line (DatasetSummary's engine line: engine, version, embedded or server, no password). */
  engine: string;
  /** Cancelled before the end: the questions scored so far, and a summary of them only. */
  partial: boolean;
  /** Questions in the file's pairing (all of them, however many were scored). */
  total: number;
  metrics: string[];
  /** The run as `ves-lens eval --json` writes it: what Export JSON saves, and what Compare reads back. */
  report: EvalReportDocument;
}

/** An eval report, the document `ves-lens eval --json` writes (tool, complete, inputs, summary, problems, questions). */
export type EvalReportDocument = EvalReportJson & { complete: boolean };

export interface EvaluationProgressValue {
  message: string;
  percentage: number;
  /** Questions whose result became final since the last report. */
  rows: ReportRow[];
}

export const EvaluateFileRequest = new RequestType<EvaluateFileParams, EvaluateFileResult, void>('vesLens/evaluateFile');
/** Results of an evaluation as they become final (the report keeps them if the run is cancelled). */
export const EvaluationProgress = new ProgressType<EvaluationProgressValue>();

/** Eval JSON reports of the same question file compared, as `ves-lens compare` does (the first is the baseline). */
export interface CompareReportsParams {
  files: string[];
}

export interface CompareReportsResult {
  /** core's comparison page (`ves-lens compare --html`): self-contained, its own table script inline. */
  html: string;
  /** Each file's short name in the page, in the order given. */
  labels: string[];
  /** Questions compared (skipped in no run), of how many the reports hold. */
  compared: number;
  questions: number;
  /** The reports an interrupted run wrote (`"complete": false`), each said as "incomplete run: N of M questions". */
  incomplete?: string[];
}

export const CompareReportsRequest = new RequestType<CompareReportsParams, CompareReportsResult, void>('vesLens/compareReports');
