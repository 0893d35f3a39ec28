import * as path from 'node:path';
import type { DatabaseSource } from '../source';
import { postgresName } from '../postgres/identifiers';
import { CachedCopy, cachedCopy, copySources, defaultEmbeddedCacheDir, EmbeddedCopyOptions, forgetCopy, workingCopy } from './embeddedCopy';
import { EmbeddedPostgres } from './embeddedPostgres';
import { embeddedTarget, pgliteEngine, serveCopy } from './pgliteEngine';

/** What the embedded engine is, for reports: PostgreSQL compiled to WebAssembly, running in this process. */
export const EMBEDDED_BUILD = 'embedded PGlite, WASM';

/** Why timings from it are no server's, said beside VES and R-VES. */
export const EMBEDDED_TIMING_NOTE =
  "timings are PGlite's (PostgreSQL compiled to WASM, one thread, in this process), not a PostgreSQL server's: " +
  'they compare queries on this engine; time on a server (--db-url) to know a server';

/** Settings of every start of the thread: no transaction may write, whatever a session asks. */
const READ_ONLY: [string, string][] = [['default_transaction_read_only', 'on']];

/** The embedded PostgreSQL could not be made ready: the message names --db-root and why (a file, a clash, PGlite). */
export class EmbeddedUnavailable extends Error {}

export type EmbeddedSourceOptions = Partial<EmbeddedCopyOptions>;

/** A copy opened: its kept folder, the instance running on this process's working copy of it, and what it holds. */
interface Opened {
  copy: CachedCopy;
  instance: EmbeddedPostgres;
  version: string;
  dbIds: Set<string>;
}

/**
 * Copies opened in this process, by copy target (root and layout), with the key of the files they were built
 * from: sources of the same root share one instance (one thread, one working copy) while the files stay the same.
 */
const opened = new Map<string, { key: string; ready: Promise<Opened> }>();

/** Opens the kept copy on a working copy of this process; a copy kept from another PGlite release that does not open is built again, once. */
async function openCopy(root: string, options: EmbeddedCopyOptions): Promise<Opened> {
  let copy = await cachedCopy(root, options);
  for (;;) {
    const kept = copy.dataDir;
    const instance = new EmbeddedPostgres(() => workingCopy(kept), READ_ONLY);
    try {
      return { copy, instance, version: await instance.version(), dbIds: new Set(copy.dbIds) };
    } catch (error) {
      await instance.close();
      if (copy.built) throw error;
      forgetCopy(copy.dataDir);
      copy = await cachedCopy(root, options);
    }
  }
}

/**
 * The databases under a SQLite folder (BIRD's layout), run by an embedded PostgreSQL (PGlite) loaded from them:
 * no server needed. The copy is built on first use by `ves-lens load`'s loader (names and types as on a server it
 * loads), kept on disk for the next run (embeddedCopy.ts) and opened on a working copy of this process's own.
 * `layout` as on a server: every table in schema public (the official dump's way, the default) or a schema per db_id.
 */
export function embeddedPostgres(dbRoot: string, options: EmbeddedSourceOptions = {}): DatabaseSource {
  const layout = options.layout ?? 'one-database';
  const root = path.resolve(dbRoot);
  const copyOptions: EmbeddedCopyOptions = { ...options, layout, cacheDir: path.resolve(options.cacheDir ?? defaultEmbeddedCacheDir()) };
  const copyTarget = embeddedTarget(root, layout === 'schema' ? '' : undefined);
  const where = `the embedded PostgreSQL copy of ${dbRoot}`;

  /** This source's copy, fixed at first use (a file changed during a run does not swap it mid-way). */
  let mine: Promise<Opened> | undefined;
  const acquire = async (): Promise<Opened> => {
    try {
      const { key } = copySources(root, layout);
      const current = opened.get(copyTarget);
      if (current?.key === key) return await current.ready;
      const ready = openCopy(root, copyOptions);
      opened.set(copyTarget, { key, ready });
      // The copy of files since changed is closed (the sources using it were replaced with this one).
      current?.ready.then((previous) => previous.instance.close()).catch(() => undefined);
      const instance = ready.then((o) => o.instance);
      instance.catch(() => undefined);
      serveCopy(copyTarget, instance);
      ready.catch(() => {
        if (opened.get(copyTarget)?.ready === ready) opened.delete(copyTarget);
      });
      return await ready;
    } catch (error) {
      throw new EmbeddedUnavailable(`--db-root: cannot load ${dbRoot} into the embedded PostgreSQL: ${(error as Error).message}`);
    }
  };
  // A failure is said to everyone who asked; the next request tries again (a file may have been fixed meanwhile).
  const ready = (): Promise<Opened> => (mine ??= acquire().catch((error) => ((mine = undefined), Promise.reject(error))));

  return {
    engine: pgliteEngine,
    targetFor: (dbId) => (layout === 'schema' ? embeddedTarget(root, postgresName(dbId)) : copyTarget),
    exists: async (dbId) => (await ready()).dbIds.has(dbId),
    label: (dbId) => (layout === 'schema' ? `schema ${postgresName(dbId)} in ${where}` : `${dbId}'s tables in ${where}`),
    describe: async () => ({
      engine: pgliteEngine.name,
      version: (await ready()).version,
      runs: 'embedded',
      location: dbRoot,
      layout,
      build: EMBEDDED_BUILD,
      note: EMBEDDED_TIMING_NOTE,
    }),
  };
}
