/**
 * The optimize slice (issue 28): "Find a faster equivalent" of one statement, and the indexes that would speed it
 * (the Optimize panel). The search itself is core's (core/optimize/optimizeStatement.ts); this says what the
 * editor asks and what it gets back.
 */
import { RequestType } from 'vscode-languageserver-protocol';
import type { IndexVerdictView } from '../../app/statementPlan';
import type { StatementOptimization } from '../../core/optimize/types';
import type { QuestionInfo } from './dataset';
import type { QueryTarget } from './queries';

// An index's verdict as app/statementPlan.ts gives it for the Optimize panel.
export type { IndexVerdictView } from '../../app/statementPlan';

export type { KeptRewrite, RejectedCandidate, SpeedMeasurement, StatementOptimization } from '../../core/optimize/types';

/** Which statement on which database (as Explain names it); the search's bounds are the vesLens.optimize.* settings. */
export type OptimizeParams = QueryTarget;

/** The statement's place in its document when it came from one: what Apply replaces, if the document is still at `version`. */
export interface OptimizeSource {
  uri: string;
  version: number;
  /** 1-based line of the statement's start. */
  line: number;
}

/** Replacing the statement with the rewrite in its document (a .sql statement laid out as it was; a JSON string escaped). */
export interface OptimizeEdit {
  uri: string;
  version: number;
  start: number;
  end: number;
  text: string;
}

/** The bounds the search ran with (settings vesLens.optimize.*). */
export interface OptimizeBounds {
  /** Decided on a copy with this many times the rows (1: the database itself). */
  scale: number;
  budgetSeconds: number;
  timeoutSeconds: number;
  counterexampleSeconds: number;
}

export interface OptimizeResult {
  /** Core's verdict: status, the original's time, the best verified rewrite, what was tried and rejected. */
  optimization: StatementOptimization;
  /** The statement and the rewrite laid out the same way, for the diff (`rewrite` null when none was kept). */
  formatted: { original: string; rewrite: string | null };
  dbId?: string;
  /** The database searched on (a SQLite file, or a server's URL without password). */
  dbPath: string;
  /** The scaled copy measured on, when the scale is above 1. */
  scaledCopy?: string;
  question?: QuestionInfo;
  source?: OptimizeSource;
  /** The rewrite as an edit of the document (null: no rewrite kept, or the SQL was not from a document). */
  edit: OptimizeEdit | null;
  bounds: OptimizeBounds;
  /** What ran the SQL, in one line (no password). */
  engine: string;
  elapsedMs: number;
}

export const OptimizeRequest = new RequestType<OptimizeParams, OptimizeResult, void>('vesLens/optimize');

// ---- index advice: kept apart from rewrites (a gold cannot add an index) ---------------------------------

/** `measure`: time the query with each index the planner would use, on a temporary copy (the database is never written). */
export type IndexAdviceParams = QueryTarget & { measure?: boolean };

/** A statement's index advice, as the Optimize panel shows it. */
export interface IndexAdviceResult {
  sql: string;
  dbId?: string;
  measured: boolean;
  verdicts: IndexVerdictView[];
  /** No advice: why (unparsable SQL, a refused statement). */
  error?: string;
  /** Candidates listed but not checked (PostgreSQL without a scratch copy), and why. */
  unchecked?: { createSql: string[]; reason: string };
  /** How use was checked and the gain measured. */
  method?: string;
  engine: string;
  elapsedMs: number;
}

export const IndexAdviceRequest = new RequestType<IndexAdviceParams, IndexAdviceResult, void>('vesLens/indexAdvice');
