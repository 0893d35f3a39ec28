import { Connection, createConnection, FieldPacket, Query } from 'mysql2';
import {
  DatabaseError,
  MEMORY_BOUNDS,
  NUL_MESSAGE,
  QueryCancelled,
  QueryTimeout,
  ResultTooLarge,
  Row,
  RunLimits,
  ServerUnavailable,
  SqlValue,
  TooManyRows,
} from '../database';
import { ColumnNames, DatabaseConnection, DatabaseEngine, SameWork } from '../engine';
import { MeasuredPlanTree, PlanNode } from '../planTree';
import { rowBytes } from '../postgres/postgresConnection';
import { SchemaInfo } from '../schema';
import { mysqlConnectionOptions, redactMysqlText } from './connectionTarget';
import { localServerReady } from './localServer';
import { measuredPlanOfMysqlJson, planTreeOfMysqlJson } from './mysqlPlan';
import { readMysqlSchema } from './mysqlSchema';
import { MysqlField, pythonValue } from './pythonValues';

/** How long after its deadline a statement the server has not stopped is killed from here. */
const KILL_GRACE_MS = 250;

/** Server errors: MariaDB's max_statement_time, MySQL's max_execution_time, and a KILL QUERY. */
const STATEMENT_TIMEOUT = new Set([1969, 3024]);
const QUERY_INTERRUPTED = 1317;

type MysqlError = Error & { code?: string; errno?: number; fatal?: boolean };

/** A server that went away or takes no connections. */
function serverGone(error: MysqlError): boolean {
  return (
    error.fatal === true ||
    /PROTOCOL_CONNECTION_LOST|ECONNREFUSED|ECONNRESET|ENOENT|EPIPE|ETIMEDOUT|EHOSTUNREACH|ER_SERVER_SHUTDOWN|closed state/i.test(
      `${error.code ?? ''} ${error.message}`,
    )
  );
}

/** A driver error as VES Lens words it: the server's message, any password masked, ServerUnavailable when it went away. */
export function toMysqlError(error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const cause = error as MysqlError;
  const message = redactMysqlText(cause.message || String(cause.code ?? error));
  return serverGone(cause) ? new ServerUnavailable(message) : new DatabaseError(message);
}

/** A connected mysql2 connection (rows as arrays of raw bytes), or the server's reason as a DatabaseError. */
export async function connectMysql(target: string): Promise<Connection> {
  const options = mysqlConnectionOptions(target);
  try {
    await localServerReady(options.socketPath);
  } catch (error) {
    throw new ServerUnavailable(`the local MariaDB server could not start: ${(error as Error).message}`);
  }
  return new Promise((resolve, reject) => {
    const connection = createConnection({ ...options, typeCast: false });
    connection.on('error', () => undefined); // a dropped connection fails the next query instead of the process
    connection.connect((error) => {
      if (error) {
        connection.destroy();
        reject(toMysqlError(error));
      } else resolve(connection);
    });
  });
}

/** One statement run to completion on the connection, rows as objects of pymysql's values (VES Lens's own catalog reads). */
function queryObjects(connection: Connection, sql: string): Promise<Record<string, SqlValue>[]> {
  return new Promise((resolve, reject) => {
    connection.query({ sql, rowsAsArray: true, typeCast: false }, (error, rows, fields) => {
      if (error) return reject(error);
      if (!Array.isArray(rows) || !fields) return resolve([]);
      const columns = fields as unknown as (FieldPacket & MysqlField)[];
      resolve(
        (rows as unknown as (Buffer | null)[][]).map((row) =>
          Object.fromEntries(columns.map((field, i) => [field.name, pythonValue(field, row[i])])),
        ),
      );
    });
  });
}

/** A statement run for its effect (session settings, transactions). */
function execute(connection: Connection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.query(sql, (error) => (error ? reject(error) : resolve())));
}

/**
 * Streams a statement's rows, converted to pymysql's values, to `onRow`; `onRow` throwing stops the read (the
 * connection is then destroyed: the server's result cannot be abandoned half-read). Resolves with the fields.
 */
export function streamQuery(connection: Connection, body: string, onRow: (row: Row) => void): Promise<MysqlField[]> {
  return new Promise((resolve, reject) => {
    let fields: MysqlField[] = [];
    let failure: unknown;
    const query: Query = connection.query({ sql: body, rowsAsArray: true, typeCast: false });
    query.on('fields', (received: unknown) => (fields = received as MysqlField[]));
    query.on('result', (raw: unknown) => {
      if (failure !== undefined || !Array.isArray(raw)) return;
      try {
        onRow((raw as (Buffer | null)[]).map((value, i) => pythonValue(fields[i], value)));
      } catch (error) {
        failure = error;
        connection.destroy();
        reject(error);
      }
    });
    query.on('error', (error: unknown) => failure === undefined && ((failure = error), reject(error)));
    query.on('end', () => failure === undefined && resolve(fields));
  });
}

