/** What every request that runs SQL shares: which query on which database, and the first rows of a result. */

/**
 * One query on one database: SQL given outright or the statement at `uri` + `offset`, the database by id or path
 * (or from the document's `-- bird:` / `-- db:` comment, or the default database).
 */
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

/** The first rows of a query's result, with its column names: what a person compares first. */
export interface ResultPreview {
  columns: string[];
  rows: unknown[][];
  /** Rows the whole result has (when it ran to the end), and whether the preview shows them all. */
  rowCount: number | null;
  truncated: boolean;
  error?: string;
}
