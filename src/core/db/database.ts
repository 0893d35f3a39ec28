import * as fs from 'fs';
import * as sqlite3 from '@vscode/sqlite3';

/** A value as SQLite hands it over: INTEGER and REAL become numbers, TEXT strings, BLOB Buffers. */
export type SqlValue = number | string | Buffer | null;
export type Row = SqlValue[];

/** Thrown when a query is interrupted because its deadline passed. */
export class QueryTimeout extends Error {
  constructor(readonly limitMs: number) {
    super(`timed out after ${(limitMs / 1000).toFixed(1)} s`);
  }
}

/** Thrown when a result has more rows than the caller allows (memory stays bounded). */
export class TooManyRows extends Error {
  constructor(readonly maxRows: number) {
    super(`result has more than ${maxRows.toLocaleString('en-US')} rows (raise --max-rows to read it all)`);
  }
}

/** Thrown when a result holds more bytes than the caller allows (memory stays bounded). */
export class ResultTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`result holds more than ${Math.round(maxBytes / 2 ** 20)} MiB of values, counting ${VALUE_OVERHEAD_BYTES} bytes of overhead per value (VES Lens bounds one result so memory stays under 1 GiB)`);
  }
}

/** Thrown for anything SQLite rejects; `message` is SQLite's own wording without the code prefix. */
export class SqliteError extends Error {}

/**
 * SQL holding a NUL character never reaches SQLite: node-sqlite3 never calls back for it (the process would
 * end silently). CPython's sqlite3 refuses it with this message.
 */
const NUL_IN_SQL = 'the query contains a null character';

/**
 * What one query may take, whatever it does, so the process stays under 1 GiB. node-sqlite3 queues rows
 * natively with no back-pressure, so the bounds must hold inside SQLite, before a row reaches that queue.
 */
export const MEMORY_BOUNDS = {
  /** One string, blob or row (SQLite's SQLITE_LIMIT_LENGTH; Python's default is 1e9). */
  valueBytes: 32 * 2 ** 20,
  /** All values of one result together: counted in SQL as rows are produced. */
  resultBytes: 128 * 2 ** 20,
  /** SQLite's own heap, process-wide (PRAGMA hard_heap_limit): sorts and temp tables spill to disk below it. */
  heapBytes: 512 * 2 ** 20,
} as const;

export interface RunLimits {
  /** performance.now() value after which the query is interrupted. */
  deadline?: number;
  /** How long the whole budget was, for the timeout message. */
  budgetMs?: number;
  /** Interrupts the query when aborted (a cancelled editor request). */
  signal?: AbortSignal;
}

/** Thrown when a query is interrupted because its caller gave up (limits.signal). */
export class QueryCancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

function toSqliteError(error: Error): SqliteError {
  const message = error.message.replace(/^SQLITE_[A-Z_]+: /, '');
  if (/^SQLITE_TOOBIG/.test(error.message)) return new SqliteError(`${message} (VES Lens bounds one value or row at ${MEMORY_BOUNDS.valueBytes / 2 ** 20} MiB)`);
  if (/^SQLITE_NOMEM/.test(error.message)) return new SqliteError(`${message} (VES Lens bounds SQLite's heap at ${MEMORY_BOUNDS.heapBytes / 2 ** 20} MiB)`);
  return new SqliteError(message);
}

/** What one value costs in memory beyond its bytes (node-sqlite3's native row, the JavaScript value, its key). */
const VALUE_OVERHEAD_BYTES = 64;

/** Name of the CTE that renames result columns c0..cN-1, so duplicate or numeric names keep every value in order. */
const RESULT_CTE = '"__ves_lens_result"';

/**
 * A read-only SQLite connection. Opened with SQLITE_OPEN_READONLY and `PRAGMA query_only`, so no statement it
 * runs can change the file; callers still refuse non-queries before running them (see sql/statements.ts).
 */
export class ReadOnlyDatabase {
  private interrupted = false;

  private constructor(
    readonly path: string,
    private readonly db: sqlite3.Database,
  ) {}

