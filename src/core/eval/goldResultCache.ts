/**
 * Gold results kept between runs (issue 21). Every prediction file of a benchmark is scored against the same gold
 * queries on the same databases, and a user runs eval again and again: the gold queries are two thirds of the SQL
 * work of a run. A gold result is kept only where running the gold again must give the same rows:
 *
 * - SQLite files only: the key holds the file's identity (real path, device, inode, size, modification and change
 *   times, the -wal and -journal files' sizes and times; stat alone), SQLite's version, this build of VES Lens,
 *   this cache's format and the exact gold text. A changed, copied or touched database never meets an old entry; a
 *   file renamed over the path while its connection was open (which still reads the old file), or written while
 *   the gold ran, is neither read nor stored.
 * - Only results that ran to the end (`ok`), of at most MAX_ENTRY_ROWS rows and MAX_ENTRY_BYTES serialized
 *   (v8.serialize keeps numbers, -0, NaN, strings, null and Buffers exactly).
 * - Never a gold whose text reads the clock, chance or the connection's history (volatileReason): random(),
 *   date('now'), CURRENT_TIMESTAMP, changes(), and any date and time function at all, since a value in the data
 *   ('now', 'localtime') can read the clock as well as a literal can.
 * - A hit is used only within the bounds in use (rows and bytes of the lane's share, see usableUnder) and when the
 *   gold took under half the time limit when it was stored (nearer the limit, its timeout depends on the moment).
 *
 * Entries are files `<sha256>.v8` in one folder (default cacheFolder('gold-results')), written atomically; a hit
 * refreshes the file's time, and the first store of a run deletes the least recently used entries past
 * FOLDER_BYTES. An unreadable or damaged entry is a miss and is removed; a folder that cannot be written (read-only,
 * full) turns storing off for the run, said once.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as v8 from 'v8';
import { MEMORY_BOUNDS, ResultLimits, Row, VALUE_OVERHEAD_BYTES } from '../db/database';
import { DatabaseConnection, DatabaseEngine } from '../db/engine';
import { QueryRun, readQuery } from '../db/readQuery';
import { cacheFolder, cachePathForDisplay } from '../io/cacheHome';
import { writeCacheEntry } from '../io/cacheFile';
import { Token, tokenize } from '../sql/lexer';

/** Bumped whenever what an entry holds, or what a hit must agree with, changes: old entries are then never met. */
const CACHE_FORMAT = 1;
export const MAX_ENTRY_ROWS = 10_000;
export const MAX_ENTRY_BYTES = 2 ** 20;
/** The folder's bounds, checked at the first store of each run: bytes on disk, and entries (each run stats them all). */
export const FOLDER_BYTES = 256 * 2 ** 20;
export const FOLDER_ENTRIES = 20_000;
const ENTRY_SUFFIX = '.v8';

/** Turns the cache off for `eval` whatever the command line says (as --no-gold-cache). */
export const NO_GOLD_CACHE_ENV = 'VES_LENS_NO_GOLD_CACHE';

/** What the JSON report's `inputs.gold_cache` holds. */
export interface GoldCacheCounts {
  folder: string;
  /** Gold results taken from the cache instead of running the gold. */
  hits: number;
  /** Gold results written to it in this run. */
  stored: number;
}

/** One stored gold result, as the file holds it. */
interface GoldEntry {
  format: number;
  key: string;
  sql: string;
  rows: Row[];
  /** How long the gold took when it was stored: the prediction gets the rest of the shared time limit. */
  elapsedMs: number;
  /** An upper bound of the bytes the connection would count for these rows (resultBytesBound). */
  resultBytes: number;
}

/** A gold result from the cache. */
export interface CachedGold {
  rows: Row[];
  elapsedMs: number;
}

/** The bounds a run of the gold would meet now: the row limit and byte budget of the connection in use, and the time limit. */
export interface GoldBounds {
  maxRows: number;
  maxBytes?: number;
  timeoutMs: number;
}