/** Whether the server is MariaDB (max_statement_time, ANALYZE FORMAT=JSON) rather than MySQL (max_execution_time). */
export function isMariaDb(version: string): boolean {
  return /mariadb/i.test(version);
}

/** The statement time limit for the next statement of a session: MariaDB's seconds, MySQL's milliseconds (0: none). */
export function timeLimitStatement(mariadb: boolean, remainingMs: number | undefined): string {
  const ms = remainingMs === undefined ? 0 : Math.max(1, Math.ceil(remainingMs));
  return mariadb ? `SET SESSION max_statement_time = ${ms / 1000}` : `SET SESSION max_execution_time = ${ms}`;
}

/**
 * A read-only MySQL connection (mysql2). Every statement runs in a `START TRANSACTION READ ONLY` that is
 * rolled back (and on a local server as an account that may only SELECT); its deadline is the session's
 * statement time limit, with `KILL QUERY` from a second connection as a backstop and on the caller's abort
 * signal; rows are streamed as they arrive within the same row and byte bounds as SQLite (a result past them
 * closes the connection; the next statement reconnects).
 */
export class MysqlConnection implements DatabaseConnection {
  private connection: Connection | undefined;
  private broken = false;
  private version: string | undefined;

  private constructor(
    readonly engine: DatabaseEngine,
    readonly path: string,
  ) {}

  static async open(engine: DatabaseEngine, target: string): Promise<MysqlConnection> {
    const connection = new MysqlConnection(engine, target);
    await connection.connected();
    return connection;
  }

  private async connected(): Promise<Connection> {
    if (this.connection && !this.broken) return this.connection;
    this.connection?.destroy();
    this.connection = undefined;
    const connection = await connectMysql(this.path);
    this.broken = false;
    connection.on('error', () => (this.broken = true));
    connection.on('end', () => (this.broken = true));
    this.connection = connection;
    this.version ??= String((await queryObjects(connection, 'SELECT VERSION() AS v'))[0].v);
    return connection;
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    if (connection) await new Promise<void>((resolve) => connection.end(() => resolve()));
  }

  /** Stops what runs on this connection now: KILL QUERY from a connection of its own (the same account may). */
  interrupt(): void {
    const threadId = this.connection?.threadId;
    if (threadId === undefined || threadId === null) return;
    connectMysql(this.path)
      .then((killer) => killer.query(`KILL QUERY ${Number(threadId)}`, () => killer.end()))
      .catch(() => undefined);
  }

  async checkReadable(): Promise<void> {
    await this.all('SELECT COUNT(*) FROM information_schema.tables');
  }

  /** The server's version (`10.11.19-MariaDB-0+deb12u1`, `8.4.3`). */
  async serverVersion(): Promise<string> {
    await this.connected();
    return this.version!;
  }

  /**
   * Runs `work` in a READ ONLY transaction under the limits: the session's statement time limit from the
   * deadline, KILL QUERY past it or on the abort signal; always rolled back. Failures come out as VES Lens's errors.
   */
  private async inTransaction<T>(limits: RunLimits, work: (connection: Connection) => Promise<T>): Promise<T> {
    if (limits.deadline !== undefined && limits.deadline <= performance.now()) throw new QueryTimeout(limits.budgetMs ?? 0);
    if (limits.signal?.aborted) throw new QueryCancelled();
    let connection: Connection;
    try {
      connection = await this.connected();
    } catch (error) {
      throw toMysqlError(error);
    }
    const remaining = limits.deadline === undefined ? undefined : limits.deadline - performance.now();
    if (remaining !== undefined && remaining <= 0) throw new QueryTimeout(limits.budgetMs ?? 0);
    const onAbort = () => this.interrupt();
    limits.signal?.addEventListener('abort', onAbort);
    const timer = remaining === undefined ? undefined : setTimeout(() => this.interrupt(), remaining + KILL_GRACE_MS);
    try {
      await execute(connection, timeLimitStatement(isMariaDb(this.version ?? ''), remaining));
      await execute(connection, 'START TRANSACTION READ ONLY');
      return await work(connection);
    } catch (error) {
      throw this.failure(error, limits);
    } finally {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      if (!this.broken && this.connection === connection) await execute(connection, 'ROLLBACK').catch(() => (this.broken = true));
    }
  }

  private failure(error: unknown, limits: RunLimits): Error {
    if (
      error instanceof TooManyRows ||
      error instanceof ResultTooLarge ||
      error instanceof QueryCancelled ||
      error instanceof QueryTimeout
    ) {
      this.broken = true;
      return error;
    }
    const errno = (error as MysqlError).errno;
    if (errno !== undefined && (STATEMENT_TIMEOUT.has(errno) || errno === QUERY_INTERRUPTED)) {
      if (limits.signal?.aborted) return new QueryCancelled();
      if (limits.deadline !== undefined) return new QueryTimeout(limits.budgetMs ?? 0);
    }
    const failure = toMysqlError(error);
    if (failure instanceof ServerUnavailable) this.broken = true;
    return failure;
  }

