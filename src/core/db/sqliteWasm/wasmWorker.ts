/**
 * SQLite compiled to WebAssembly (@sqlite.org/sqlite-wasm) in a worker thread of its own: a statement runs
 * synchronously inside the module, so it runs off the main thread, and it is stopped by SQLite's progress handler
 * reading a counter the main thread sets (wasmDriver.ts ends the thread if that does not stop it). Files are read
 * through a read-only VFS over Node's fs (nodeReadOnlyVfs.ts): pages are read as SQLite asks for them, never the
 * whole file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WasmReply, WasmRequest, WasmWorkerSetup, WireRecord } from './workerMessages';
import { installReadOnlyVfs, READ_ONLY_VFS, SqliteWasm, WasmDatabase, WasmStatement } from './nodeReadOnlyVfs';

const setup = workerData as WasmWorkerSetup;
const interruptUpTo = new Int32Array(setup.interruptUpTo);
const port = parentPort!;
const reply = (message: WasmReply) => port.postMessage(message);

/** Rows sent to the main thread in batches: fewer messages, and the first rows arrive while the rest are read. */
const BATCH_ROWS = 256;
/** SQLite's virtual-machine steps between two looks at the interrupt counter. */
const PROGRESS_STEPS = 1000;

let current = 0;
let sqlite: SqliteWasm | undefined;
let db: WasmDatabase | undefined;

async function library(): Promise<SqliteWasm> {
  if (!sqlite) {
    // An ES module: imported, not required (the bundle's worker is one; under tsx the import stays an import).
    const init = (await import('@sqlite.org/sqlite-wasm')).default as unknown as (options: object) => Promise<SqliteWasm>;
    const quiet = () => undefined;
    // The library's own console lines (a warning for every failed step): the caller words failures itself.
    (globalThis as { sqlite3ApiConfig?: object }).sqlite3ApiConfig = { warn: quiet, error: quiet, log: quiet, debug: quiet };
    sqlite = await init({ print: quiet, printErr: quiet });
    installReadOnlyVfs(sqlite);
  }
  return sqlite;
}

/** node-sqlite3's wording: `SQLITE_ERROR: no such table: x`, the primary code's name before SQLite's message. */
function wording(error: unknown, s: SqliteWasm): string {
  const e = error as { resultCode?: number; message?: string };
  const text = String(e.message ?? error).replace(/^SQLITE_\w+: sqlite3 result code \d+: /, '');
  return e.resultCode === undefined ? text : `${s.capi.sqlite3_js_rc_str(e.resultCode & 0xff)}: ${text}`;
}

/** A row as node-sqlite3 gives it: integers as numbers (a 64-bit one rounded as C rounds it to a double). */
function record(statement: WasmStatement): WireRecord {
  const row = statement.get({}) as Record<string, unknown>;
  const out: WireRecord = {};
  for (const name of Object.keys(row)) {
    const value = row[name];
    out[name] = typeof value === 'bigint' ? Number(value) : (value as WireRecord[string]);
  }
  return out;
}

/** Runs `sql`'s first statement, giving its rows to `onRow`; the statement is finalized whatever happens. */
function run(s: SqliteWasm, sql: string, onRow: (row: WireRecord) => boolean | void): void {
  let statement: WasmStatement;
  try {
    statement = db!.prepare(sql);
  } catch (error) {
    // No statement at all (only spaces or a comment): no rows, as node-sqlite3.
    if (/empty SQL/i.test(String((error as Error).message))) return;
    throw Object.assign(new Error(wording(error, s), { cause: error }), { prepare: true });
  }
  try {
    while (statement.step()) if (onRow(record(statement)) === false) break;
  } catch (error) {
    throw new Error(wording(error, s), { cause: error });
  } finally {
    statement.finalize();
  }
}

async function answer(request: WasmRequest): Promise<void> {
  current = request.id;
  const s = await library();
  if (request.kind === 'version') return reply({ id: request.id, kind: 'done', version: s.capi.sqlite3_libversion() });
  if (request.kind === 'open') {
    db?.close();
    db = undefined;
    try {
      db = new s.oo1.DB({ filename: request.file, flags: 'r', vfs: READ_ONLY_VFS });
    } catch (error) {
      throw new Error(wording(error, s), { cause: error });
    }
    const { capi } = s;
    capi.sqlite3_limit(db.pointer, capi.SQLITE_LIMIT_LENGTH, request.settings.lengthLimit);
    capi.sqlite3_limit(db.pointer, capi.SQLITE_LIMIT_SQL_LENGTH, request.settings.sqlLengthLimit);
    capi.sqlite3_busy_timeout(db.pointer, request.settings.busyTimeoutMs);
    // The official build turns double-quoted strings off; node-sqlite3's and Python's SQLite read `"x"` as a
    // string where no column is named x, and BIRD predictions rely on it.
    capi.sqlite3_db_config(db.pointer, capi.SQLITE_DBCONFIG_DQS_DML, 1, 0);
    capi.sqlite3_db_config(db.pointer, capi.SQLITE_DBCONFIG_DQS_DDL, 1, 0);
    capi.sqlite3_progress_handler(db.pointer, PROGRESS_STEPS, () => (Atomics.load(interruptUpTo, 0) >= current ? 1 : 0), 0);
    return reply({ id: request.id, kind: 'done' });
  }
  if (request.kind === 'close') {
    db?.close();
    db = undefined;
    return reply({ id: request.id, kind: 'done' });
  }
  if (!db) throw new Error('SQLITE_MISUSE: the database is not open');
  if (request.kind === 'each') {
    let batch: WireRecord[] = [];
    run(s, request.sql, (row) => {
      batch.push(row);
      if (batch.length < BATCH_ROWS) return;
      reply({ id: request.id, kind: 'rows', rows: batch });
      batch = [];
    });
    return reply({ id: request.id, kind: 'done', rows: batch });
  }
  const rows: WireRecord[] = [];
  run(s, request.sql, (row) => {
    rows.push(row);
    return request.kind === 'all';
  });
  reply({ id: request.id, kind: 'done', rows });
}

// One request at a time, in order: each runs synchronously once the library is loaded.
let queue = Promise.resolve();
port.on('message', (request: WasmRequest) => {
  queue = queue.then(() =>
    answer(request).catch((error: Error & { prepare?: boolean }) =>
      reply({ id: request.id, kind: 'failed', message: error.message, prepare: error.prepare === true }),
    ),
  );
});
