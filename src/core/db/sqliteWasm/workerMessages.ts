import type { SqlValue } from '../database';
import type { SqliteOpenSettings } from '../sqlite/sqliteHandle';

/** What the thread is started with: a shared counter, the id of the last request to interrupt. */
export interface WasmWorkerSetup {
  interruptUpTo: SharedArrayBuffer;
}

/** One request; its id grows with each request to the same thread, so an interrupt can name the ones it stops. */
export type WasmRequest = { id: number } & (
  | { kind: 'open'; file: string; settings: SqliteOpenSettings }
  | { kind: 'all' | 'get' | 'each'; sql: string }
  | { kind: 'close' }
  | { kind: 'version' }
);

/** A value as it crosses threads: a BLOB arrives as a Uint8Array, made a Buffer again as node-sqlite3 gives it. */
export type WireRecord = Record<string, SqlValue | Uint8Array>;

export type WasmReply =
  | { id: number; kind: 'rows'; rows: WireRecord[] }
  | { id: number; kind: 'done'; rows?: WireRecord[]; version?: string }
  /** A failure: node-sqlite3's wording (`SQLITE_CODE: message`); `prepare` when the statement did not compile. */
  | { id: number; kind: 'failed'; message: string; prepare: boolean };
