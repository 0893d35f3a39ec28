import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SqliteDriver, SqliteHandle, SqliteOpenSettings, SqliteRecord, PREPARE_FAILURES } from '../sqlite/sqliteHandle';
import type { WasmReply, WasmRequest, WasmWorkerSetup, WireRecord } from './workerMessages';

/** How long an interrupted statement may take to notice the progress handler before its thread is ended. */
const INTERRUPT_GRACE_MS = 1000;
/** Threads kept for the next connection (timing opens one per execution); more are ended when their connection closes. */
const KEPT_THREADS = 4;

/**
 * The worker: dist/sqliteWasmWorker.mjs beside the bundle (an ES module, as the library is), or this folder's
 * source when run through tsx (the tests), loaded through tsx's require hook (a worker does not inherit the loader).
 */
function startWorker(setup: WasmWorkerSetup): Worker {
  const bundled = path.join(__dirname, 'sqliteWasmWorker.mjs');
  if (fs.existsSync(bundled)) return new Worker(bundled, { workerData: setup });
  const source = path.join(__dirname, 'wasmWorker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { eval: true, workerData: setup });
}

type Request = WasmRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Waiting {
  onRows?: (rows: WireRecord[]) => void;
  resolve: (reply: WasmReply & { kind: 'done' }) => void;
  reject: (error: Error) => void;
}

/** A BLOB crosses threads as a Uint8Array; node-sqlite3 gives a Buffer. */
function fromWire(row: WireRecord): SqliteRecord {
  for (const name in row) {
    const value = row[name];
    if (value instanceof Uint8Array && !Buffer.isBuffer(value)) row[name] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return row as SqliteRecord;
}

/** One worker thread with SQLite in it: requests in order, answers matched by id. */
class WasmThread {
  private readonly worker: Worker;
  private readonly interruptUpTo = new Int32Array(new SharedArrayBuffer(4));
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  ended: Error | undefined;

  constructor() {
    this.worker = startWorker({ interruptUpTo: this.interruptUpTo.buffer as SharedArrayBuffer });
    this.worker.unref();
    this.worker.on('message', (reply: WasmReply) => this.answered(reply));
    this.worker.on('error', (error) => this.end(error));
    this.worker.on('exit', (code) => this.end(new Error(`SQLITE_ERROR: SQLite's WebAssembly thread stopped (exit code ${code})`)));
  }

  request(request: Request, onRows?: (rows: WireRecord[]) => void): Promise<WasmReply & { kind: 'done' }> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    const answer = new Promise<WasmReply & { kind: 'done' }>((resolve, reject) => this.waiting.set(id, { onRows, resolve, reject }));
    this.worker.ref();
    this.worker.postMessage({ ...request, id });
    return answer;
  }

  /**
   * Stops every request sent so far: SQLite's progress handler sees the counter and fails the statement with
   * `interrupted`; one that does not stop within the grace (a long step outside the virtual machine) ends the thread.
   */
  interrupt(): void {
    const upTo = this.nextId - 1;
    Atomics.store(this.interruptUpTo, 0, upTo);
    if (this.waiting.size === 0) return;
    setTimeout(() => {
      if ([...this.waiting.keys()].some((id) => id <= upTo)) this.end(new Error('SQLITE_INTERRUPT: interrupted'));
    }, INTERRUPT_GRACE_MS).unref();
  }

  end(error: Error): void {
    if (this.ended) return;
    this.ended = error;
    void this.worker.terminate();
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  private answered(reply: WasmReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    if (reply.kind === 'rows') return waiting.onRows?.(reply.rows);
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker.unref();
    if (reply.kind === 'done') waiting.resolve(reply);
    else {
      const error = new Error(reply.message);
      if (reply.prepare) PREPARE_FAILURES.add(error);
      waiting.reject(error);
    }
  }
}

const idle: WasmThread[] = [];

function thread(): WasmThread {
  for (let kept = idle.pop(); kept; kept = idle.pop()) if (!kept.ended) return kept;
  return new WasmThread();
}

/**
 * A database opened in a thread of its own. A thread ended by an interrupt is replaced at the next call, the
 * file opened again and the connection's settings (`PRAGMA name = value`, e.g. query_only) set again.
 */
class WasmHandle implements SqliteHandle {
  private readonly settingsRun: string[] = [];

  private constructor(
    private worker: WasmThread,
    private readonly file: string,
    private readonly settings: SqliteOpenSettings,
  ) {}

  static async open(file: string, settings: SqliteOpenSettings): Promise<WasmHandle> {
    const worker = thread();
    try {
      await worker.request({ kind: 'open', file, settings });
    } catch (error) {
      idle.push(worker);
      throw error;
    }
    return new WasmHandle(worker, file, settings);
  }

  private async live(): Promise<WasmThread> {
    if (!this.worker.ended) return this.worker;
    this.worker = thread();
    await this.worker.request({ kind: 'open', file: this.file, settings: this.settings });
    for (const sql of this.settingsRun) await this.worker.request({ kind: 'all', sql });
    return this.worker;
  }

  async all(sql: string): Promise<SqliteRecord[]> {
    const reply = await (await this.live()).request({ kind: 'all', sql });
    if (/^\s*PRAGMA\s+\w+\s*=/i.test(sql)) this.settingsRun.push(sql);
    return (reply.rows ?? []).map(fromWire);
  }

  async get(sql: string): Promise<SqliteRecord | undefined> {
    const reply = await (await this.live()).request({ kind: 'get', sql });
    return reply.rows?.[0] && fromWire(reply.rows[0]);
  }

  async each(sql: string, onRow: (row: SqliteRecord) => void): Promise<void> {
    const take = (rows: WireRecord[]) => rows.forEach((row) => onRow(fromWire(row)));
    const reply = await (await this.live()).request({ kind: 'each', sql }, take);
    take(reply.rows ?? []);
  }

  interrupt(): void {
    this.worker.interrupt();
  }

  async close(): Promise<void> {
    if (this.worker.ended) return;
    await this.worker.request({ kind: 'close' }).catch(() => undefined);
    if (!this.worker.ended && idle.length < KEPT_THREADS) idle.push(this.worker);
    else this.worker.end(new Error('SQLITE_MISUSE: closed'));
  }
}

let version: Promise<string> | undefined;

/** SQLite compiled to WebAssembly, the build that runs wherever Node does: the fallback when node-sqlite3 does not load. */
export const wasmDriver: SqliteDriver = {
  build: 'WebAssembly',

  open(file: string, settings: SqliteOpenSettings): Promise<SqliteHandle> {
    return WasmHandle.open(file, settings);
  },

  version(): Promise<string> {
    version ??= (async () => {
      const worker = thread();
      try {
        return (await worker.request({ kind: 'version' })).version ?? '';
      } finally {
        idle.push(worker);
      }
    })();
    return version;
  },
};
