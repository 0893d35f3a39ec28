import * as fs from 'fs';
import {
  DatabaseError,
  DatabaseLocked,
  MEMORY_BOUNDS,
  NUL_MESSAGE,
  QueryCancelled,
  QueryTimeout,
  ResultTooLarge,
  Row,
  RunLimits,
  SqlValue,
  TooManyRows,
  VALUE_OVERHEAD_BYTES,
} from '../database';
import { ColumnNames, DatabaseConnection, DatabaseEngine, SameWork } from '../engine';
import { PlanNode } from '../planTree';
import { SchemaInfo } from '../schema';
import { tokensOf } from '../../sql/lexer';
import { planTreeOfRecords } from './queryPlan';
import { sqliteResultColumns } from './resultColumns';
import { readSqliteSchema } from './sqliteSchema';
import { sqliteBuild } from './sqliteBuild';
import { PREPARE_FAILURES, SqliteHandle, SqliteRecord } from './sqliteHandle';
import { walOnReadOnlyFolder } from './walOnReadOnly';

/** Maps a driver error to a DatabaseError: SQLite's own wording without the `SQLITE_CODE: ` prefix, and why a bound was hit. */
export function toDatabaseError(error: Error): DatabaseError {
  const message = error.message.replace(/^SQLITE_[A-Z_]+: /, '');
  const mib = (bytes: number) => bytes / 2 ** 20;
  if (/^SQLITE_TOOBIG: statement too long/.test(error.message))
    return new DatabaseError(`${message} (VES Lens compiles at most ${mib(SQL_LENGTH_LIMIT)} MiB of SQL)`);
  if (/^SQLITE_TOOBIG/.test(error.message)) {
    return new DatabaseError(`${message} (VES Lens bounds one value or row at ${mib(MEMORY_BOUNDS.valueBytes)} MiB)`);
  }
  if (/^SQLITE_NOMEM/.test(error.message))
    return new DatabaseError(`${message} (VES Lens bounds SQLite's heap at ${mib(MEMORY_BOUNDS.heapBytes)} MiB)`);
  if (/^SQLITE_BUSY/.test(error.message))
    return new DatabaseLocked(`${message}: another process held a lock on it for longer than the busy timeout (${busyTimeoutMs / 1000} s)`);
  return new DatabaseError(message);
}

/**
 * SQLite compiles no longer statement (every path, not only the entries readQuery.ts bounds first): an entry's
 * bound, with room for the wrapper streamRows puts around it (at most MAX_RESULT_COLUMNS columns' worth).
 */
const SQL_LENGTH_LIMIT = MEMORY_BOUNDS.statementBytes + 2 ** 20;

/** How long a connection waits on a database another process has locked: Python's sqlite3.connect(timeout=5.0). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
let busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS;

/**
 * Sets the busy timeout of every SQLite connection opened from now on (process-wide, as the heap limit: timing
 * opens a connection per execution). SQLite's busy handler also waits on read-only connections.
 */
export function setBusyTimeout(ms: number): void {
  busyTimeoutMs = ms;
}

/** Name of the CTE that renames result columns c0..cN-1, so duplicate or numeric names keep every value in order. */
const RESULT_CTE = '"__ves_lens_result"';
/** SQLite's error when the CTE names fewer or more columns than the query has: the first number is the query's. */
const COLUMN_MISMATCH = /^SQLITE_ERROR: table __ves_lens_result has (\d+) values for \d+ columns$/;

/**
 * SQLite's default limit on a result's columns (SQLITE_MAX_COLUMN): a wider guess could never compile, and its
 * wrapper text alone would grow with the prediction (a 31 MB `SELECT 1,1,…` names millions of columns).
 */
const MAX_RESULT_COLUMNS = 2000;

/**
 * `a + b + c + …` nested as a balanced tree: a flat sum is as deep as it is long, and SQLite refuses an expression
 * deeper than 1,000, which would fail a 1,000-column result that Python's sqlite3 reads.
 */
function balancedSum(terms: readonly string[]): string {
  if (terms.length === 1) return terms[0];
  const middle = Math.ceil(terms.length / 2);
  return `(${balancedSum(terms.slice(0, middle))} + ${balancedSum(terms.slice(middle))})`;
}

/** Words that end a SELECT's result columns. */
const AFTER_RESULT_COLUMNS = new Set(['from', 'where', 'group', 'having', 'window', 'order', 'limit', 'union', 'intersect', 'except']);