  static async open(path: string): Promise<ReadOnlyDatabase> {
    if (!fs.existsSync(path)) throw new SqliteError(`database file not found: ${path}`);
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const handle = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (error) =>
        error ? reject(toSqliteError(error)) : resolve(handle),
      );
    });
    db.configure('limit', sqlite3.LIMIT_LENGTH, MEMORY_BOUNDS.valueBytes);
    const connection = new ReadOnlyDatabase(path, db);
    await connection.all('PRAGMA query_only = ON');
    // The heap limit is process-wide: set once (timing opens a connection per execution).
    ReadOnlyDatabase.heapLimited ??= connection.all(`PRAGMA hard_heap_limit = ${MEMORY_BOUNDS.heapBytes}`).then(() => undefined);
    await ReadOnlyDatabase.heapLimited;
    return connection;
  }

  /**
   * Times one execution on a fresh connection, opened outside the timed span as both official scripts do.
   * `first-row` is prepare plus the first step (DAMO's `cursor.execute()`; node-sqlite3's get(), since each()
   * hands its first row over late); `full` runs to the last row and closes the connection (mini_dev's
   * execute, fetchall and close).
   */
  static async timeExecution(path: string, body: string, quantity: 'first-row' | 'full', limits: RunLimits = {}): Promise<number> {
    const db = await ReadOnlyDatabase.open(path);
    let closed = false;
    try {
      const start = performance.now();
      if (quantity === 'first-row') {
        await db.firstRow(body, limits);
        return performance.now() - start;
      }
      await db.drain(body, limits);
      await db.close();
      closed = true;
      return performance.now() - start;
    } finally {
      if (!closed) await db.close();
    }
  }

  private static version: Promise<string> | undefined;
  private static heapLimited: Promise<void> | undefined;

  /** The SQLite library version the engine runs (plans and speed depend on it); asked once per process. */
  static sqliteVersion(): Promise<string> {
    ReadOnlyDatabase.version ??= new Promise<string>((resolve, reject) => {
      const db = new sqlite3.Database(':memory:');
      db.get('SELECT sqlite_version() AS v', (error, result: { v: string }) => {
        db.close();
        if (error) reject(error);
        else resolve(result.v);
      });
    });
    return ReadOnlyDatabase.version;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.db.close(() => resolve()));
  }

  /** Runs a statement to completion and returns its rows as objects (for trusted internal queries only). */
  all(sql: string): Promise<Record<string, SqlValue>[]> {
    if (sql.includes('\0')) return Promise.reject(new SqliteError(NUL_IN_SQL));
    return new Promise((resolve, reject) =>
      this.db.all(sql, (error, rows) => (error ? reject(toSqliteError(error)) : resolve(rows as Record<string, SqlValue>[]))),
    );
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
    const timer = limits.deadline === undefined ? undefined : setTimeout(() => this.interrupt(), Math.max(0, limits.deadline - performance.now()));
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
    return toSqliteError(error);
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

  /**
   * Runs `sql` through node-sqlite3's each(). That API reports a failure (an interrupt included) to the row
   * callback and calls its completion callback anyway, in either order; finalize() is queued behind the
   * each() on the same statement, so once it has called back the outcome is known for certain.
   */
  private eachRow(sql: string, onRow: (row: Record<string, SqlValue>) => void): Promise<void> {
    if (sql.includes('\0')) return Promise.reject(new SqliteError(NUL_IN_SQL));
    return new Promise<void>((resolve, reject) => {
      let failure: Error | undefined;
      let rowsDone = false;
      let finalized = false;
      const settle = () => {
        if (!finalized) return;
        if (failure) reject(failure);
        else if (rowsDone) resolve();
      };
      const statement = this.db.prepare(sql, (error) => {
        if (error) failure ??= error;
      });
      statement.each(
        (error, row: Record<string, SqlValue>) => {
          if (error) failure ??= error;
          else if (!failure) onRow(row);
        },
        () => {
          rowsDone = true;
          settle();
        },
      );
      statement.finalize(() => {
        finalized = true;
        settle();
      });
    });
  }

  /**
   * Streams every row of a query, values in column order, to `onRow`. node-sqlite3 queues rows natively
   * without back-pressure, so both bounds are put in the SQL, where SQLite stops producing rows: a LIMIT of
   * maxRows + 1 rows, and a running sum of the values' bytes that lets through the first row past
   * MEMORY_BOUNDS.resultBytes and nothing after it (the window keeps the rows' order; its record also makes
   * SQLite enforce the row-size bound). Past either bound the query is interrupted and fails.
   */
  async streamRows(body: string, onRow: (row: Row) => void, limits: RunLimits & { maxRows: number; maxBytes?: number }): Promise<number> {
    const columns = await this.columnCount(body);
    const maxBytes = limits.maxBytes ?? MEMORY_BOUNDS.resultBytes;
    let sql = body;
    if (columns !== undefined && columns > 0) {
      const names = Array.from({ length: columns }, (_, i) => `c${i}`);
      // Each value also costs its native and JavaScript representation, whatever its length: a wide result of
      // small values fills memory as surely as a narrow one of large values.
      const rowBytes = `${names.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 0)`).join(' + ')} + ${VALUE_OVERHEAD_BYTES * columns}`;
      sql =
        `WITH ${RESULT_CTE}(${names.join(', ')}) AS (\n${body}\n)\n` +
        `SELECT * FROM (SELECT *, sum(${rowBytes}) OVER (ROWS UNBOUNDED PRECEDING) AS "__bytes", ${rowBytes} AS "__row_bytes" FROM ${RESULT_CTE}) ` +
        `WHERE "__bytes" - "__row_bytes" <= ${maxBytes} LIMIT ${limits.maxRows + 1}`;
    }
    let count = 0;
    let overflow: Error | undefined;
    const disarm = this.armDeadline(limits);
    try {
      await this.eachRow(sql, (row) => {
        if (overflow) return;
        const values = Object.values(row);
        if (++count > limits.maxRows) overflow = new TooManyRows(limits.maxRows);
        else if (columns && (values[columns] as number) > maxBytes) overflow = new ResultTooLarge(maxBytes);
        if (overflow) {
          this.db.interrupt();
          return;
        }
        onRow(columns ? values.slice(0, columns) : values);
      });
    } catch (error) {
      if (overflow) throw overflow;
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
  firstRow(body: string, limits: RunLimits = {}): Promise<void> {
    if (body.includes('\0')) return Promise.reject(new SqliteError(NUL_IN_SQL));
    const disarm = this.armDeadline(limits);
    return new Promise<void>((resolve, reject) => {
      this.db.get(body, (error) => {
        disarm();
        if (error) reject(this.failure(error, limits));
        else resolve();
      });
    });
  }
}
