import { SqlValue } from '../database';

/** A row as the drivers give it: an object keyed by column name, in column order (a repeated name keeps the last value). */
export type SqliteRecord = Record<string, SqlValue>;

/**
 * One read-only database opened by a build of SQLite: the calls SqliteConnection makes, the same whether the
 * native node-sqlite3 (nativeDriver.ts) or SQLite compiled to WebAssembly (../sqliteWasm/) runs them. Failures
 * are the driver's errors, worded `SQLITE_CODE: message` as node-sqlite3 words them (toDatabaseError reads that).
 */
export interface SqliteHandle {
  all(sql: string): Promise<SqliteRecord[]>;
  /** The first row, or undefined for an empty result: prepare plus one step. */
  get(sql: string): Promise<SqliteRecord | undefined>;
  /** Every row in order to `onRow`; rejects with the first failure. A failure to compile is in PREPARE_FAILURES. */
  each(sql: string, onRow: (row: SqliteRecord) => void): Promise<void>;
  /** Interrupts whatever runs now (its promise rejects with an `interrupted` error). */
  interrupt(): void;
  close(): Promise<void>;
}

/** What every connection is opened with (database.ts's bounds, the busy timeout). */
export interface SqliteOpenSettings {
  /** SQLITE_LIMIT_LENGTH: the largest value or row, in bytes. */
  lengthLimit: number;
  /** SQLITE_LIMIT_SQL_LENGTH: the longest statement SQLite compiles, in bytes. */
  sqlLengthLimit: number;
  busyTimeoutMs: number;
}

/** A build of SQLite that opens files read-only. */
export interface SqliteDriver {
  /** How reports name the build: `native` (node-sqlite3) or `WebAssembly`. */
  readonly build: 'native' | 'WebAssembly';
  open(file: string, settings: SqliteOpenSettings): Promise<SqliteHandle>;
  /** The SQLite library's version. */
  version(): Promise<string>;
}

/** Errors a driver reported at prepare, before any row: the statement did not compile. */
export const PREPARE_FAILURES = new WeakSet<Error>();