const NOT_A_FUNCTION_OF_THE_DATA = new Set(['random', 'randomblob', 'changes', 'total_changes', 'last_insert_rowid']);
const CLOCK_KEYWORDS = new Set(['current_date', 'current_time', 'current_timestamp']);
const DATE_AND_TIME_FUNCTIONS = new Set(['date', 'time', 'datetime', 'julianday', 'unixepoch', 'strftime', 'timediff']);
const CLOCK_STRINGS = new Set(['now', 'localtime', 'utc']);

/** A string, identifier or word token's text without its quotes, lower-cased. */
function tokenName(token: Token): string {
  const text = token.kind === 'string' || token.kind === 'quoted' ? token.text.slice(1, -1) : token.text;
  return text.trim().toLowerCase();
}

/**
 * Why a gold's result may differ between two runs on the same database, or undefined when it is a function of the
 * data. Read from the lexer's tokens, so a name inside a comment counts for nothing and one in quotes still counts.
 */
export function volatileReason(sql: string): string | undefined {
  const tokens = [...tokenize(sql)].filter((token) => token.kind !== 'space' && token.kind !== 'comment');
  for (const [i, token] of tokens.entries()) {
    const name = tokenName(token);
    const called = tokens[i + 1]?.text === '(' && (token.kind === 'word' || token.kind === 'quoted');
    if (called && NOT_A_FUNCTION_OF_THE_DATA.has(name)) return `calls ${name}()`;
    if (called && DATE_AND_TIME_FUNCTIONS.has(name)) return `calls ${name}(), which reads the clock for 'now' wherever it is`;
    if (token.kind === 'word' && CLOCK_KEYWORDS.has(name)) return `reads ${name.toUpperCase()}`;
    if ((token.kind === 'string' || token.kind === 'quoted') && CLOCK_STRINGS.has(name)) return `holds '${name}'`;
  }
  return undefined;
}

/**
 * An upper bound of what the SQLite connection counts for a result against its byte budget: each value's
 * length(CAST(v AS BLOB)) (a number's text is at most 32 bytes; a string at most its UTF-8 or UTF-16 bytes) plus
 * VALUE_OVERHEAD_BYTES, as DatabaseConnection.streamRows counts them.
 */
export function resultBytesBound(rows: readonly Row[]): number {
  let bytes = 0;
  for (const row of rows) {
    for (const value of row) {
      bytes += VALUE_OVERHEAD_BYTES;
      if (typeof value === 'number') bytes += 32;
      else if (typeof value === 'string') bytes += Math.max(Buffer.byteLength(value), 2 * value.length);
      else if (Buffer.isBuffer(value)) bytes += value.length;
      else if (value !== null) bytes += Infinity; // not a SQLite value
    }
  }
  return bytes;
}

const isSqliteValue = (value: unknown) =>
  value === null || typeof value === 'number' || typeof value === 'string' || Buffer.isBuffer(value);

function isEntry(value: unknown, key: string, sql: string): value is GoldEntry {
  const entry = value as GoldEntry;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    entry.format === CACHE_FORMAT &&
    entry.key === key &&
    entry.sql === sql &&
    Number.isFinite(entry.elapsedMs) &&
    entry.elapsedMs >= 0 &&
    Number.isFinite(entry.resultBytes) &&
    Array.isArray(entry.rows) &&
    entry.rows.length <= MAX_ENTRY_ROWS &&
    entry.rows.every((row) => Array.isArray(row) && row.every(isSqliteValue))
  );
}

const statOf = (file: string) => fs.statSync(file, { bigint: true, throwIfNoEntry: false });

/**
 * The database file as it is now, for the key; undefined when it cannot be read (then nothing is cached). Read with
 * stat alone, never by opening the file: closing a descriptor of a database file drops every POSIX lock this
 * process holds on it, SQLite's read locks on the lanes' connections included, and another process could then write
 * under a lane's feet. A write changes the size or the modification and change times (and WAL commits the -wal
 * file's), so no header is read.
 */