/**
 * How many columns the bounded form should name at first: one more than the commas of the first top-level SELECT's
 * result columns (1 when it has a `*`, or is no SELECT: SQLite then says how many). Undefined when the query's
 * parentheses do not all pair up (strings, quoted names and comments aside): in the bounded form it could close
 * the wrapper's parenthesis and compile where it alone would not, so it goes the long way; undefined too past
 * MAX_RESULT_COLUMNS, where SQLite's own error is the answer.
 */
function boundedFormGuess(body: string): number | undefined {
  let depth = 0;
  let state: 'before' | 'columns' | 'after' = 'before';
  let commas = 0;
  let star = false;
  for (const token of tokensOf(body)) {
    if (token.kind === 'punct') {
      if (token.text === '(') depth++;
      else if (token.text === ')' && --depth < 0) return undefined;
      else if (depth === 0 && state === 'columns') {
        if (token.text === ',' && ++commas >= MAX_RESULT_COLUMNS) return undefined;
        else if (token.text === '*') star = true;
      }
    } else if (token.kind === 'word' && depth === 0) {
      const word = token.text.toLowerCase();
      if (state === 'before' && word === 'select') state = 'columns';
      else if (state === 'columns' && AFTER_RESULT_COLUMNS.has(word)) state = 'after';
    }
  }
  if (depth !== 0) return undefined;
  return state === 'before' || star ? 1 : commas + 1;
}

export interface SqliteOpenOptions {
  /**
   * `PRAGMA query_only` (default on). Only the result-column reader turns it off, on a connection of its own:
   * it creates a TEMP view, which lives in memory; the file stays opened read-only.
   */
  queryOnly?: boolean;
}

/**
 * A read-only SQLite connection. Opened with SQLITE_OPEN_READONLY and `PRAGMA query_only`, so no statement it
 * runs can change the file; callers still refuse non-queries before running them (see sql/statements.ts).
 */
export class SqliteConnection implements DatabaseConnection {
  private interrupted = false;
  private static heapLimited: Promise<void> | undefined;

  private constructor(
    readonly engine: DatabaseEngine,
    readonly path: string,
    private readonly db: SqliteHandle,
    readonly openedFile: { dev: bigint; ino: bigint } | undefined,
  ) {}

