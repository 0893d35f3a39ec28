import * as fs from 'node:fs';
import * as path from 'node:path';

/** The parts of @sqlite.org/sqlite-wasm this engine uses (its own typings are an ES module's, for browsers). */
export interface WasmStatement {
  step(): boolean;
  get(target: object): object;
  finalize(): void;
}
export interface WasmDatabase {
  readonly pointer: number;
  prepare(sql: string): WasmStatement;
  close(): void;
}
type Pointer = number | bigint;
interface Struct {
  readonly pointer: number;
  [field: `$${string}`]: unknown;
  dispose(): void;
}
type StructClass = { new (pointer?: Pointer): Struct; structInfo: { sizeof: number } };
export interface SqliteWasm {
  capi: Record<string, number> & {
    sqlite3_libversion(): string;
    sqlite3_js_rc_str(code: number): string;
    sqlite3_limit(db: number, limit: number, value: number): number;
    sqlite3_busy_timeout(db: number, ms: number): number;
    sqlite3_db_config(db: number, option: number, value: number, out: number): number;
    sqlite3_progress_handler(db: number, steps: number, handler: () => number, context: number): void;
    sqlite3_vfs_find(name: string | null): number;
    sqlite3_vfs: StructClass;
    sqlite3_io_methods: StructClass;
    sqlite3_file: StructClass;
  };
  wasm: {
    heap8u(): Uint8Array;
    cstrToJs(pointer: Pointer): string;
    poke32(pointer: Pointer, value: number): void;
    poke64(pointer: Pointer, value: bigint): void;
  };
  oo1: { DB: new (options: { filename: string; flags: string; vfs: string }) => WasmDatabase };
  vfs: { installVfs(options: object): void };
}

/** The VFS's name, given to every open. */
export const READ_ONLY_VFS = 'ves-lens-read-only';

/**
 * Installs a VFS that reads files on disk through Node's fs: the official WebAssembly build has none for Node
 * (its `unix` VFS sees only Emscripten's in-memory file system), and reading the whole file into memory, as
 * sql.js must, would not do for a BIRD database of gigabytes. Read-only and without locks: no write reaches a
 * file, and a reader neither waits on nor blocks another process (as SQLite's `immutable` files; a database
 * written while a query reads it may give that query a mixed result, which node-sqlite3's locks would prevent).
 */
export function installReadOnlyVfs(sqlite: SqliteWasm): void {
  const { capi, wasm } = sqlite;
  const ok = capi.SQLITE_OK;
  const files = new Map<number, number>();
  const fd = (file: Pointer) => files.get(Number(file))!;
  const io = new capi.sqlite3_io_methods();
  io.$iVersion = 1;
  const vfs = new capi.sqlite3_vfs();
  vfs.$iVersion = 2;
  vfs.$szOsFile = capi.sqlite3_file.structInfo.sizeof;
  vfs.$mxPathname = 4096;
  vfs.$xDlOpen = vfs.$xDlError = vfs.$xDlSym = vfs.$xDlClose = 0;
  // Randomness, sleep and the clock: the default VFS's own.
  const fallback = new capi.sqlite3_vfs(capi.sqlite3_vfs_find(null));
  for (const method of ['$xRandomness', '$xSleep', '$xCurrentTime', '$xCurrentTimeInt64', '$xGetLastError'] as const)
    vfs[method] = fallback[method];
  sqlite.vfs.installVfs({
    io: {
      struct: io,
      methods: {
        xClose(file: Pointer) {
          fs.closeSync(fd(file));
          files.delete(Number(file));
          return ok;
        },
        xRead(file: Pointer, target: Pointer, bytes: number, offset: bigint | number) {
          const into = wasm.heap8u().subarray(Number(target), Number(target) + bytes);
          let read: number;
          try {
            read = fs.readSync(fd(file), into, 0, bytes, Number(offset));
          } catch {
            return capi.SQLITE_IOERR_READ;
          }
          if (read === bytes) return ok;
          into.fill(0, read); // SQLite requires a short read's rest zeroed
          return capi.SQLITE_IOERR_SHORT_READ;
        },
        xWrite: () => capi.SQLITE_READONLY,
        xTruncate: () => capi.SQLITE_READONLY,
        xSync: () => ok,
        xFileSize(file: Pointer, size: Pointer) {
          try {
            wasm.poke64(size, BigInt(fs.fstatSync(fd(file)).size));
            return ok;
          } catch {
            return capi.SQLITE_IOERR_FSTAT;
          }
        },
        xLock: () => ok,
        xUnlock: () => ok,
        xCheckReservedLock(_file: Pointer, reserved: Pointer) {
          wasm.poke32(reserved, 0);
          return ok;
        },
        xFileControl: () => capi.SQLITE_NOTFOUND,
        xSectorSize: () => 4096,
        xDeviceCharacteristics: () => capi.SQLITE_IOCAP_IMMUTABLE,
      },
    },
    vfs: {
      struct: vfs,
      name: READ_ONLY_VFS,
      methods: {
        xOpen(_vfs: Pointer, name: Pointer, file: Pointer, _flags: number, outFlags: Pointer) {
          // A temporary file (no name) is never needed: SQLite keeps its temporary tables in memory here.
          if (!Number(name)) return capi.SQLITE_CANTOPEN;
          try {
            files.set(Number(file), fs.openSync(wasm.cstrToJs(name), 'r'));
          } catch {
            return capi.SQLITE_CANTOPEN;
          }
          const opened = new capi.sqlite3_file(file);
          opened.$pMethods = io.pointer;
          opened.dispose();
          if (Number(outFlags)) wasm.poke32(outFlags, capi.SQLITE_OPEN_READONLY);
          return ok;
        },
        xDelete: () => capi.SQLITE_READONLY,
        xAccess(_vfs: Pointer, name: Pointer, flags: number, result: Pointer) {
          // Readable files exist and can be read; none can be written through this VFS.
          let readable = true;
          try {
            fs.accessSync(wasm.cstrToJs(name), fs.constants.R_OK);
          } catch {
            readable = false;
          }
          wasm.poke32(result, readable && flags !== capi.SQLITE_ACCESS_READWRITE ? 1 : 0);
          return ok;
        },
        xFullPathname(_vfs: Pointer, name: Pointer, size: number, out: Pointer) {
          const bytes = Buffer.from(`${path.resolve(wasm.cstrToJs(name))}\0`);
          if (bytes.length > size) return capi.SQLITE_CANTOPEN;
          wasm.heap8u().set(bytes, Number(out));
          return ok;
        },
      },
    },
  });
}
