import { ResultLimits, Row } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { QueryFailure, readQuery, runnableBody } from '../db/readQuery';
import { ResultView } from './resultTable';

/** A query's whole result for the judge: every row (for the equality rule), its column names, and a view to show. */
export interface JudgedResult extends ResultView {
  rows: Row[];
}

export type JudgedRun = { status: 'ok'; result: JudgedResult } | QueryFailure;

/** A column name that is a bare number, as a literal's column is named (`SELECT 1, 2`). */
const NUMBER_NAME = /^(0|[1-9]\d{0,9})$/;

/**
 * The result's column names, from the engine's one result-columns reader (the editor's preview and SQLMorph's
 * techniques use the same). A column named by a bare number is shown by its position instead, as the judge
 * always has: above a column of numbers it reads like a value. Where the names cannot be read, the columns
 * are numbered.
 */
async function columnNames(db: DatabaseConnection, body: string, width: number, hasRows: boolean, timeoutMs: number): Promise<string[]> {
  const numbered = Array.from({ length: width }, (_, i) => `column ${i + 1}`);
  try {
    const { names } = await db.resultColumns(body, { hasRows, deadline: performance.now() + timeoutMs });
    return names.length !== width || names.some((name) => NUMBER_NAME.test(name)) ? numbered : names;
  } catch {
    return numbered;
  }
}

/**
 * Runs one entry read-only within a time limit and a row cap (the engine's readQuery: writes and several
 * statements refused, Python's messages), then reads its column names. An entry with no statement at all is
 * a failure here: it answers nothing.
 */
export async function runForJudge(
  db: DatabaseConnection,
  sql: string,
  limits: { timeoutMs: number; maxRows: number; maxBytes?: number; signal?: AbortSignal },
): Promise<JudgedRun> {
  const runnable = runnableBody(sql);
  if ('status' in runnable) return runnable;
  if (runnable.body.trim() === '') return { status: 'error', message: 'the SQL is empty' };
  const resultLimits: ResultLimits = {
    deadline: performance.now() + limits.timeoutMs,
    budgetMs: limits.timeoutMs,
    maxRows: limits.maxRows,
    maxBytes: limits.maxBytes,
    signal: limits.signal,
  };
  const run = await readQuery(db, sql, resultLimits);
  if (run.status !== 'ok') return run;
  const width = run.rows[0]?.length ?? (await db.columnCount(runnable.body).catch(() => undefined)) ?? 0;
  const columns = await columnNames(db, runnable.body, width, run.rows.length > 0, limits.timeoutMs);
  return { status: 'ok', result: { columns, rows: run.rows, rowCount: run.rows.length, head: run.rows.slice(0, 20) } };
}