function databaseIdentity(file: string): unknown[] | undefined {
  try {
    const real = fs.realpathSync(file);
    const stat = fs.statSync(real, { bigint: true });
    if (!stat.isFile()) return undefined;
    const companion = (suffix: string) => {
      const other = statOf(real + suffix);
      return other ? [other.size, other.mtimeNs, other.ctimeNs, other.ino] : null;
    };
    return [real, stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs, companion('-wal'), companion('-journal')];
  } catch {
    return undefined;
  }
}

const asKeyText = (value: unknown) => JSON.stringify(value, (_, part: unknown) => (typeof part === 'bigint' ? String(part) : part));

/**
 * This build of VES Lens (the running bundle's size and time): rows read and compared by other code are never met,
 * whether or not CACHE_FORMAT was bumped.
 */
const BUILD_IDENTITY = (() => {
  try {
    const stat = fs.statSync(__filename);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'unknown';
  }
})();

const versions = new WeakMap<DatabaseEngine, Promise<string>>();

/** SQLite's version (asked once per engine): another SQLite may plan an unordered query's rows in another order. */
function engineVersion(engine: DatabaseEngine): Promise<string> {
  let version = versions.get(engine);
  if (!version) {
    version = engine.version();
    versions.set(engine, version);
  }
  return version;
}

/** Where a gold result is kept, or would be. */
export interface GoldSlot {
  key: string;
  file: string;
  sql: string;
  /** The database's identity when the slot was made: a result is stored only if the file is still that one after. */
  database: string;
  /** The connection the gold runs on. */
  db: DatabaseConnection;
}

export class GoldResultCache {
  private hits = 0;
  private stored = 0;
  private storing = true;
  private pruned = false;

  constructor(
    readonly folder: string = cacheFolder('gold-results'),
    private readonly options: { folderBytes?: number; onNote?: (message: string) => void } = {},
  ) {}

  counts(): GoldCacheCounts {
    return { folder: this.folder, hits: this.hits, stored: this.stored };
  }

  /** Where this gold's result is kept on this database, or undefined when it must never be cached. */
  async slot(db: DatabaseConnection, sql: string): Promise<GoldSlot | undefined> {
    if (db.engine.name !== 'sqlite' || volatileReason(sql) !== undefined) return undefined;
    const identity = databaseIdentity(db.path);
    // A file renamed over the path since the connection was opened is not the one it reads: no slot for either.
    if (!identity || !db.openedFile || db.openedFile.dev !== identity[1] || db.openedFile.ino !== identity[2]) return undefined;
    let version: string;
    try {
      version = await engineVersion(db.engine);
    } catch {
      return undefined;
    }
    const database = asKeyText(identity);
    const key = createHash('sha256')
      .update(asKeyText([CACHE_FORMAT, BUILD_IDENTITY, version, database, sql]))
      .digest('hex');
    return { key, file: path.join(this.folder, key + ENTRY_SUFFIX), sql, database, db };
  }

