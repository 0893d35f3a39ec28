/**
 * The embedded PostgreSQL's copies of BIRD SQLite databases, built once by `ves-lens load`'s loader and kept on
 * disk: one folder per database root, holding the PostgreSQL data folder of every database under it. A copy is
 * named by what it was built from (each SQLite file's size and modification time, the loader's version, the
 * layout), so it is reused while they stay the same and built again when one changes. A copy is built in a
 * folder of its own and renamed into place when complete, so two processes building at once never share a half.
 * Statements never run on the kept copy: each process works on a copy of it of its own (workingCopy). Both are
 * atomicFile's tracked temporaries: removed when the process exits, and when it was killed, by the next run.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { databasePath } from '../../bird/layout';
import {
  cleanStaleTemporaries,
  isStaleTemporary,
  temporaryFolder,
  temporaryOwner,
  temporaryPathFor,
  trackTemporary,
  untrackTemporary,
} from '../../io/atomicFile';
import {
  databasesUnder,
  LOADER_VERSION,
  LoadError,
  loadFromSqlite,
  LoadProgress,
  LoadReport,
  SqlExecutor,
} from '../postgres/loadFromSqlite';
import { PgliteThread } from './pgliteThread';
import { cacheFolder } from '../../io/cacheHome';

/** How the copy holds the databases: all tables in schema public (as the official dump), or a schema per db_id. */
export type EmbeddedLayout = 'one-database' | 'schema';

export interface EmbeddedCopyOptions {
  /** Where copies are kept; default defaultEmbeddedCacheDir(). */
  cacheDir?: string;
  layout: EmbeddedLayout;
  /** Told while a copy is built (nothing is said when one is reused). */
  onLoad?: (event: EmbeddedLoadEvent) => void;
}

/** The build of a copy: where it will be kept, how far the rows are, what it took. */
export type EmbeddedLoadEvent =
  | { kind: 'start'; cacheDir: string; databases: number }
  | ({ kind: 'rows' } & LoadProgress)
  | { kind: 'done'; rows: number; seconds: number };

/** A kept copy, ready to be worked on. */
export interface CachedCopy {
  /** The PostgreSQL data folder. */
  dataDir: string;
  /** The PostgreSQL version that built it. */
  version: string;
  /** Whether this call built it (else it was kept from an earlier run). */
  built: boolean;
  /** The db_ids it holds. */
  dbIds: string[];
  /** What the load changed or left out (from the load report), for reports. */
  notes: string[];
}

/** What a copy's manifest.json says (written last: a copy without one is incomplete). */
interface Manifest {
  key: string;
  loader: number;
  postgres: string;
  layout: EmbeddedLayout;
  db_root: string;
  databases: { db_id: string; size: number; mtime_ms: number }[];
  built: string;
  rows: number;
  seconds: number;
  notes: string[];
}

/** Where copies are kept unless told otherwise: $XDG_CACHE_HOME/ves-lens/pglite, or ~/.cache/ves-lens/pglite. */
export function defaultEmbeddedCacheDir(): string {
  return cacheFolder('pglite');
}

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/** The databases under a root and what names their copy: each file's size and modification time. */
export function copySources(dbRoot: string, layout: EmbeddedLayout): { key: string; databases: Manifest['databases'] } {
  if (!fs.existsSync(dbRoot) || !fs.statSync(dbRoot).isDirectory()) throw new LoadError(`${dbRoot} is not a folder`);
  const databases = databasesUnder(dbRoot).map((dbId) => {
    const stat = fs.statSync(databasePath(dbRoot, dbId));
    return { db_id: dbId, size: stat.size, mtime_ms: stat.mtimeMs };
  });
  if (databases.length === 0) throw new LoadError(`${dbRoot} holds no <db_id>/<db_id>.sqlite`);
  return { key: hash({ loader: LOADER_VERSION, layout, databases }), databases };
}

