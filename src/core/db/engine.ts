import { Row, RunLimits, SqlValue } from './database';
import { MeasuredPlanTree, PlanNode } from './planTree';
import { SchemaInfo } from './schema';

/**
 * The database engine seam. Everything that reaches a database goes through these two interfaces: an engine
 * opens read-only connections to a target and times executions; a connection runs bounded queries, names
 * result columns, explains plans and says whether two statements do the same work. SQLite (sqlite/) and
 * PostgreSQL (postgres/) implement it; no file outside src/core/db/ imports a driver.
 *
 * What a server engine (PostgreSQL, MySQL) implements, without changing any caller:
 * - a target is a connection URL (`postgres://…`, `mysql://…`); engines.ts's engineFor picks the engine by it;
 * - open(): a client connection, made read-only by the server (a READ ONLY transaction, a role without write
 *   grants) rather than by a file flag; ConnectionCache keeps one per database of a dataset;
 * - the limits: the deadline as statement_timeout (or max_execution_time), the abort signal as a cancel request
 *   (pg_cancel_backend, KILL QUERY) from interrupt(), and maxRows / maxBytes by reading through a cursor in
 *   batches, so no SQL wrapping is needed;
 * - resultColumns(): the names from the protocol's row description, which keeps repeated names as they are;
 * - explainPlan(): EXPLAIN (FORMAT JSON) (MySQL: EXPLAIN FORMAT=JSON) mapped onto planTree.ts's step kinds;
 * - sameWork(): no bytecode to compare; PostgreSQL says 'same' only for identical EXPLAIN (VERBOSE, COSTS OFF)
 *   output (operators, relations, expressions and literals), MySQL for identical EXPLAIN FORMAT=JSON and rewritten
 *   statement (note 1003), else 'unknown';
 * - readSchema(): information_schema instead of sqlite_master and PRAGMAs;
 * - timeExecution(): as for SQLite, each execution on a fresh connection opened outside the timed span.
 */
export interface DatabaseEngine {
  /** `sqlite`; what reports name as the engine. */
  readonly name: string;
  /** The engine's version (plans and speed depend on it), asked once per process. */
  version(): Promise<string>;
  /** A read-only connection to `target`: a SQLite file path (a server engine: a connection URL). */
  open(target: string): Promise<DatabaseConnection>;
  /**
   * Times one execution on a fresh connection opened outside the timed span, as both official BIRD scripts
   * do. `first-row` is prepare plus the first step (DAMO's `cursor.execute()`); `full` runs to the last row
   * and closes the connection (mini_dev's execute, fetchall and close). Milliseconds.
   */
  timeExecution(target: string, body: string, quantity: TimedQuantity, limits?: RunLimits): Promise<number>;
  /**
   * How many questions the engine can run at once, when that is bounded: the embedded PostgreSQL runs a WASM
   * thread on a working copy of the data for each (EMBEDDED_THREADS), where a server runs any number of sessions.
   */
  readonly maxLanes?: number;
}

/** What one timed execution covers (see DatabaseEngine.timeExecution). */
export type TimedQuantity = 'first-row' | 'full';

/** Whether two statements compile to the same work: `unknown` when the engine cannot prove it either way. */
export type SameWork = 'same' | 'different' | 'unknown';

/** A query's result column names, in order, repeated names kept. */
export interface ColumnNames {
  names: string[];
  /** Set when a name could not be settled for certain (said in the question's notes). */
  note?: string;
}

/**
 * A read-only connection. No statement it runs can change the database; callers still refuse non-queries
 * before running them (sql/statements.ts), so a refusal reads the same on every engine.
 */
export interface DatabaseConnection {
  readonly engine: DatabaseEngine;
  /** The target it was opened on (a SQLite file path, or a connection URL without its password). */
  readonly path: string;
  /**
   * The file a file engine's connection reads (SQLite: device and inode, read when it was opened): a file renamed
   * over `path` since is not the one this connection reads. Undefined on server engines.
   */
  readonly openedFile?: { dev: bigint; ino: bigint };
  close(): Promise<void>;
  /** Interrupts whatever runs on this connection now. */
  interrupt(): void;
  /**
   * Reads the database's catalogue once, so a file that is not a database (or is damaged) fails here with the
   * engine's message instead of at the first query.
   */
  checkReadable(): Promise<void>;
  /** Runs a statement of VES Lens's own (catalog reads, samples) to completion and returns its rows as objects. */
  all(sql: string): Promise<Record<string, SqlValue>[]>;
  /** Number of result columns of a query, without running it; its compile error (syntax, unknown column) if it has one. */
  columnCount(body: string): Promise<number | undefined>;
  /**
   * Streams every row of a query, values in column order, to `onRow`, within the limits: past maxRows rows,
   * maxBytes of values (default MEMORY_BOUNDS.resultBytes), the deadline or the signal it stops and throws.
   * Resolves with the row count.
   */
  streamRows(body: string, onRow: (row: Row) => void, limits: RunLimits & { maxRows: number; maxBytes?: number }): Promise<number>;
  /** Runs a query to its end, discarding rows. */
  drain(body: string, limits?: RunLimits): Promise<void>;
  /** Prepares a query and steps it once, as Python's cursor.execute() does for a SELECT. */
  firstRow(body: string, limits?: RunLimits): Promise<void>;
  /**
   * The names the engine gives a query's result columns (what Python's cursor.description holds), the one
   * source of column labels for the editor's preview, the judge and SQLMorph's techniques. `hasRows` says
   * whether the result has a row to settle unsure names from; `deadline` bounds that read.
   */
  resultColumns(body: string, options: { hasRows: boolean; deadline?: number }): Promise<ColumnNames>;
  /** The query's plan as the typed plan tree; throws the engine's message when it does not compile. */
  explainPlan(body: string): Promise<PlanNode[]>;
  /**
   * Runs the query (read-only, within the limits; its rows are not kept) and returns its plan with what each
   * step measured: rows, loops, time, buffers (PostgreSQL's EXPLAIN (ANALYZE, BUFFERS)). Absent on an engine
   * that measures no steps (SQLite).
   */
  explainAnalyze?(body: string, limits: RunLimits): Promise<MeasuredPlanTree>;
  /**
   * How long, in ms and in all since it was opened, this connection waited for an executor another connection
   * held (the embedded PostgreSQL's threads, shared by the lanes): a time limit met after such a wait says nothing
   * of the statement.
   * 0 or absent where connections never wait for one another (SQLite, a server's sessions).
   */
  executorWaitMs?(): number;
  /** Whether two statements compile to the same work (SQLite: the same bytecode); a statement that fails is `different`. */
  sameWork(a: string, b: string): Promise<SameWork>;
  /** Tables with columns, indexes, foreign keys and row counts. */
  readSchema(): Promise<SchemaInfo>;
  /**
   * Scans tables and indexes in reverse wherever the query leaves the order free (SQLite's
   * `reverse_unordered_selects`), for this connection until set back to `forward`: a result that changes is one
   * that depends on the physical row order. Absent on an engine that cannot (PostgreSQL).
   */
  setUnorderedScans?(order: 'forward' | 'reversed'): Promise<void>;
}
