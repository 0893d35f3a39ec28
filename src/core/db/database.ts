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

/** Thrown for anything SQLite rejects; `message` is SQLite's own wording without the code prefix. */
export class SqliteError extends Error {}

export interface RunLimits {
  /** performance.now() value after which the query is interrupted. */
  deadline?: number;
  /** How long the whole budget was, for the timeout message. */
  budgetMs?: number;
}

function toSqliteError(error: Error): SqliteError {
  return new SqliteError(error.message.replace(/^SQLITE_[A-Z_]+: /, ''));
}

/** Name of the CTE that renames result columns c0..cN-1, so duplicate or numeric names keep every value in order. */
const RESULT_CTE = '"__ves_lens_result"';

/**
 * A read-only SQLite connection. Opened with SQLITE_OPEN_READONLY and `PRAGMA query_only`, so no statement it
 * runs can change the file; callers still refuse non-queries before running them (see sql/statements.ts).
 */
export class ReadOnlyDatabase {
  private interruptTimer: NodeJS.Timeout | undefined;
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
    const connection = new ReadOnlyDatabase(path, db);
    await connection.all('PRAGMA query_only = ON');
    return connection;
  }

  private static version: Promise<string> | undefined;

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
    return new Promise((resolve, reject) =>
      this.db.all(sql, (error, rows) => (error ? reject(toSqliteError(error)) : resolve(rows as Record<string, SqlValue>[]))),
    );
  }

  /** Interrupts whatever runs on this connection now (SQLite's sqlite3_interrupt). */
  interrupt(): void {
    this.interrupted = true;
    this.db.interrupt();
  }

  /** Arms an interrupt at the deadline; returns a disarm function. */
  private armDeadline(limits: RunLimits): () => void {
    this.interrupted = false;
    if (limits.deadline === undefined) return () => {};
    const remaining = Math.max(0, limits.deadline - performance.now());
    this.interruptTimer = setTimeout(() => this.interrupt(), remaining);
    return () => clearTimeout(this.interruptTimer);
  }

  private failure(error: Error, limits: RunLimits): Error {
    if (this.interrupted && /interrupt/i.test(error.message) && limits.deadline !== undefined) {
      return new QueryTimeout(limits.budgetMs ?? 0);
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
   * Streams every row of a query, values in column order, to `onRow`. A result of more than `maxRows` rows
   * aborts with TooManyRows. node-sqlite3 queues rows natively without back-pressure, so the cap is also put
   * in the SQL (LIMIT maxRows + 1): SQLite stops producing rows, and the queue stays bounded.
   */
  async streamRows(body: string, onRow: (row: Row) => void, limits: RunLimits & { maxRows: number }): Promise<number> {
    const columns = await this.columnCount(body);
    const sql =
      columns === undefined || columns === 0
        ? body
        : `WITH ${RESULT_CTE}(${Array.from({ length: columns }, (_, i) => `c${i}`).join(', ')}) AS (\n${body}\n) SELECT * FROM ${RESULT_CTE} LIMIT ${limits.maxRows + 1}`;
    let count = 0;
    let overflow = false;
    const disarm = this.armDeadline(limits);
    try {
      await this.eachRow(sql, (row) => {
        if (overflow) return;
        if (++count > limits.maxRows) {
          overflow = true;
          this.db.interrupt();
          return;
        }
        onRow(Object.values(row));
      });
    } catch (error) {
      if (overflow) throw new TooManyRows(limits.maxRows);
      throw this.failure(error as Error, limits);
    } finally {
      disarm();
    }
    if (overflow) throw new TooManyRows(limits.maxRows);
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
