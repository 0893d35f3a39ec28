/** The plan slice: explain one query (its plan cards) and time it alone (the Plan panel). */
import { RequestType } from 'vscode-languageserver-protocol';
import type { TimedAlone } from '../../app/queryRuns';
import type { PlanView } from '../../app/statementPlan';
import type { QuestionInfo } from './dataset';
import type { QueryTarget, ResultPreview } from './queries';

// A plan's cards and two plans side by side, as app/statementPlan.ts makes them for the Plan and Score panels.
export type { AlignedPlanRow, PlanComparison, PlanDifferenceView, PlanNodeView, PlanView } from '../../app/statementPlan';

/** `analyze`: run the query too and measure each step (PostgreSQL's EXPLAIN ANALYZE, read-only, within the time limit). */
export type ExplainParams = QueryTarget & { analyze?: boolean };

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
  /** What ran the SQL, in one line (DatasetSummary's engine line: engine, version, embedded or server, no password). */
  engine: string;
}

export type TimeQueryParams = QueryTarget;

/** One query timed on its own: milliseconds per full execution (fresh connection each time), with an interval. */
export interface TimeQueryResult extends TimedAlone {
  question?: QuestionInfo;
  sql: string;
  formattedSql: string;
  dbId?: string;
  preview: ResultPreview;
  plan: PlanView;
  error?: string;
  sqlite: string;
  /** What ran the SQL, in one line (DatasetSummary's engine line: engine, version, embedded or server, no password). */
  engine: string;
}

export const ExplainRequest = new RequestType<ExplainParams, ExplainResult, void>('vesLens/explain');
export const TimeQueryRequest = new RequestType<TimeQueryParams, TimeQueryResult, void>('vesLens/timeQuery');