  /** The stored result, when there is one that running the gold within `bounds` would give; a damaged entry is removed. */
  read(slot: GoldSlot, bounds: GoldBounds): CachedGold | undefined {
    let data: Buffer;
    try {
      const size = fs.statSync(slot.file).size;
      if (size > 2 * MAX_ENTRY_BYTES) throw new Error('too large for an entry');
      data = fs.readFileSync(slot.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.remove(slot.file);
      return undefined;
    }
    let entry: unknown;
    try {
      entry = v8.deserialize(data);
    } catch {
      entry = undefined;
    }
    if (!isEntry(entry, slot.key, slot.sql)) {
      this.remove(slot.file);
      return undefined;
    }
    if (!usableUnder(entry, bounds)) return undefined;
    this.hits++;
    const now = new Date();
    try {
      fs.utimesSync(slot.file, now, now); // least recently used goes first when the folder is pruned
    } catch {
      // a read-only cache still serves
    }
    return { rows: entry.rows, elapsedMs: entry.elapsedMs };
  }

  /**
   * Keeps a gold result that ran to the end, if it is small enough and the database file is still the one the slot
   * was made for (a write or a rename during the run keeps nothing); never throws.
   */
  write(slot: GoldSlot, rows: Row[], elapsedMs: number): void {
    if (!this.storing || rows.length > MAX_ENTRY_ROWS) return;
    const entry: GoldEntry = { format: CACHE_FORMAT, key: slot.key, sql: slot.sql, rows, elapsedMs, resultBytes: resultBytesBound(rows) };
    if (!Number.isFinite(entry.resultBytes)) return;
    const data = v8.serialize(entry);
    if (data.length > MAX_ENTRY_BYTES) return;
    const now = databaseIdentity(slot.db.path);
    if (!now || asKeyText(now) !== slot.database) return;
    const existed = fs.existsSync(slot.file);
    try {
      if (!this.pruned) {
        this.pruned = true;
        pruneFolder(this.folder, this.options.folderBytes ?? FOLDER_BYTES);
      }
      writeCacheEntry(slot.file, data);
      if (!existed) this.stored++; // a hit turned down for a lane's share writes its entry again: not a new one
    } catch (error) {
      this.storing = false;
      this.options.onNote?.(`gold results are not cached in this run: cannot write ${this.folder} (${(error as Error).message})`);
    }
  }

  private remove(file: string): void {
    try {
      fs.rmSync(file, { force: true });
    } catch {
      // a read-only cache: the entry stays a miss
    }
  }
}

/**
 * Whether a stored result may stand for running the gold now: within the row limit and byte budget of the
 * connection in use (a lane's share, so a hit never lets a question past a bound the gold would have met), and
 * stored when the gold took under half the time limit.
 */
export function usableUnder(entry: Pick<GoldEntry, 'rows' | 'resultBytes' | 'elapsedMs'>, bounds: GoldBounds): boolean {
  return (
    entry.rows.length <= bounds.maxRows &&
    entry.resultBytes <= (bounds.maxBytes ?? MEMORY_BOUNDS.resultBytes) &&
    entry.elapsedMs < bounds.timeoutMs / 2
  );
}

/** Deletes the least recently used entries until the folder's entries take at most `limit` bytes on disk and number at most `maxEntries`. */
export function pruneFolder(folder: string, limit: number, maxEntries = FOLDER_ENTRIES): void {
  let names: string[];
  try {
    names = fs.readdirSync(folder).filter((name) => name.endsWith(ENTRY_SUFFIX));
  } catch {
    return; // not made yet
  }
  const entries = names.flatMap((name) => {
    const file = path.join(folder, name);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    // What the entry takes on disk: most are under a block, and a folder of small files is bounded by its blocks.
    return stat ? [{ file, size: Math.max(stat.size, stat.blocks * 512), used: stat.mtimeMs }] : [];
  });
  let total = entries.reduce((sum, entry) => sum + entry.size, 0);
  let count = entries.length;
  entries.sort((a, b) => a.used - b.used);
  for (const entry of entries) {
    if (total <= limit && count <= maxEntries) break;
    fs.rmSync(entry.file, { force: true });
    total -= entry.size;
    count--;
  }
}

/** Values of VES_LENS_NO_GOLD_CACHE that leave the cache on (unset is the same). */
const NOT_OFF = new Set(['', '0', 'false', 'no', 'off']);

/**
 * Why the cache is off for a run on SQLite (`--no-gold-cache`, or VES_LENS_NO_GOLD_CACHE set to anything but
 * 0/false/no/off), or undefined when it is on.
 */
export function goldCacheOffReason(asked: boolean, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!asked) return '--no-gold-cache';
  const value = env[NO_GOLD_CACHE_ENV];
  if (value !== undefined && !NOT_OFF.has(value.trim().toLowerCase())) return `${NO_GOLD_CACHE_ENV}=${value}`;
  return undefined;
}

