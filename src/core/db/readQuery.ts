import { firstStatement, parameterCount, refusalReason, splitStatements, SqlDialect } from '../sql/statements';
import { DatabaseLocked, MEMORY_BOUNDS, NUL_MESSAGE, QueryTimeout, ResultLimits, Row, ServerUnavailable, TooManyRows } from './database';
import { DatabaseConnection, DatabaseEngine } from './engine';
import { plannerEstimate } from './planTree';

/**
 * `serverUnavailable`: the server went away (or cannot be reached), so nothing else can run on it either.
 * `locked`: another process held the database past the busy timeout; the query itself may be fine.
 */
export type QueryFailure = { status: 'error' | 'timeout' | 'refused' | 'locked'; message: string; serverUnavailable?: true };
export type QueryRun = { status: 'ok'; rows: Row[] } | QueryFailure;

const SEVERAL_STATEMENTS =
  'holds more than one statement; only one runs per entry (Python\'s sqlite3: "You can only execute one statement at a time.")';

/** The dialect whose statement rules apply on an engine's connections. */
export function dialectOf(engine: DatabaseEngine): SqlDialect {
  return engine.name === 'postgres' ? 'postgres' : engine.name === 'mysql' ? 'mysql' : 'sqlite';
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * An entry past MEMORY_BOUNDS.statementBytes is refused before anything reads it (the lexer, the engine): on every
 * engine, so a score means the same on each. Undefined when it is within the bound.
 */
export function tooLongToRun(sql: string): QueryFailure | undefined {
  const bound = MEMORY_BOUNDS.statementBytes;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a text near the bound is measured.
  const bytes = sql.length * 3 <= bound ? 0 : Buffer.byteLength(sql, 'utf8');
  if (bytes <= bound) return undefined;
  return {
    status: 'refused',
    message:
      `the SQL has ${count(bytes)} bytes, past the ${count(bound)} VES Lens runs (compiling it could take 150 times as ` +
      `much memory; BIRD's longest query has 3.5 thousand characters): not run`,
  };
}

/** psycopg2's message for an entry that holds no statement (it scores 0 where Python's sqlite3 returns no rows). */
const EMPTY_QUERY = "can't execute an empty query";

/**
 * PostgreSQL's rules for an entry, as psycopg2 sends it: the whole text at once, every statement run in turn
 * and the last one's rows returned; an entry with no statement fails. Each statement must be a read query.
 */
function runnableStatements(sql: string): { statements: string[] } | QueryFailure {
  if (sql.includes('\0')) return { status: 'error', message: NUL_MESSAGE };
  const statements = splitStatements(sql).map((span) => span.text);
  if (statements.length === 0) return { status: 'error', message: EMPTY_QUERY };
  for (const statement of statements) {
    const reason = refusalReason(statement, 'postgres');
    if (reason) return { status: 'refused', message: reason };
  }
  return { statements };
}

/**
 * The statement an entry would run, or why it must not: a NUL character (Python's sqlite3 refuses those),
 * anything that would write or reach outside, or more than one statement (Python's sqlite3 refuses those too).
 * An empty body runs as "no rows", as Python's execute(" ") does. On PostgreSQL: the entry's statements as
 * one text, as psycopg2 sends them (runnableStatements).
 */
export function runnableBody(sql: string, dialect: SqlDialect = 'sqlite'): { body: string } | QueryFailure {
  const tooLong = tooLongToRun(sql);
  if (tooLong) return tooLong;
  if (dialect === 'mysql') return mysqlRunnable(sql);
  if (dialect === 'postgres') {
    const runnable = runnableStatements(sql);
    return 'status' in runnable ? runnable : { body: runnable.statements.join(';\n') };
  }
  if (sql.includes('\0')) return { status: 'error', message: NUL_MESSAGE };
  const { body, hasMoreStatements } = firstStatement(sql);
  const reason = refusalReason(body);
  if (reason) return { status: 'refused', message: reason };
  if (hasMoreStatements) return { status: 'refused', message: SEVERAL_STATEMENTS };
  return { body };
}

/**
 * MySQL's rules for an entry, as pymysql sends it: the whole text in one COM_QUERY, without multi-statements, so
 * the server itself fails an entry of two statements (a trailing `;` is fine) and an empty one ("Query was
 * empty"). The text is sent as written (MySQL's backslash escapes and `#` comments are the server's to read);
 * each statement found must be a read query.
 */
function mysqlRunnable(sql: string): { body: string } | QueryFailure {
  if (sql.includes('\0')) return { status: 'error', message: NUL_MESSAGE };
  if (sql.trim() === '') return { status: 'error', message: 'Query was empty' };
  for (const span of splitStatements(sql)) {
    const reason = refusalReason(span.text, 'mysql');
    if (reason) return { status: 'refused', message: reason };
  }
  return { body: sql };
}

export function describeFailure(error: unknown): QueryFailure {
  if (error instanceof QueryTimeout) return { status: 'timeout', message: error.message };
  if (error instanceof DatabaseLocked) return { status: 'locked', message: error.message };
  if (error instanceof ServerUnavailable) return { status: 'error', message: error.message, serverUnavailable: true };
  if (error instanceof TooManyRows) return { status: 'error', message: error.message };
  return { status: 'error', message: (error as Error).message };
}

/** The engine's compile error for a statement, without running it; undefined when it compiles. */
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
  const tooLong = tooLongToRun(sql);
  if (tooLong) return tooLong;
  const dialect = dialectOf(db.engine);
  if (dialect === 'postgres') return streamStatements(db, sql, limits, onRow);
  const runnable = dialect === 'mysql' ? mysqlRunnable(sql) : await checkBeforeRunning(db, sql);
  if ('status' in runnable) return runnable;
  if (runnable.body === '') return { status: 'ok' };
  try {
    await db.streamRows(runnable.body, onRow, limits);
    return { status: 'ok' };
  } catch (error) {
    return describeFailure(error);
  }
}

