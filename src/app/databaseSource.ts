/**
 * Where a run's databases are, from its engine options (`--engine`, `--db-url`, `--db-layout`, `--db-root`,
 * `--embedded-cache`, `--busy-timeout`, as the CLI spells them): SQLite files under a folder (the default; the caller
 * checks the folder with its other inputs), a PostgreSQL server (a URL, which implies the postgres engine), with the
 * postgres engine and no server an embedded PostgreSQL loaded from the SQLite files (PGlite), or a MySQL / MariaDB
 * server, else a local MariaDB loaded from them. A combination that cannot be is a RunRefused naming the option.
 */
import * as path from 'path';
import { isMysqlTarget, redactMysqlText } from '../core/db/mysql/connectionTarget';
import { BirdServerOptions, localServerMissing } from '../core/db/mysql/localServer';
import { defaultEmbeddedCacheDir, EmbeddedLoadEvent } from '../core/db/pglite/embeddedCopy';
import { embeddedPostgres } from '../core/db/pglite/embeddedSource';
import { isPostgresTarget, redactText } from '../core/db/postgres/connectionTarget';
import { DatabaseSource, localMysql, mysqlServer, POSTGRES_LAYOUTS, PostgresLayout, postgresServer, sqliteFolder } from '../core/db/source';
import { sqliteBuild } from '../core/db/sqlite/sqliteBuild';
import { setBusyTimeout } from '../core/db/sqlite/sqliteConnection';
import { quoted } from '../core/text/problemText';
import { RunRefused } from './runRefused';

/** The engines a run may name. */
export const ENGINES = ['sqlite', 'postgres', 'mysql'] as const;

/** What the engine options may be, for a face's help and choices: the server layouts, the embedded copy's default folder. */
export function engineChoices(): { engines: readonly string[]; layouts: readonly PostgresLayout[]; embeddedCacheDir: string } {
  return { engines: ENGINES, layouts: POSTGRES_LAYOUTS, embeddedCacheDir: defaultEmbeddedCacheDir() };
}

export interface EngineSettings {
  dbRoot?: string;
  engine?: string;
  dbUrl?: string;
  dbLayout?: string;
  /** Where the embedded PostgreSQL keeps its copies of the SQLite databases (postgres without a URL). */
  embeddedCache?: string;
  /** Milliseconds a SQLite connection waits on a database another process has locked (0: no wait); undefined: the default. */
  busyTimeoutMs?: number;
}

/** What a face says while a local copy is built (once; later runs reuse it). */
export interface EngineLoadNotes {
  embeddedLoad?(event: EmbeddedLoadEvent): void;
  mysqlBuild?: BirdServerOptions['onBuild'];
}

/** The busy timeout for every SQLite connection this process opens from now on (a single file as a folder's). */
export function applyBusyTimeout(busyTimeoutMs: number | undefined): void {
  if (busyTimeoutMs !== undefined) setBusyTimeout(busyTimeoutMs);
}

/** The run's databases as its engine options say (see the top of this file); RunRefused for a combination that cannot be. */
export function databaseSource(settings: EngineSettings, notes: EngineLoadNotes = {}): DatabaseSource {
  applyBusyTimeout(settings.busyTimeoutMs);
  const engine = settings.engine ?? (settings.dbUrl === undefined ? 'sqlite' : isMysqlTarget(settings.dbUrl) ? 'mysql' : 'postgres');
  if (settings.embeddedCache !== undefined && (engine !== 'postgres' || settings.dbUrl !== undefined))
    throw new RunRefused('--embedded-cache', 'for the embedded PostgreSQL (--engine postgres --db-root, without --db-url)');
  if (engine === 'sqlite') {
    if (settings.dbUrl !== undefined) throw new RunRefused('--db-url', 'a PostgreSQL or MySQL server; with --engine sqlite give --db-root');
    if (settings.dbLayout !== undefined) throw new RunRefused('--db-layout', 'for a PostgreSQL server (--engine postgres --db-url ...)');
    if (settings.dbRoot === undefined)
      throw new RunRefused('--db-root', 'give the folder holding <db_id>/<db_id>.sqlite (or --engine postgres --db-url ...)');
    return sqliteFolder(settings.dbRoot);
  }
  if (engine === 'mysql') return mysqlSource(settings, notes);
  if (engine !== 'postgres') throw new RunRefused('--engine', `expected sqlite, postgres or mysql, got ${quoted(engine)}`);
  if (settings.dbUrl === undefined) {
    // No server: the embedded PostgreSQL, loaded from the SQLite files under --db-root.
    if (settings.dbRoot === undefined)
      throw new RunRefused(
        '--engine postgres',
        'give the server with --db-url postgresql://user@host:port/database, or --db-root to run an embedded PostgreSQL loaded from its SQLite files',
      );
    if (settings.dbLayout === 'database')
      throw new RunRefused(
        '--db-layout database',
        'the embedded PostgreSQL holds one database; use one-database or schema (or a server, --db-url)',
      );
    const layout = (settings.dbLayout ?? 'one-database') as 'one-database' | 'schema';
    return embeddedPostgres(settings.dbRoot, { layout, cacheDir: settings.embeddedCache, onLoad: notes.embeddedLoad });
  }
  if (!isPostgresTarget(settings.dbUrl))
    throw new RunRefused('--db-url', `expected postgresql://user@host:port/database, got ${quoted(redactText(settings.dbUrl))}`);
  const layout = (settings.dbLayout ?? 'one-database') as PostgresLayout;
  if (!POSTGRES_LAYOUTS.includes(layout))
    throw new RunRefused('--db-layout', `expected one of ${POSTGRES_LAYOUTS.join(', ')}, got ${quoted(layout)}`);
  try {
    return postgresServer(settings.dbUrl, layout);
  } catch (error) {
    throw new RunRefused('--db-url', (error as Error).message);
  }
}