/** The cache `eval` uses on SQLite, unless goldCacheOffReason says why not. */
export function goldCacheFor(
  engineName: string,
  asked: boolean,
  onNote?: (message: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): GoldResultCache | undefined {
  if (engineName !== 'sqlite' || goldCacheOffReason(asked, env) !== undefined) return undefined;
  return new GoldResultCache(cacheFolder('gold-results'), { onNote });
}

/** What readGoldQuery reads of a run's options (EvalOptions). */
export interface GoldRunOptions {
  /** The pair's time limit, gold and prediction together. */
  timeoutMs: number;
  goldCache?: GoldResultCache;
  /** How many lanes divide the result bounds: at least the lanes in use (parallelEval.ts's laneCount). */
  jobs?: number;
}

/**
 * The gold of one pair, run or taken from the cache. `limits` are the pair's (the official scripts give gold and
 * prediction one time limit together); `shared` is what is left of them for the prediction: on a hit, the limit
 * minus the gold's stored time. A hit is only used where the gold's rows fit each lane's share of the result bounds
 * (parallelEval.ts cuts a lane's results at 1/jobs of them), so it never lets a question past a bound the gold
 * would have met.
 */
export async function readGoldQuery(
  db: DatabaseConnection,
  sql: string,
  limits: ResultLimits,
  { timeoutMs, goldCache: cache, jobs }: GoldRunOptions,
): Promise<{ gold: QueryRun; shared: ResultLimits }> {
  const slot = cache && (await cache.slot(db, sql));
  if (cache && slot) {
    const lanes = Math.max(1, jobs ?? 1);
    const bounds = {
      maxRows: Math.max(1, Math.floor(limits.maxRows / lanes)),
      maxBytes: Math.floor((limits.maxBytes ?? MEMORY_BOUNDS.resultBytes) / lanes),
      timeoutMs,
    };
    const cached = cache.read(slot, bounds);
    if (cached) {
      const shared = { ...limits, deadline: performance.now() + timeoutMs - cached.elapsedMs };
      return { gold: { status: 'ok', rows: cached.rows }, shared };
    }
  }
  const started = performance.now();
  const gold = await readQuery(db, sql, limits);
  if (cache && slot && gold.status === 'ok') cache.write(slot, gold.rows, performance.now() - started);
  return { gold, shared: limits };
}

/**
 * A run's one line about the cache (the terminal, the language server's log). The golds neither taken nor stored
 * ran and were not kept: failed, too large, reading the clock, or kept already by a run beside this one.
 */
export function goldCacheLine(counts: GoldCacheCounts): string {
  return `gold results: ${counts.hits} taken from the cache, ${counts.stored} stored (${cachePathForDisplay(counts.folder)})`;
}

/** The line of a run on SQLite with the cache off, so that a variable left set in a shell is seen. */
export function goldCacheOffLine(reason: string): string {
  return `gold results: not cached in this run, every gold runs (${reason})`;
}

/**
 * `inputs.gold_cache` of shards merged into one report: the counts summed; null when a shard ran without the cache;
 * undefined when no shard says (reports written before it).
 */
export function mergedGoldCacheCounts(shards: readonly unknown[]): GoldCacheCounts | null | undefined {
  if (shards.every((counts) => counts === undefined)) return undefined;
  const all = shards as Partial<GoldCacheCounts>[];
  if (all.some((counts) => typeof counts?.hits !== 'number' || typeof counts.stored !== 'number' || typeof counts.folder !== 'string'))
    return null;
  return {
    folder: [...new Set(all.map((counts) => counts.folder))].join(', '),
    hits: all.reduce((sum, counts) => sum + (counts.hits ?? 0), 0),
    stored: all.reduce((sum, counts) => sum + (counts.stored ?? 0), 0),
  };
}
