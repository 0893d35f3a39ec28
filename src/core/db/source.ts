import { databaseExists, databasePath } from '../bird/layout';
import { DatabaseEngine } from './engine';
import { openDatabase, sqliteVersion } from './engines';
import { deriveTarget, redactUrl, registerPostgresUrl, serverSetting } from './postgres/connectionTarget';
import { postgresName, quotePostgresName } from './postgres/identifiers';
import { postgresEngine } from './postgres/postgresEngine';
import { PostgresConnection } from './postgres/postgresConnection';
import { sqliteBuild, WASM_TIMING_NOTE } from './sqlite/sqliteBuild';
import { sqliteEngine } from './sqlite/sqliteEngine';
import { mysqlDatabase, redactMysqlUrl, registerMysqlUrl } from './mysql/connectionTarget';
import { BirdServerOptions, localBirdTarget } from './mysql/localServer';
import { isMariaDb, MysqlConnection } from './mysql/mysqlConnection';
import { mysqlEngine } from './mysql/mysqlEngine';

/**
 * How a PostgreSQL server holds a dataset's databases: `one-database` (every BIRD database's tables in one
 * database, schema public, as mini_dev's official dump and scripts have them), `schema` (one schema per db_id,
 * reached through search_path) or `database` (one database per db_id).
 */
export type PostgresLayout = 'one-database' | 'schema' | 'database';
export const POSTGRES_LAYOUTS: readonly PostgresLayout[] = ['one-database', 'schema', 'database'];

/** What runs a dataset's SQL, for reports: never a password. */
export interface EngineDescription {
  /** `sqlite` or `postgres` (the engine's name). */
  engine: string;
  /** The SQLite library's version, or the PostgreSQL server's. */
  version: string;
  /** A MySQL-protocol server's product: `MariaDB` or `MySQL` (what ran the SQL; their SQL and collations differ). */
  product?: 'MariaDB' | 'MySQL';
  /** `embedded` (in this process) or `server`. */
  runs: 'embedded' | 'server';
  /** The database folder, or the server's URL without its password. */
  location: string;
  layout?: PostgresLayout;
  /**
   * An engine embedded in another build than its own: `embedded PGlite, WASM` (PostgreSQL compiled to WebAssembly),
   * `WebAssembly` (SQLite compiled to it, where the native module does not load).
   */
  build?: string;
  /** What a reader of its results must know (an embedded WASM engine's timings are not a server's). */
  note?: string;
}

/**
 * How a dataset reaches its databases, one per BIRD db_id: a folder of SQLite files in BIRD's layout, or a
 * PostgreSQL server in one of its layouts. Every feature that opens a question's database asks its source,
 * so the same run works on either engine.
 */
export interface DatabaseSource {
  readonly engine: DatabaseEngine;
  /** The target a question's database is opened on (a SQLite file path; a connection URL without password). */
  targetFor(dbId: string): string;
  /** Whether the database is there (a SQLite file exists; a schema or database exists on the server). */
  exists(dbId: string): Promise<boolean>;
  /** How messages name a question's database: the file's path, or the schema or database on the server. */
  label(dbId: string): string;
  /** What runs the SQL (connecting once on a server): fails with the engine's reason when it cannot be reached. */
  describe(): Promise<EngineDescription>;
}

/** SQLite files under a folder in BIRD's layout, `<db_root>/<db_id>/<db_id>.sqlite` (bird/layout.ts). */
export function sqliteFolder(dbRoot: string): DatabaseSource {
  return {
    engine: sqliteEngine,
    targetFor: (dbId) => databasePath(dbRoot, dbId),
    exists: async (dbId) => databaseExists(dbRoot, dbId),
    label: (dbId) => databasePath(dbRoot, dbId),
    describe: () => sqliteDescription(dbRoot),
  };
}

/** SQLite at `location` (a folder or a file): its version and, when it runs as WebAssembly, why and what that means for timings. */
export async function sqliteDescription(location: string): Promise<EngineDescription> {
  const description: EngineDescription = { engine: sqliteEngine.name, version: await sqliteVersion(), runs: 'embedded', location };
  const { fallback } = sqliteBuild();
  return fallback ? { ...description, build: 'WebAssembly', note: `${WASM_TIMING_NOTE} (${fallback})` } : description;
}

/** Runs a catalog query on the server's base database (the URL's own) and closes the connection. */
async function onServer<T>(target: string, read: (connection: PostgresConnection) => Promise<T>): Promise<T> {
  const connection = (await openDatabase(target)) as PostgresConnection;
  try {
    return await read(connection);
  } finally {
    await connection.close();
  }
}

