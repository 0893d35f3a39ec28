import { wasmDriver } from '../sqliteWasm/wasmDriver';
import { nativeDriver, nativeSqliteProblem } from './nativeDriver';
import { SqliteDriver } from './sqliteHandle';

/** The build of SQLite this process runs, and why it is the WebAssembly one when it is. */
export interface SqliteBuild {
  driver: SqliteDriver;
  /** Set when SQLite runs as WebAssembly: why (node-sqlite3 did not load, or VES_LENS_SQLITE asked for it). */
  fallback?: string;
}

let chosen: SqliteBuild | undefined;

/**
 * node-sqlite3 where its native module loads, else SQLite compiled to WebAssembly (the same results, slower).
 * VES_LENS_SQLITE=wasm asks for WebAssembly (tests, or a native module that loads but misbehaves);
 * VES_LENS_SQLITE=native refuses the fallback (a missing native module then fails every open with its reason).
 * Chosen once per process.
 */
export function sqliteBuild(): SqliteBuild {
  if (chosen) return chosen;
  const wanted = (process.env.VES_LENS_SQLITE ?? '').trim().toLowerCase();
  if (wanted === 'wasm' || wanted === 'webassembly') return (chosen = { driver: wasmDriver, fallback: `VES_LENS_SQLITE=${wanted}` });
  const problem = nativeSqliteProblem();
  if (!problem || wanted === 'native') return (chosen = { driver: nativeDriver });
  return (chosen = { driver: wasmDriver, fallback: `the native SQLite module (@vscode/sqlite3) does not load here: ${problem}` });
}

/** What reports say of a WebAssembly SQLite's timings (as of PGlite's): they compare queries on this build only. */
export const WASM_TIMING_NOTE =
  "SQLite runs as WebAssembly here: timings by VES Lens's own clock are WebAssembly's (slower than native SQLite, " +
  'one thread per connection), comparing queries on this build only';
