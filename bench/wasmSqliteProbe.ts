// One candidate WebAssembly SQLite measured in a process of its own (bench/wasmSqlite.mjs starts it): prints one
// JSON line. argv: candidate name, the folder it is installed in, the database file, the query to time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { installReadOnlyVfs, READ_ONLY_VFS, SqliteWasm } from '../src/core/db/sqliteWasm/nodeReadOnlyVfs';

const [candidate, prefix, file, query] = process.argv.slice(2);
const requireThere = createRequire(path.join(prefix, 'node_modules', 'x.js'));
const importThere = (name: string) => import(pathToFileURL(requireThere.resolve(name)).href);
const mib = () => Math.round(process.memoryUsage().rss / 2 ** 20);

interface Probe {
  version: string;
  initMs: number;
  openMs: number;
  queryMs: number;
  rssAfterQueryMiB: number;
  doubleQuotedStrings: string;
  twoReaders: string;
  plan: string;
  leftBeside: string[];
}

/** Runs fn, returning its result and milliseconds. */
function timed<T>(fn: () => T): [T, number] {
  const start = performance.now();
  const value = fn();
  return [value, performance.now() - start];
}

async function timedAsync<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

const attempt = (fn: () => unknown) => {
  try {
    return `yes (${JSON.stringify(fn())})`;
  } catch (error) {
    return `no: ${String((error as Error).message).slice(0, 90)}`;
  }
};

async function probe(): Promise<Probe> {
  const before = new Set(fs.readdirSync(path.dirname(file)));
  const leftBeside = () => fs.readdirSync(path.dirname(file)).filter((name) => !before.has(name));
  if (candidate === 'node-sqlite3-wasm') {
    const [{ Database }, initMs] = timed(() => requireThere('node-sqlite3-wasm'));
    const [db, openMs] = timed(() => new Database(file, { readOnly: true }));
    const version = db.get('SELECT sqlite_version() AS v').v;
    const [, queryMs] = timed(() => db.all(query));
    const rssAfterQueryMiB = mib();
    const doubleQuotedStrings = attempt(() => db.get('SELECT "x" AS v').v);
    const statement = db.prepare('SELECT * FROM sqlite_master');
    statement.iterate().next(); // a read under way
    const twoReaders = attempt(() => new Database(file, { readOnly: true }).get('SELECT count(*) AS n FROM sqlite_master').n);
    const plan = attempt(() => db.all(`EXPLAIN QUERY PLAN ${query}`).length);
    const left = leftBeside();
    statement.finalize();
    return { version, initMs, openMs, queryMs, rssAfterQueryMiB, doubleQuotedStrings, twoReaders, plan, leftBeside: left };
  }
  if (candidate === 'sql.js') {
    const initSqlJs = requireThere('sql.js');
    type SqlJs = { Database: new (bytes: Buffer) => { exec(sql: string): { values: unknown[][] }[] } };
    const [SQL, initMs] = await timedAsync(() => initSqlJs() as Promise<SqlJs>);
    // sql.js opens a database only from bytes in memory: the whole file, read at once.
    const [db, openMs] = timed(() => new SQL.Database(fs.readFileSync(file)));
    const version = String(db.exec('SELECT sqlite_version()')[0].values[0][0]);
    const [, queryMs] = timed(() => db.exec(query));
    const rssAfterQueryMiB = mib();
    const doubleQuotedStrings = attempt(() => db.exec('SELECT "x"')[0].values[0][0]);
    const twoReaders = 'each Database holds its own copy of the file in memory';
    const plan = attempt(() => db.exec(`EXPLAIN QUERY PLAN ${query}`)[0].values.length);
    return { version, initMs, openMs, queryMs, rssAfterQueryMiB, doubleQuotedStrings, twoReaders, plan, leftBeside: leftBeside() };
  }
  if (candidate === '@sqlite.org/sqlite-wasm') {
    const init = (await importThere('@sqlite.org/sqlite-wasm')).default;
    const quiet = () => undefined;
    (globalThis as { sqlite3ApiConfig?: object }).sqlite3ApiConfig = { warn: quiet, error: quiet, log: quiet, debug: quiet };
    type WasmDb = { pointer: number; selectValue(sql: string): unknown; selectObjects(sql: string): unknown[] };
    const [sqlite, initMs] = await timedAsync(() => init({ print: quiet, printErr: quiet }) as Promise<SqliteWasm>);
    // No VFS for files on disk under Node (its `unix` VFS sees Emscripten's in-memory file system): VES Lens's own.
    installReadOnlyVfs(sqlite);
    const open = () => new sqlite.oo1.DB({ filename: file, flags: 'r', vfs: READ_ONLY_VFS }) as unknown as WasmDb;
    const [db, openMs] = timed(open);
    const version = String(db.selectValue('SELECT sqlite_version()'));
    const [, queryMs] = timed(() => db.selectObjects(query));
    const rssAfterQueryMiB = mib();
    const off = attempt(() => db.selectValue('SELECT "x"'));
    sqlite.capi.sqlite3_db_config(db.pointer, sqlite.capi.SQLITE_DBCONFIG_DQS_DML, 1, 0);
    const doubleQuotedStrings = `off by default (${off.slice(0, 40)}…); sqlite3_db_config(DQS_DML): ${attempt(() => db.selectValue('SELECT "x"'))}`;
    const twoReaders = attempt(() => open().selectValue('SELECT count(*) FROM sqlite_master'));
    const plan = attempt(() => db.selectObjects(`EXPLAIN QUERY PLAN ${query}`).length);
    return { version, initMs, openMs, queryMs, rssAfterQueryMiB, doubleQuotedStrings, twoReaders, plan, leftBeside: leftBeside() };
  }
  if (candidate === 'wa-sqlite') {
    const folder = path.dirname(requireThere.resolve('wa-sqlite/package.json'));
    const factory = (await import(pathToFileURL(path.join(folder, 'dist', 'wa-sqlite.mjs')).href)).default;
    const api = await importThere('wa-sqlite');
    const [sqlite3, initMs] = await timedAsync(async () =>
      api.Factory(await factory({ wasmBinary: fs.readFileSync(path.join(folder, 'dist', 'wa-sqlite.wasm')) })),
    );
    const db = await sqlite3.open_v2(':memory:');
    const value = async (sql: string) => {
      let out: unknown;
      await sqlite3.exec(db, sql, (row: unknown[]) => (out = row[0]));
      return out;
    };
    const version = String(await value('SELECT sqlite_version()'));
    let doubleQuotedStrings: string;
    try {
      doubleQuotedStrings = `yes (${await value('SELECT "x"')})`;
    } catch (error) {
      doubleQuotedStrings = `no: ${(error as Error).message}; no sqlite3_db_config in its API to turn them on`;
    }
    const na = Number.NaN;
    return {
      version,
      initMs,
      openMs: na,
      queryMs: na,
      rssAfterQueryMiB: na,
      doubleQuotedStrings,
      twoReaders: 'not measured: no VFS for files on disk under Node (IndexedDB/OPFS examples only)',
      plan: 'not measured (no file opened)',
      leftBeside: [],
    };
  }
  throw new Error(`unknown candidate ${candidate}`);
}

probe().then(
  (result) => console.log(JSON.stringify({ candidate, ...result })),
  (error) => console.log(JSON.stringify({ candidate, error: String(error?.message ?? error) })),
);