/**
 * An entry on PostgreSQL: every statement runs in turn under the shared limits; the last one's rows are streamed.
 * The server parses a whole entry before running any of it, so several statements are each compiled first: a
 * syntax error anywhere (a Markdown fence after the query) fails the entry before anything runs.
 */
async function streamStatements(
  db: DatabaseConnection,
  sql: string,
  limits: ResultLimits,
  onRow: (row: Row) => void,
): Promise<{ status: 'ok' } | QueryFailure> {
  const runnable = runnableStatements(sql);
  if ('status' in runnable) return runnable;
  const { statements } = runnable;
  try {
    if (statements.length > 1) for (const statement of statements) await db.columnCount(statement);
    for (const statement of statements.slice(0, -1)) await db.drain(statement, limits);
    await db.streamRows(statements[statements.length - 1], onRow, limits);
    return { status: 'ok' };
  } catch (error) {
    return describeFailure(error);
  }
}

/**
 * A server entry's statements as its driver sends them (PostgreSQL's each in turn, MySQL's whole text as one), or
 * why it fails before any runs: too long, or refused.
 */
function serverStatements(sql: string, dialect: Exclude<SqlDialect, 'sqlite'>): { statements: string[] } | QueryFailure {
  const tooLong = tooLongToRun(sql);
  if (tooLong) return tooLong;
  if (dialect === 'postgres') return runnableStatements(sql);
  const runnable = mysqlRunnable(sql);
  return 'status' in runnable ? runnable : { statements: [runnable.body] };
}

/**
 * Why an entry fails before anything of it runs, found without running it: what streamQuery refuses, or the
 * engine's compile error (syntax, an unknown table or column) for its statement, or for each of PostgreSQL's.
 * Undefined when it compiles; it may still fail while running. SQLite's own order of checks is checkBeforeRunning's.
 */
export async function failsBeforeRunning(db: DatabaseConnection, sql: string): Promise<QueryFailure | undefined> {
  const dialect = dialectOf(db.engine);
  if (dialect === 'sqlite') {
    const tooLong = tooLongToRun(sql);
    if (tooLong) return tooLong;
    const runnable = await checkBeforeRunning(db, sql);
    if ('status' in runnable) return runnable;
    return runnable.body === '' ? undefined : compileError(db, runnable.body);
  }
  const runnable = serverStatements(sql, dialect);
  if ('status' in runnable) return runnable;
  for (const statement of runnable.statements) {
    const failure = await compileError(db, statement);
    if (failure) return failure;
  }
  return undefined;
}

/**
 * The server planner's estimate of an entry's work (planTree.ts's plannerEstimate), nothing run: 0 when it fails
 * before running, undefined on SQLite, whose plans carry no estimates.
 */
export async function plannedWork(db: DatabaseConnection, sql: string): Promise<number | undefined> {
  const dialect = dialectOf(db.engine);
  if (dialect === 'sqlite') return undefined;
  const runnable = serverStatements(sql, dialect);
  if ('status' in runnable) return 0;
  let work = 0;
  for (const statement of runnable.statements) {
    try {
      work += plannerEstimate(await db.explainPlan(statement));
    } catch {
      return 0;
    }
  }
  return work;
}

/** Runs one entry's statement and collects its rows, within the limits. */
export async function readQuery(db: DatabaseConnection, sql: string, limits: ResultLimits): Promise<QueryRun> {
  const rows: Row[] = [];
  const run = await streamQuery(db, sql, limits, (row) => rows.push(row));
  return run.status === 'ok' ? { status: 'ok', rows } : run;
}