  async all(sql: string): Promise<Record<string, SqlValue>[]> {
    if (sql.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    return this.inTransaction({}, (connection) => queryObjects(connection, sql));
  }

  /** The statement's result columns, from the server's PREPARE: parsed and resolved, not run. */
  private describe(body: string): Promise<(MysqlField & { name: string })[]> {
    if (body.includes('\0')) return Promise.reject(new DatabaseError(NUL_MESSAGE));
    return this.inTransaction(
      {},
      (connection) =>
        new Promise((resolve, reject) =>
          connection.prepare(body, (error, statement) => {
            if (error) return reject(error);
            const columns = ((statement as unknown as { columns?: unknown[] }).columns ?? []) as (MysqlField & { name: string })[];
            statement.close();
            resolve(columns);
          }),
        ),
    );
  }

  async columnCount(body: string): Promise<number | undefined> {
    return (await this.describe(body)).length;
  }

  async streamRows(body: string, onRow: (row: Row) => void, limits: RunLimits & { maxRows: number; maxBytes?: number }): Promise<number> {
    if (body.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    const maxBytes = limits.maxBytes ?? MEMORY_BOUNDS.resultBytes;
    let count = 0;
    let bytes = 0;
    await this.inTransaction(limits, (connection) =>
      streamQuery(connection, body, (row) => {
        if (++count > limits.maxRows) throw new TooManyRows(limits.maxRows);
        bytes += rowBytes(row);
        if (bytes > maxBytes) throw new ResultTooLarge(maxBytes);
        onRow(row);
      }),
    );
    return count;
  }

  async drain(body: string, limits: RunLimits = {}): Promise<void> {
    await this.streamRows(body, () => undefined, { ...limits, maxRows: Number.MAX_SAFE_INTEGER });
  }

  /** pymysql's execute() reads the whole result (its default cursor is buffered): the first row costs the full read. */
  async firstRow(body: string, limits: RunLimits = {}): Promise<void> {
    await this.drain(body, limits);
  }

  /** Names from the statement's column definitions (what pymysql's cursor.description holds), repeated names kept. */
  async resultColumns(body: string): Promise<ColumnNames> {
    return { names: (await this.describe(body)).map((field) => field.name) };
  }

  private async jsonOf(prefix: string, body: string, limits: RunLimits = {}): Promise<unknown> {
    if (body.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    const rows = await this.inTransaction(limits, (connection) => queryObjects(connection, `${prefix} ${body}`));
    return JSON.parse(String(Object.values(rows[0] ?? {})[0]));
  }

  async explainPlan(body: string): Promise<PlanNode[]> {
    return planTreeOfMysqlJson(await this.jsonOf('EXPLAIN FORMAT=JSON', body));
  }

  /** MariaDB's ANALYZE FORMAT=JSON: the query runs (read-only, within the limits) and each step says what it measured. */
  async explainAnalyze(body: string, limits: RunLimits): Promise<MeasuredPlanTree> {
    await this.connected();
    if (!isMariaDb(this.version!))
      throw new DatabaseError(`measured plans are read from MariaDB's ANALYZE FORMAT=JSON; ${this.version} is MySQL`);
    return measuredPlanOfMysqlJson(await this.jsonOf('ANALYZE FORMAT=JSON', body, limits));
  }

  /**
   * What the server will do for a statement: its EXPLAIN FORMAT=JSON (access paths, keys, conditions with their
   * literals) and the statement as the optimizer rewrote it (note 1003 after EXPLAIN [EXTENDED]: the select list,
   * every expression and literal, which the JSON plan leaves out), as PostgreSQL's EXPLAIN VERBOSE shows both.
   */
  private async work(body: string): Promise<string> {
    if (body.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    await this.connected();
    const explain = isMariaDb(this.version!) ? 'EXPLAIN EXTENDED' : 'EXPLAIN';
    return this.inTransaction({}, async (connection) => {
      const plan = await queryObjects(connection, `EXPLAIN FORMAT=JSON ${body}`);
      await queryObjects(connection, `${explain} ${body}`);
      const rewritten = (await queryObjects(connection, 'SHOW WARNINGS')).filter((note) => Number(note.Code) === 1003);
      return JSON.stringify([plan, rewritten.map((note) => note.Message)]);
    });
  }

  /**
   * The same work when both have the same plan and the same rewritten statement (work()). Another plan proves
   * nothing either way: `unknown`. A statement that does not compile is `different`.
   */
  async sameWork(a: string, b: string): Promise<SameWork> {
    try {
      return (await this.work(a)) === (await this.work(b)) ? 'same' : 'unknown';
    } catch {
      return 'different';
    }
  }

  readSchema(): Promise<SchemaInfo> {
    return readMysqlSchema(this);
  }
}
