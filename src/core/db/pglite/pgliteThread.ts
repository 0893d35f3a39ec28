import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './workerMessages';

/**
 * The worker: dist/pgliteWorker.js beside the bundle, or this folder's source when run through tsx (the tests),
 * loaded through tsx's require hook (a worker does not inherit the loader, and refuses a .ts path).
 */
function startWorker(setup: WorkerSetup): Worker {
  const bundled = path.join(__dirname, 'pgliteWorker.js');
  if (fs.existsSync(bundled)) return new Worker(bundled, { workerData: setup });
  const source = path.join(__dirname, 'pgliteWorker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { eval: true, workerData: setup });
}

/** A failure the embedded engine reported for a request: PostgreSQL's message, detail and SQLSTATE. */
export class EmbeddedError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Waiting {
  onData?: (bytes: Uint8Array) => void;
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
}

/**
 * One worker thread running PGlite on a data folder: requests in order, answers matched by id. The thread keeps
 * the process alive only while a request waits, so a finished command exits without closing it. A thread that
 * ends (terminated, or crashed) fails whatever waits on it; it is not restarted here.
 */
export class PgliteThread {
  /** The PostgreSQL version, once the data folder is open; rejects when it cannot be opened. */
  readonly ready: Promise<string>;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private ended: Error | undefined;
  /** What PostgreSQL's WASM memory had grown to when the last protocol request was done (0: none yet). */
  memoryBytes = 0;

  constructor(setup: WorkerSetup) {
    this.worker = startWorker(setup);
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (reply: WorkerReply) => {
        if (reply.kind === 'ready') {
          this.worker.unref();
          resolve(reply.version);
        } else if (reply.kind === 'failed') {
          reject(new EmbeddedError(`the embedded PostgreSQL cannot open ${setup.dataDir}: ${reply.message}`));
          void this.worker.terminate();
        } else this.answered(reply);
      });
      this.worker.on('error', (error) => this.end(error, reject));
      this.worker.on('exit', (code) => this.end(new Error(`the embedded PostgreSQL stopped (exit code ${code})`), reject));
    });
    this.ready.catch(() => undefined);
  }

  /** Whether the thread has ended (it answers nothing more). */
  get alive(): boolean {
    return this.ended === undefined;
  }

  /** Sends a request; `onData` receives a protocol request's chunks as they come. Rejects with the engine's error. */
  async request(request: Request, onData?: (bytes: Uint8Array) => void): Promise<WorkerReply> {
    await this.ready;
    if (this.ended) throw this.ended;
    const id = this.nextId++;
    const answer = new Promise<WorkerReply>((resolve, reject) => this.waiting.set(id, { onData, resolve, reject }));
    this.worker.ref();
    this.worker.postMessage({ ...request, id });
    return answer;
  }

  /** Ends the thread at once, whatever it runs (PostgreSQL inside it stops as if the machine lost power). */
  async terminate(): Promise<void> {
    // The process is held until the thread has ended: a terminating worker does not hold it, even referenced, and
    // it would exit mid-way, leaving whatever awaited the end (a close, then the error being reported) undone.
    const held = setInterval(() => undefined, 1_000);
    try {
      await this.worker.terminate();
    } finally {
      clearInterval(held);
    }
  }

  private answered(reply: Exclude<WorkerReply, { kind: 'ready' | 'failed' }>): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    if (reply.kind === 'data') {
      waiting.onData?.(reply.bytes);
      return;
    }
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker.unref();
    if (reply.kind === 'done' && reply.memoryBytes !== undefined) this.memoryBytes = reply.memoryBytes;
    if (reply.kind === 'error') waiting.reject(new EmbeddedError(reply.message, reply.detail, reply.code));
    else waiting.resolve(reply);
  }

  private end(error: Error, rejectReady: (error: Error) => void): void {
    this.ended ??= error;
    rejectReady(error);
    for (const waiting of this.waiting.values()) waiting.reject(this.ended);
    this.waiting.clear();
  }
}
