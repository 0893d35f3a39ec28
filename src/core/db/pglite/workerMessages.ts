/** What the embedded engine's worker thread (pgliteWorker.ts) is started with, is asked and answers. */

export interface WorkerSetup {
  /** The PostgreSQL data folder the worker opens (created by initdb when empty). */
  dataDir: string;
  /** Server settings for the whole instance (`default_transaction_read_only` for the sessions' copies). */
  settings: [string, string][];
  /**
   * The most memory PostgreSQL's WASM module may grow to (PGlite's own limit is 2 GiB): past it an allocation
   * fails, and the statement ends with PostgreSQL's `out of memory` error instead of the process growing.
   */
  memoryLimitBytes?: number;
}

export type WorkerRequest =
  /** Wire-protocol messages of the session the worker serves now; answered by `data` chunks, then `done`. */
  | { kind: 'protocol'; id: number; bytes: Uint8Array }
  /** One statement with $1, $2, ... parameters; answered by `rows`. */
  | { kind: 'query'; id: number; sql: string; params?: readonly unknown[] }
  /** Statements without parameters; answered by `done`. */
  | { kind: 'exec'; id: number; sql: string }
  /** Shuts PostgreSQL down cleanly (a checkpoint), so the folder can be copied; answered by `done`. */
  | { kind: 'close'; id: number };

export type WorkerReply =
  | { kind: 'ready'; version: string }
  | { kind: 'failed'; message: string }
  | { kind: 'data'; id: number; bytes: Uint8Array }
  | { kind: 'rows'; id: number; rows: Record<string, unknown>[] }
  /** `memoryBytes`: the size the WASM memory has grown to (it never shrinks while the thread lives). */
  | { kind: 'done'; id: number; memoryBytes?: number }
  | { kind: 'error'; id: number; message: string; detail?: string; code?: string };
