import { firstStatement, parameterCount, refusalReason } from '../sql/statements';
import { NUL_MESSAGE, QueryTimeout, ResultLimits, Row, TooManyRows } from './database';
import { DatabaseConnection } from './engine';

export type QueryFailure = { status: 'error' | 'timeout' | 'refused'; message: string };
export type QueryRun = { status: 'ok'; rows: Row[] } | QueryFailure;

const SEVERAL_STATEMENTS =
  'holds more than one statement; only one runs per entry (Python\'s sqlite3: "You can only execute one statement at a time.")';

/**
 * The statement an entry would run, or why it must not: a NUL character (Python's sqlite3 refuses those),
 * anything that would write or reach outside, or more than one statement (Python's sqlite3 refuses those too).
 * An empty body runs as "no rows", as Python's execute(" ") does.
 */
export function runnableBody(sql: string): { body: string } | QueryFailure {
  if (sql.includes('\0')) return { status: 'error', message: NUL_MESSAGE };
  const { body, hasMoreStatements } = firstStatement(sql);
  const reason = refusalReason(body);
  if (reason) return { status: 'refused', message: reason };
  if (hasMoreStatements) return { status: 'refused', message: SEVERAL_STATEMENTS };
  return { body };
}

export function describeFailure(error: unknown): QueryFailure {
  if (error instanceof QueryTimeout) return { status: 'timeout', message: error.message };
  if (error instanceof TooManyRows) return { status: 'error', message: error.message };
  return { status: 'error', message: (error as Error).message };
}

/** SQLite's compile error for a statement, without running it; undefined when it compiles. */
async function compileError(db: DatabaseConnection, body: string): Promise<QueryFailure | undefined> {
  try {
    await db.columnCount(body);
    return undefined;
  } catch (error) {
    return describeFailure(error);
  }
}

/**
 * What Python's sqlite3 would say before running an entry, in its order: a NUL character; then SQLite's
 * compile error for the first statement (so a Markdown fence or prose is a syntax error, not a refusal);
 * then more than one statement; then parameters with no values bound. Writes are refused before anything
 * is compiled. Otherwise the body to run.
 */
async function checkBeforeRunning(db: DatabaseConnection, sql: string): Promise<{ body: string } | QueryFailure> {
  if (sql.includes('\0')) return { status: 'error', message: NUL_MESSAGE };
  const { body, hasMoreStatements } = firstStatement(sql);
  const reason = refusalReason(body);
  if (reason) return { status: 'refused', message: reason };
  if (body === '') return hasMoreStatements ? { status: 'refused', message: SEVERAL_STATEMENTS } : { body };
  const parameters = parameterCount(body);
  if (hasMoreStatements || parameters > 0) {
    const failure = await compileError(db, body);
    if (failure) return failure;
    if (hasMoreStatements) return { status: 'refused', message: SEVERAL_STATEMENTS };
    return {
      status: 'error',
      message: `Incorrect number of bindings supplied. The current statement uses ${parameters}, and there are 0 supplied.`,
    };
  }
  return { body };
}

/** Runs one entry's statement on a read-only connection, handing each row to `onRow`, within the limits. */
export async function streamQuery(
  db: DatabaseConnection,
  sql: string,
  limits: ResultLimits,
  onRow: (row: Row) => void,
): Promise<{ status: 'ok' } | QueryFailure> {
  const runnable = await checkBeforeRunning(db, sql);
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
export async function readQuery(db: DatabaseConnection, sql: string, limits: ResultLimits): Promise<QueryRun> {
  const rows: Row[] = [];
  const run = await streamQuery(db, sql, limits, (row) => rows.push(row));
  return run.status === 'ok' ? { status: 'ok', rows } : run;
}