/**
 * A PostgreSQL server at `url` (libpq's URL; its password is kept out of every target and message) holding
 * the databases in `layout`, named as `ves-lens load` names them (postgres/identifiers.ts).
 */
export function postgresServer(url: string, layout: PostgresLayout = 'one-database'): DatabaseSource {
  const base = registerPostgresUrl(url);
  const shown = redactUrl(base);
  // Schemas or databases on the server, read once (the layouts where each db_id has its own).
  let names: Promise<Set<string>> | undefined;
  const namesOnServer = () =>
    (names ??= onServer(base, async (connection) => {
      const rows = await connection.all(
        layout === 'schema' ? 'SELECT nspname AS name FROM pg_catalog.pg_namespace' : 'SELECT datname AS name FROM pg_catalog.pg_database',
      );
      return new Set(rows.map((row) => String(row.name)));
    }));
  const targets = new Map<string, string>();
  const targetFor = (dbId: string): string => {
    let target = targets.get(dbId);
    if (target === undefined) {
      target =
        layout === 'one-database'
          ? base
          : layout === 'database'
            ? deriveTarget(base, (parsed) => (parsed.pathname = `/${encodeURIComponent(postgresName(dbId))}`))
            : deriveTarget(base, (parsed) => {
                const options = [parsed.searchParams.get('options'), serverSetting('search_path', quotePostgresName(postgresName(dbId)))];
                parsed.searchParams.set('options', options.filter(Boolean).join(' '));
              });
      targets.set(dbId, target);
    }
    return target;
  };
  return {
    engine: postgresEngine,
    targetFor,
    // One database holds every db_id's tables: there is no per-db_id place to look for.
    exists: async (dbId) => layout === 'one-database' || (await namesOnServer()).has(postgresName(dbId)),
    label: (dbId) =>
      layout === 'one-database'
        ? `${dbId}'s tables in ${shown}`
        : layout === 'schema'
          ? `schema ${postgresName(dbId)} in ${shown}`
          : redactUrl(targetFor(dbId)),
    describe: async () => ({
      engine: postgresEngine.name,
      version: await onServer(base, (connection) => connection.serverVersion()),
      runs: 'server',
      location: shown,
      layout,
    }),
  };
}

/** `MariaDB` or `MySQL`, from a server's VERSION(). */
function mysqlProduct(version: string): 'MariaDB' | 'MySQL' {
  return isMariaDb(version) ? 'MariaDB' : 'MySQL';
}

/** Runs a catalog query on a MySQL server (the target's database) and closes the connection. */
async function onMysql<T>(target: string, read: (connection: MysqlConnection) => Promise<T>): Promise<T> {
  const connection = (await openDatabase(target)) as MysqlConnection;
  try {
    return await read(connection);
  } finally {
    await connection.close();
  }
}

/**
 * A MySQL or MariaDB server at `url` (`mysql://user@host:port/BIRD`, or `?socket=` for a unix socket; its password
 * is kept out of every target and message) holding every BIRD database's tables in the URL's database, as the
 * official dump loads them.
 */
export function mysqlServer(url: string): DatabaseSource {
  const target = registerMysqlUrl(url);
  if (!mysqlDatabase(target))
    throw new Error(`${redactMysqlUrl(target)} names no database (the official dump's is BIRD: mysql://user@host/BIRD)`);
  return mysqlSource(target, redactMysqlUrl(target));
}

function mysqlSource(target: string, location: string, local?: () => Promise<{ dbIds: string[] }>): DatabaseSource {
  return {
    engine: mysqlEngine,
    targetFor: () => target,
    // One database holds every db_id's tables: there is no per-db_id place to look for, except what a local copy loaded.
    exists: async (dbId) => (local ? (await local()).dbIds.includes(dbId) : true),
    label: (dbId) => `${dbId}'s tables in ${location}`,
    describe: async () => {
      const version = await onMysql(target, (connection) => connection.serverVersion());
      return {
        engine: mysqlEngine.name,
        version,
        product: mysqlProduct(version),
        runs: 'server',
        location,
        layout: 'one-database',
        ...(local ? { build: 'local server' } : {}),
      };
    },
  };
}

/**
 * The BIRD databases under a SQLite folder, served by a throwaway MariaDB (or MySQL) server of this run on a unix
 * socket, loaded from them once and kept (mysql/localServer.ts): no server of the user's needed.
 */
export function localMysql(dbRoot: string, options: BirdServerOptions = {}): DatabaseSource {
  const { url, ready } = localBirdTarget(dbRoot, options);
  return mysqlSource(url, dbRoot, ready);
}