/** The mysql engine: the server the URL names (the official dump's one database), else a local MariaDB loaded from the folder. */
function mysqlSource(settings: EngineSettings, notes: EngineLoadNotes): DatabaseSource {
  if (settings.dbLayout !== undefined && settings.dbLayout !== 'one-database')
    throw new RunRefused('--db-layout', 'a MySQL server holds the BIRD databases in one database, as the official dump (one-database)');
  if (settings.dbUrl === undefined) {
    if (settings.dbRoot === undefined)
      throw new RunRefused(
        '--engine mysql',
        'give the server with --db-url mysql://user@host:port/BIRD, or --db-root to run a local MariaDB server loaded from its SQLite files',
      );
    const missing = localServerMissing();
    if (missing) throw new RunRefused('--engine mysql without --db-url', missing);
    return localMysql(settings.dbRoot, { onBuild: notes.mysqlBuild });
  }
  if (!isMysqlTarget(settings.dbUrl))
    throw new RunRefused('--db-url', `expected mysql://user@host:port/BIRD, got ${quoted(redactMysqlText(redactText(settings.dbUrl)))}`);
  try {
    return mysqlServer(settings.dbUrl);
  } catch (error) {
    throw new RunRefused('--db-url', (error as Error).message);
  }
}

/**
 * Why SQLite runs as WebAssembly in this process (the native module's own reason, its results the same and its
 * timings slower), or undefined where the native module runs: a face says it before a run.
 */
export function sqliteFallback(): string | undefined {
  return sqliteBuild().fallback;
}

/**
 * Where an audit's compared gold runs (`--compare-engine`, `--compare-db-url`, `--compare-db-layout`, as the engine
 * options say it for the audited gold): by default where the audited gold runs (`auditSource`); PostgreSQL without
 * a server is the embedded engine loaded from the folder.
 */
export function comparedGoldSource(compare: EngineSettings, auditSource: DatabaseSource, notes: EngineLoadNotes = {}): DatabaseSource {
  if (compare.engine === undefined && compare.dbUrl === undefined && compare.dbLayout === undefined) return auditSource;
  const engine = compare.engine ?? (compare.dbUrl === undefined ? 'sqlite' : isMysqlTarget(compare.dbUrl) ? 'mysql' : 'postgres');
  if (engine === 'mysql') {
    if (compare.dbLayout !== undefined && compare.dbLayout !== 'one-database')
      throw new RunRefused('--compare-db-layout', 'a MySQL server holds the BIRD databases in one database (one-database)');
    return databaseSource({ engine: 'mysql', dbRoot: compare.dbRoot, dbUrl: compare.dbUrl }, notes);
  }
  if (engine === 'sqlite') {
    if (compare.dbUrl !== undefined || compare.dbLayout !== undefined)
      throw new RunRefused(
        '--compare-db-url',
        "a PostgreSQL server; with --compare-engine sqlite the compared gold runs on --db-root's files",
      );
    return sqliteFolder(compare.dbRoot!);
  }
  if (compare.dbUrl === undefined) {
    try {
      return databaseSource({ engine: 'postgres', dbRoot: compare.dbRoot }, notes);
    } catch {
      throw new RunRefused('--compare-engine postgres', 'give the server with --compare-db-url postgresql://user@host:port/database');
    }
  }
  if (!isPostgresTarget(compare.dbUrl))
    throw new RunRefused('--compare-db-url', `expected postgresql://user@host:port/database, got ${quoted(redactText(compare.dbUrl))}`);
  try {
    return postgresServer(compare.dbUrl, (compare.dbLayout ?? 'one-database') as PostgresLayout);
  } catch (error) {
    throw new RunRefused('--compare-db-url', (error as Error).message);
  }
}

/** One SQLite file as a run's databases: every db_id opens it (a statement's --db FILE), its folder's layout otherwise. */
export function sqliteFileSource(file: string): DatabaseSource {
  return { ...sqliteFolder(path.dirname(path.dirname(path.resolve(file)))), targetFor: () => path.resolve(file) };
}