  static async open(engine: DatabaseEngine, path: string, options: SqliteOpenOptions = {}): Promise<SqliteConnection> {
    if (!fs.existsSync(path)) throw new DatabaseError(`database file not found: ${path}`);
    const walProblem = walOnReadOnlyFolder(path);
    if (walProblem) throw new DatabaseError(`unable to open database file: ${walProblem}`);
    const db = await sqliteBuild()
      .driver.open(path, { lengthLimit: MEMORY_BOUNDS.valueBytes, sqlLengthLimit: SQL_LENGTH_LIMIT, busyTimeoutMs })
      .catch((error: Error) => Promise.reject(toDatabaseError(error)));
    // Which file this connection reads (stat, never open: closing another descriptor of the database file would
    // drop SQLite's POSIX locks on it).
    const stat = fs.statSync(path, { bigint: true, throwIfNoEntry: false });
    const connection = new SqliteConnection(engine, path, db, stat && { dev: stat.dev, ino: stat.ino });
    if (options.queryOnly !== false) await connection.all('PRAGMA query_only = ON');
    // The heap limit is process-wide: set once (timing opens a connection per execution).
    SqliteConnection.heapLimited ??= connection.all(`PRAGMA hard_heap_limit = ${MEMORY_BOUNDS.heapBytes}`).then(() => undefined);
    await SqliteConnection.heapLimited;
    return connection;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  all(sql: string): Promise<Record<string, SqlValue>[]> {
    if (sql.includes('\0')) return Promise.reject(new DatabaseError(NUL_MESSAGE));
    return this.db.all(sql).catch((error: Error) => Promise.reject(toDatabaseError(error)));
  }

  /** SQLite reads a file's header and schema lazily: counting sqlite_master makes it read both now. */
  async checkReadable(): Promise<void> {
    await this.all('SELECT count(*) FROM sqlite_master');
  }

  /** SQLite's `PRAGMA reverse_unordered_selects`: it changes no data, so `query_only` allows it. */
  async setUnorderedScans(order: 'forward' | 'reversed'): Promise<void> {
    await this.all(`PRAGMA reverse_unordered_selects = ${order === 'reversed' ? 'ON' : 'OFF'}`);
  }

  /** Interrupts whatever runs on this connection now (SQLite's sqlite3_interrupt). */
  interrupt(): void {
    this.interrupted = true;
    this.db.interrupt();
  }

  /** Arms an interrupt at the deadline and on the caller's abort signal; returns a disarm function. */
  private armDeadline(limits: RunLimits): () => void {
    this.interrupted = false;
    const onAbort = () => this.interrupt();
    limits.signal?.addEventListener('abort', onAbort);
    if (limits.signal?.aborted) this.interrupt();
    const timer =
      limits.deadline === undefined ? undefined : setTimeout(() => this.interrupt(), Math.max(0, limits.deadline - performance.now()));
    return () => {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
    };
  }

  private failure(error: Error, limits: RunLimits): Error {
    if (this.interrupted && /interrupt/i.test(error.message)) {
      if (limits.signal?.aborted) return new QueryCancelled();
      if (limits.deadline !== undefined) return new QueryTimeout(limits.budgetMs ?? 0);
    }
    return toDatabaseError(error);
  }

  /**
   * Number of result columns of a query, read from its compiled program (the ResultRow opcode) without
   * running it. Compile errors (syntax, unknown column) surface here with SQLite's message.
   */
  async columnCount(body: string): Promise<number | undefined> {
    const program = await this.all(`EXPLAIN ${body}`);
    const resultRow = program.find((op) => op.opcode === 'ResultRow');
    return resultRow ? Number(resultRow.p2) : undefined;
  }

  /** Runs `sql` through the driver's each(): every row in order, or the first failure. */
  private eachRow(sql: string, onRow: (row: SqliteRecord) => void): Promise<void> {
    if (sql.includes('\0')) return Promise.reject(new DatabaseError(NUL_MESSAGE));
    return this.db.each(sql, onRow);
  }

  /**
   * Streams every row of a query, values in column order, to `onRow`. node-sqlite3 queues rows natively
   * without back-pressure, so both bounds are put in the SQL, where SQLite stops producing rows: a LIMIT of
   * maxRows + 1 rows, and a running sum of the values' bytes that lets through the first row past
   * MEMORY_BOUNDS.resultBytes and nothing after it (the window keeps the rows' order; its record also makes
   * SQLite enforce the row-size bound). Past either bound the query is interrupted and fails.
   *
   * The bounded form names the result's columns, so it needs their number. Compiling the query once more to read
   * it (columnCount) costs about as much as a small query itself; instead the bounded form is tried with the
   * number its text suggests (boundedFormGuess), and SQLite's "has N values for M columns" gives the number when
   * that is wrong. A query that fails to compile that way (or whose parentheses could close the wrapper's) goes the
   * long way, so its error and its rows are the same either way.
   */
  async streamRows(body: string, onRow: (row: Row) => void, limits: RunLimits & { maxRows: number; maxBytes?: number }): Promise<number> {
    let guess = boundedFormGuess(body);
    for (let attempt = 0; guess !== undefined && attempt < 2; attempt++) {
      const run = await this.streamBounded(body, guess, onRow, limits, true);
      if (typeof run === 'number') return run;
      const stated = COLUMN_MISMATCH.exec(run.message);
      guess = stated && Number(stated[1]) <= MAX_RESULT_COLUMNS ? Number(stated[1]) : undefined;
    }
    return (await this.streamBounded(body, await this.columnCount(body), onRow, limits, false)) as number;
  }

  /**
   * streamRows with the column count known (undefined or 0: the query runs as it is). `guessing`: a failure to
   * compile, before any row and not an interrupt, is returned rather than thrown, for streamRows to try again.
   *
   * Rows come through each(), one call per row, rather than all(): all() would save those calls, but node-sqlite3
   * frees the rows it collected only as it hands them over, so a query failing after some rows (a timeout, a
   * runtime error) would leak them natively, up to the byte bound each time.
   */
  private async streamBounded(
    body: string,
    columns: number | undefined,
    onRow: (row: Row) => void,
    limits: RunLimits & { maxRows: number; maxBytes?: number },
    guessing: boolean,
  ): Promise<number | Error> {
    const maxBytes = limits.maxBytes ?? MEMORY_BOUNDS.resultBytes;
    const bounded = columns !== undefined && columns > 0;
    let sql = body;
    if (bounded) {
      const names = Array.from({ length: columns }, (_, i) => `c${i}`);
      // Each value also costs its native and JavaScript representation, whatever its length: a wide result of
      // small values fills memory as surely as a narrow one of large values.
      const rowBytes = `${balancedSum(names.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 0)`))} + ${VALUE_OVERHEAD_BYTES * columns}`;
      sql =
        `WITH ${RESULT_CTE}(${names.join(', ')}) AS (\n${body}\n)\n` +
        `SELECT * FROM (SELECT *, sum(${rowBytes}) OVER (ROWS UNBOUNDED PRECEDING) AS "__bytes", ${rowBytes} AS "__row_bytes" ` +
        `FROM ${RESULT_CTE}) WHERE "__bytes" - "__row_bytes" <= ${maxBytes} LIMIT ${limits.maxRows + 1}`;
    }
    let count = 0;
    let overflow: Error | undefined;
    const disarm = this.armDeadline(limits);
    try {
      await this.eachRow(sql, (row) => {
        if (overflow) return;
        const values = Object.values(row);
        if (++count > limits.maxRows) overflow = new TooManyRows(limits.maxRows);
        else if (bounded && (values[columns] as number) > maxBytes) overflow = new ResultTooLarge(maxBytes);
        if (overflow) {
          this.db.interrupt();
          return;
        }
        if (bounded) values.length = columns; // "__bytes" and "__row_bytes" dropped in place, not copied
        onRow(values);
      });
    } catch (error) {
      if (overflow) throw overflow;
      if (guessing && count === 0 && !this.interrupted && PREPARE_FAILURES.has(error as Error)) return error as Error;
      throw this.failure(error as Error, limits);
    } finally {
      disarm();
    }
    if (overflow) throw overflow;
    return count;
  }

  /** Runs a query to its end, discarding rows; resolves when SQLite has stepped through all of them. */
  async drain(body: string, limits: RunLimits = {}): Promise<void> {
    const disarm = this.armDeadline(limits);
    try {
      await this.eachRow(body, () => {});
    } catch (error) {
      throw this.failure(error as Error, limits);
    } finally {
      disarm();
    }
  }

  /** Prepares a query and steps it once, as Python's cursor.execute() does for a SELECT. */
  async firstRow(body: string, limits: RunLimits = {}): Promise<void> {
    await this.firstRecord(body, limits);
  }

  /** The first row of a query as an object keyed by column name (undefined for an empty result). */
  firstRecord(body: string, limits: RunLimits = {}): Promise<Record<string, SqlValue> | undefined> {
    if (body.includes('\0')) return Promise.reject(new DatabaseError(NUL_MESSAGE));
    const disarm = this.armDeadline(limits);
    return this.db.get(body).then(
      (row) => (disarm(), row),
      (error: Error) => (disarm(), Promise.reject(this.failure(error, limits))),
    );
  }

  /** Read on a connection of its own, so the TEMP view it needs never meets query_only nor another caller's query. */
  async resultColumns(body: string, options: { hasRows: boolean; deadline?: number }): Promise<ColumnNames> {
    const naming = await SqliteConnection.open(this.engine, this.path, { queryOnly: false });
    try {
      return await sqliteResultColumns(naming, body, options);
    } finally {
      await naming.close();
    }
  }

  async explainPlan(body: string): Promise<PlanNode[]> {
    return planTreeOfRecords(await this.all(`EXPLAIN QUERY PLAN ${body}`));
  }

  /** The compiled program of a query as text: every opcode with all its operands (EXPLAIN's listing). */
  private async program(body: string): Promise<string> {
    const ops = await this.all(`EXPLAIN ${body}`);
    const operand = (value: SqlValue | undefined) => (value === null ? '∅' : String(value));
    return ops.map((op) => [op.opcode, op.p1, op.p2, op.p3, op.p4, op.p5].map(operand).join('\u0001')).join('\n');
  }

  /**
   * Same work when both compile to exactly the same SQLite program (opcodes and all operands, literals
   * included). Different text with the same program (spacing, case, aliases) counts; a different literal
   * does not. A query that does not compile is never the same.
   */
  async sameWork(a: string, b: string): Promise<SameWork> {
    try {
      return (await this.program(a)) === (await this.program(b)) ? 'same' : 'different';
    } catch {
      return 'different';
    }
  }

  readSchema(): Promise<SchemaInfo> {
    return readSqliteSchema(this);
  }
}
