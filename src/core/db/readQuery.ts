import { firstStatement, refusalReason } from '../sql/statements';
import { QueryTimeout, ReadOnlyDatabase, Row, RunLimits, TooManyRows } from './database';

export type QueryFailure = { status: 'error' | 'timeout' | 'refused'; message: string };
export type QueryRun = { status: 'ok'; rows: Row[] } | QueryFailure;

/**
 * The statement an entry would run, or why it must not: more than one statement (Python's sqlite3 refuses
 * those too), or anything but a read query. An empty body runs as "no rows", as Python's execute(" ") does.
 */
export function runnableBody(sql: string): { body: string } | QueryFailure {
  const { body, hasMoreStatements } = firstStatement(sql);
  if (hasMoreStatements) return { status: 'refused', message: 'holds more than one statement; only one runs per entry' };
  const reason = refusalReason(body);
  return reason ? { status: 'refused', message: reason } : { body };
}

export function describeFailure(error: unknown): QueryFailure {
  if (error instanceof QueryTimeout) return { status: 'timeout', message: error.message };
  if (error instanceof TooManyRows) return { status: 'error', message: error.message };
  return { status: 'error', message: (error as Error).message };
}

/** Runs one entry's statement on a read-only connection, handing each row to `onRow`, within the limits. */
export async function streamQuery(db: ReadOnlyDatabase, sql: string, limits: RunLimits & { maxRows: number }, onRow: (row: Row) => void): Promise<{ status: 'ok' } | QueryFailure> {
  const runnable = runnableBody(sql);
  if ('status' in runnable) return runnable;
  if (runnable.body === '') return { status: 'ok' };
  try {
    await db.streamRows(runnable.body, onRow, limits);
    return { status: 'ok' };
  } catch (error) {
    return describeFailure(error);
  }
}

/** Runs one entry's statement and collects its rows, within the limits. */
export async function readQuery(db: ReadOnlyDatabase, sql: string, limits: RunLimits & { maxRows: number }): Promise<QueryRun> {
  const rows: Row[] = [];
  const run = await streamQuery(db, sql, limits, (row) => rows.push(row));
  return run.status === 'ok' ? { status: 'ok', rows } : run;
}
