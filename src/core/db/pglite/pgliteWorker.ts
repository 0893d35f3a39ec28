/**
 * The embedded PostgreSQL (PGlite, PostgreSQL compiled to WASM) in a worker thread of its own: a statement runs
 * synchronously inside the WASM module, so the only way to stop one past its deadline is to end this thread
 * (embeddedPostgres.ts does, then starts another). It opens the data folder it is given and answers two kinds of
 * requests: wire-protocol bytes (the sessions' traffic, answered in chunks as PostgreSQL writes them, so the
 * receiving side can bound what it takes) and plain SQL with parameters (the loader's statements).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './workerMessages';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const reply = (message: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** WebAssembly pages of 64 KiB. */
const PAGE_BYTES = 65536;

/** The global WebAssembly's memory constructor (Node's typings leave WebAssembly to the DOM library). */
interface MemoryDescriptor {
  initial: number;
  maximum?: number;
  shared?: boolean;
}
type MemoryConstructor = { new (descriptor: MemoryDescriptor): object; prototype: object };
const wasm = (globalThis as unknown as { WebAssembly: { Memory: MemoryConstructor } }).WebAssembly;

/** The WASM memories this thread's modules were given (PostgreSQL's, once started). */
const memories: { buffer: ArrayBuffer }[] = [];

/**
 * PGlite makes its WASM memory itself, growable to 2 GiB; this thread's memories are made with a lower maximum
 * (a module accepts a memory whose maximum is below the one it declares), so PostgreSQL's own allocator fails
 * past it and says `out of memory` for that statement, and the thread goes on.
 */
function limitWasmMemory(limitBytes: number): void {
  const Memory = wasm.Memory;
  const pages = Math.floor(limitBytes / PAGE_BYTES);
  const limited = function (descriptor: MemoryDescriptor) {
    const memory = new Memory({ ...descriptor, maximum: Math.min(descriptor.maximum ?? pages, pages) }) as { buffer: ArrayBuffer };
    memories.push(memory);
    return memory;
  } as unknown as MemoryConstructor;
  limited.prototype = Memory.prototype;
  wasm.Memory = limited;
}

/** What the WASM memories take now: they grow with what a statement allocates, and never give it back. */
function memoryBytes(): number {
  return memories.reduce((sum, memory) => sum + memory.buffer.byteLength, 0);
}

/** PGlite's own start parameters, with every transaction read-only by default when asked. */
function startParams(): string[] {
  return [...PGlite.defaultStartParams, ...setup.settings.flatMap(([name, value]) => ['-c', `${name}=${value}`])];
}

async function main(): Promise<void> {
  if (setup.memoryLimitBytes) limitWasmMemory(setup.memoryLimitBytes);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({ dataDir: setup.dataDir, startParams: startParams() });
    const { rows } = await pglite.query<{ server_version: string }>('SHOW server_version');
    reply({ kind: 'ready', version: rows[0].server_version });
  } catch (error) {
    reply({ kind: 'failed', message: (error as Error).message || String(error) });
    return;
  }
  // One request at a time, in order: PGlite has one session.
  let queue = Promise.resolve();
  port.on('message', (request: WorkerRequest) => {
    queue = queue.then(() => answer(pglite, request));
  });
}

async function answer(pglite: PGlite, request: WorkerRequest): Promise<void> {
  try {
    if (request.kind === 'protocol') {
      await pglite.execProtocolRawStream(request.bytes, {
        syncToFs: false,
        onRawData: (bytes) => {
          const copy = bytes.slice();
          reply({ kind: 'data', id: request.id, bytes: copy }, [copy.buffer as ArrayBuffer]);
        },
      });
      reply({ kind: 'done', id: request.id, memoryBytes: memoryBytes() });
    } else if (request.kind === 'query') {
      const { rows } = await pglite.query<Record<string, unknown>>(request.sql, request.params as unknown[]);
      reply({ kind: 'rows', id: request.id, rows });
    } else if (request.kind === 'exec') {
      await pglite.exec(request.sql);
      reply({ kind: 'done', id: request.id });
    } else {
      await pglite.close();
      reply({ kind: 'done', id: request.id });
    }
  } catch (error) {
    const { message, detail, code } = error as { message?: string; detail?: string; code?: string };
    reply({ kind: 'error', id: request.id, message: message || String(error), detail, code });
  }
}

void main();