function readManifest(folder: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** The loader's statements, run by the build's PGlite thread. */
function threadExecutor(thread: PgliteThread): SqlExecutor {
  return {
    query: async (sql, params) => {
      const reply = await thread.request({ kind: 'query', sql, params });
      return { rows: reply.kind === 'rows' ? reply.rows : [] };
    },
    exec: async (sql) => void (await thread.request({ kind: 'exec', sql })),
  };
}

/** A data folder fresh from initdb, kept in the cache folder for every build to start from. */
interface InitdbTemplate {
  dataDir: string;
  /** Whether this call made it (else a run before did). */
  made: boolean;
}

/**
 * PGlite's initdb runs a second PostgreSQL beside the first and leaves hundreds of MiB in its thread (its WASM
 * memory never shrinks), where the rows would then be loaded: so initdb runs once per cache folder, in a thread
 * of its own, ended when done, and each build copies the folder it made (a build then needs no 4 s initdb, and
 * its thread starts on an existing folder at ~270 MiB). Made beside, renamed into place when complete.
 */
async function initdbTemplate(cacheDir: string): Promise<InitdbTemplate> {
  const folder = path.join(cacheDir, 'initdb');
  const dataDir = path.join(folder, 'pgdata');
  const complete = path.join(folder, 'complete');
  cleanStaleTemporaries(cacheDir); // one a killed run was making
  if (fs.existsSync(complete)) return { dataDir, made: false };
  const staging = temporaryPathFor(folder);
  trackTemporary(staging);
  try {
    fs.mkdirSync(staging, { recursive: true });
    const thread = new PgliteThread({ dataDir: path.join(staging, 'pgdata'), settings: [] });
    try {
      await thread.request({ kind: 'close' });
    } finally {
      await thread.terminate();
    }
    fs.writeFileSync(path.join(staging, 'complete'), '');
    placeFolder(staging, folder, () => fs.existsSync(complete));
    return { dataDir, made: true };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    untrackTemporary(staging);
  }
}

/**
 * Renames a complete `staging` folder into place as `folder`. An incomplete one there (a killed run's, half built or
 * half removed) is taken aside first, as nothing can be renamed onto it; a complete one another process placed
 * first is kept, and used (it may already be read).
 */
function placeFolder(staging: string, folder: string, isComplete: () => boolean): void {
  if (!isComplete()) removeAside(folder);
  try {
    fs.renameSync(staging, folder);
  } catch (error) {
    if (!isComplete()) throw error;
  }
}

/** Renames `folder` aside, then removes it: no one finds it half-removed, and a process killed meanwhile leaves a temporary the next run cleans. */
function removeAside(folder: string): void {
  const aside = temporaryPathFor(folder);
  try {
    fs.renameSync(folder, aside);
  } catch {
    return; // not there (or already taken aside by another process)
  }
  trackTemporary(aside);
  fs.rmSync(aside, { recursive: true, force: true });
  untrackTemporary(aside);
}

/** The loader's thread on a copy of the initdb template; a template made by another PGlite release that does not open is made again, once. */
async function loaderThread(dataDir: string, cacheDir: string): Promise<PgliteThread> {
  for (;;) {
    const template = await initdbTemplate(cacheDir);
    await fs.promises.cp(template.dataDir, dataDir, { recursive: true, mode: fs.constants.COPYFILE_FICLONE });
    const thread = new PgliteThread({ dataDir, settings: [] });
    try {
      await thread.ready;
      return thread;
    } catch (error) {
      await thread.terminate();
      if (template.made) throw error;
      removeAside(path.dirname(template.dataDir));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

/** Builds a copy of every database under `dbRoot` in `folder` (a new PostgreSQL data folder), closing it cleanly. */
async function build(dbRoot: string, folder: string, cacheDir: string, options: EmbeddedCopyOptions): Promise<LoadReport> {
  const thread = await loaderThread(path.join(folder, 'pgdata'), cacheDir);
  try {
    const report = await loadFromSqlite(
      { main: threadExecutor(thread), label: 'the embedded PostgreSQL' },
      { from: dbRoot, layout: options.layout, onProgress: (progress) => options.onLoad?.({ kind: 'rows', ...progress }) },
    );
    // Every row frozen and visible now: statements that only read never write a page of the copy afterwards.
    await thread.request({ kind: 'exec', sql: 'VACUUM (FREEZE)' });
    await thread.request({ kind: 'close' });
    return report;
  } finally {
    await thread.terminate();
  }
}

/**
 * The kept copy of every SQLite database under `dbRoot` (BIRD's layout), built first when there is none for
 * these files. Fails with a LoadError naming the file or the clash when a database cannot be loaded.
 */
export async function cachedCopy(dbRoot: string, options: EmbeddedCopyOptions): Promise<CachedCopy> {
  const cacheDir = path.resolve(options.cacheDir ?? defaultEmbeddedCacheDir());
  const root = path.resolve(dbRoot);
  const { key, databases } = copySources(root, options.layout);
  const rootFolder = path.join(cacheDir, hash(root));
  const folder = path.join(rootFolder, key);
  cleanStaleTemporaries(rootFolder); // builds of killed runs, even when this run builds nothing
  const kept = readManifest(folder);
  const dbIds = databases.map((database) => database.db_id);
  if (kept?.key === key) return { dataDir: path.join(folder, 'pgdata'), version: kept.postgres, built: false, dbIds, notes: kept.notes };

  fs.mkdirSync(rootFolder, { recursive: true });
  const started = performance.now();
  const staging = temporaryPathFor(folder);
  trackTemporary(staging);
  try {
    fs.mkdirSync(staging);
    options.onLoad?.({ kind: 'start', cacheDir, databases: databases.length });
    const report = await build(root, staging, cacheDir, options);
    const manifest: Manifest = {
      key,
      loader: LOADER_VERSION,
      postgres: report.server,
      layout: options.layout,
      db_root: root,
      databases,
      built: new Date().toISOString(),
      rows: report.rows,
      seconds: report.seconds,
      notes: report.databases.flatMap((database) => database.notes.map((note) => `${database.dbId}: ${note}`)),
    };
    fs.writeFileSync(path.join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    placeFolder(staging, folder, () => readManifest(folder) !== undefined);
    removeOtherCopies(rootFolder, key);
    options.onLoad?.({ kind: 'done', rows: report.rows, seconds: (performance.now() - started) / 1000 });
    return { dataDir: path.join(folder, 'pgdata'), version: manifest.postgres, built: true, dbIds, notes: manifest.notes };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    untrackTemporary(staging);
  }
}

/** Copies of the same root built from files since changed, and builds left by dead processes. */
function removeOtherCopies(rootFolder: string, current: string): void {
  for (const name of fs.readdirSync(rootFolder)) {
    // A build under way (here, or on another host sharing the folder) is left alone.
    if (name === current || (temporaryOwner(name) !== undefined && !isStaleTemporary(path.join(rootFolder, name)))) continue;
    fs.rmSync(path.join(rootFolder, name), { recursive: true, force: true });
  }
}

/** Drops a kept copy (one PostgreSQL can no longer open, after an upgrade), so the next cachedCopy builds it again. */
export function forgetCopy(dataDir: string): void {
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
}

/** A data folder a thread may run on alone (PostgreSQL writes to it), removed once the thread is done with it. */
export interface WorkingCopy {
  dataDir: string;
  remove(): void;
}

/**
 * A copy of a kept data folder for one thread of this process, removed when the process exits: statements run
 * there, so the kept copy is never opened by PostgreSQL and a statement stopped mid-way cannot harm it. Copies
 * left by processes that died are removed first. Copied off the event loop: a second thread's copy is made while
 * the first one's rows are read and compared.
 */
export async function workingCopy(dataDir: string): Promise<WorkingCopy> {
  // Named with the pid and host, so a later run knows whether the copy's owner still runs (core/io/atomicFile.ts).
  const folder = temporaryFolder();
  const copy = path.join(folder, 'pgdata');
  await fs.promises.cp(dataDir, copy, { recursive: true, mode: fs.constants.COPYFILE_FICLONE });
  return {
    dataDir: copy,
    remove: () => {
      fs.rmSync(folder, { recursive: true, force: true });
      untrackTemporary(folder);
    },
  };
}
