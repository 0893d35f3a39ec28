/**
 * What every engine shares: values and rows as callers see them, the limits one query runs under, and the
 * failures a query ends with. Engine-neutral: the SQLite implementation lives in sqlite/.
 */
import { inputWording } from '../text/inputWording';

/**
 * Python's type for a value a server engine hands over that JavaScript has no exact twin for, as the official
 * scripts' driver (psycopg2) returns it: exact numbers, booleans, dates and times, and what Python cannot hash.
 */
export type PythonType = 'int' | 'Decimal' | 'bool' | 'date' | 'datetime' | 'time' | 'timedelta' | 'list' | 'dict';

/**
 * Such a value: the server's own text (what people see) and its value in one canonical form per type, from which
 * results/valueKey.ts derives Python's equality. `pythonError` is what Python raises on it (a list in a set, a
 * date before year 1), which makes the official scripts score the question 0.
 */
export class TypedValue {
  constructor(
    readonly pythonType: PythonType,
    readonly text: string,
    /**
     * int, Decimal, bool: the exact value as `<integer>e<exponent>` with no trailing zero in the integer (`0e0`
     * for zero), or NaN, Infinity, -Infinity; date: YYYY-MM-DD; datetime and time: ISO with six fraction digits,
     * or `@<microseconds since the epoch or midnight, UTC>` when they carry a time zone; timedelta: microseconds.
     */
    readonly canonical: string,
    readonly pythonError?: string,
  ) {}

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}

/**
 * A value as the engine hands it over: INTEGER and REAL become numbers, TEXT strings, BLOB Buffers; a server
 * engine's exact numbers, booleans, dates and times TypedValues.
 */
export type SqlValue = number | string | Buffer | null | TypedValue;
export type Row = SqlValue[];

/** What one value costs in memory beyond its bytes (the driver's native row, the JavaScript value, its key). */
export const VALUE_OVERHEAD_BYTES = 64;

/**
 * What one query may take, whatever it does, so the process stays under 1 GiB. The bounds must hold inside
 * the engine, before a row reaches the driver's queue (node-sqlite3 queues rows with no back-pressure).
 */
export const MEMORY_BOUNDS = {
  /** One string, blob or row (SQLite's SQLITE_LIMIT_LENGTH; Python's default is 1e9). */
  valueBytes: 32 * 2 ** 20,
  /** All values of one result together: counted as rows are produced. */
  resultBytes: 128 * 2 ** 20,
  /** SQLite's own heap, process-wide (PRAGMA hard_heap_limit): sorts and temp tables spill to disk below it. */
  heapBytes: 512 * 2 ** 20,
  /**
   * One entry's SQL text, in UTF-8 bytes (BIRD's longest query has 3.5 thousand characters). Compiling costs up to
   * 150 bytes per byte of SQL (`VALUES (1),(1),…`), and glibc keeps what each of libuv's threads freed for that
   * thread: a 31 MB `SELECT 1,1,…` filled SQLite's heap to its bound (900 MiB, and lexing it again and again took
   * half a minute), four 1 MiB ones in a row 1.2 GiB. Past it an entry is refused, never read further.
   */
  statementBytes: 2 ** 18,
} as const;

export interface RunLimits {
  /** performance.now() value after which the query is interrupted. */
  deadline?: number;
  /** How long the whole budget was, for the timeout message. */
  budgetMs?: number;
  /** Interrupts the query when aborted (a cancelled editor request). */
  signal?: AbortSignal;
}

/** Time, rows, and (optionally) a byte budget below MEMORY_BOUNDS.resultBytes, for callers that hold several results at once. */
export type ResultLimits = RunLimits & { maxRows: number; maxBytes?: number };

/** Thrown when a query is interrupted because its deadline passed. */
export class QueryTimeout extends Error {
  constructor(readonly limitMs: number) {
    super(`timed out after ${(limitMs / 1000).toFixed(1)} s`);
  }
}

/** Thrown when a query is interrupted because its caller gave up (limits.signal). */
export class QueryCancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

/** Thrown when a result has more rows than the caller allows (memory stays bounded). */
export class TooManyRows extends Error {
  constructor(readonly maxRows: number) {
    super(`result has more than ${maxRows.toLocaleString('en-US')} rows (raise ${inputWording().rowLimit} to read it all)`);
  }
}

/** Thrown when a result holds more bytes than the caller allows (memory stays bounded). */
export class ResultTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(
      `result holds more than ${Math.round(maxBytes / 2 ** 20)} MiB of values, counting ${VALUE_OVERHEAD_BYTES} bytes of ` +
        'overhead per value (VES Lens bounds one result so memory stays under 1 GiB)',
    );
  }
}

/** Thrown for anything the engine rejects; `message` is the engine's own wording without its code prefix. */
export class DatabaseError extends Error {}

/**
 * Thrown when another process held a lock on the database for longer than the busy timeout (SQLite's
 * SQLITE_BUSY, "database is locked"): the database is fine, the run was not alone on it.
 */
export class DatabaseLocked extends DatabaseError {}

/**
 * Thrown when a database server cannot be reached or went away (refused, closed, shut down): nothing run on it
 * afterwards can succeed, so a run stops asking it (the remaining questions are errors, said once).
 */
export class ServerUnavailable extends DatabaseError {}

/** CPython's sqlite3 message for SQL holding a NUL character, which it refuses before SQLite sees it. */
export const NUL_MESSAGE = 'the query contains a null character';
