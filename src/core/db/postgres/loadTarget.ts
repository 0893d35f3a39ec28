import { Client } from 'pg';
import { clientConfig, deriveTarget, isPostgresTarget, redactText, registerPostgresUrl } from './connectionTarget';
import { LoadError, LoadTarget, OwnedExecutor } from './loadFromSqlite';

/** A server target of `ves-lens load`: the URL's database, and (layout `database`) others on the same server. */
export interface ServerLoadTarget extends LoadTarget {
  /** Databases the load created because they were missing (the URL's own, or one per db_id). */
  readonly created: string[];
  close(): Promise<void>;
}

/** SQLSTATE invalid_catalog_name: the database does not exist. */
const NO_SUCH_DATABASE = '3D000';

/** The same target naming another database of the server. */
function databaseTarget(target: string, database: string): string {
  return deriveTarget(target, (url) => {
    url.pathname = `/${encodeURIComponent(database)}`;
  });
}

async function connect(target: string): Promise<OwnedExecutor> {
  const client = new Client(clientConfig(target, []));
  // A server that goes away fails the pending query; without a listener the event would end the process.
  client.on('error', () => undefined);
  await client.connect();
  return {
    query: async (sql, params) => ({ rows: (await client.query(sql, params as unknown[] | undefined)).rows }),
    exec: async (sql) => void (await client.query(sql)),
    close: () => client.end(),
  };
}

function connectionFailure(target: string, error: unknown): LoadError {
  const message = (error as Error).message || String((error as { code?: string }).code ?? error);
  return new LoadError(`--to: cannot connect to ${target}: ${redactText(message)}`);
}

/**
 * Connects to the server `url` names (its password kept out of every message). A missing database is created
 * first, from the server's maintenance database `postgres`, so `--to postgresql://…/bird` works on a fresh server.
 */
export async function openServerTarget(url: string): Promise<ServerLoadTarget> {
  if (!isPostgresTarget(url))
    throw new LoadError(`--to: ${redactText(url)} is not a PostgreSQL URL; expected postgresql://user@host:port/database`);
  let target: string;
  try {
    target = registerPostgresUrl(url);
  } catch (error) {
    throw new LoadError(`--to: ${(error as Error).message}`);
  }
  const created: string[] = [];

  /** A connection to `database` (the URL's own when undefined), creating the database when asked to. */
  const open = async (database: string | undefined, create: boolean): Promise<OwnedExecutor | undefined> => {
    const opened = database === undefined ? target : databaseTarget(target, database);
    try {
      return await connect(opened);
    } catch (error) {
      if ((error as { code?: string }).code !== NO_SUCH_DATABASE) throw connectionFailure(opened, error);
      if (!create) return undefined;
    }
    const name = database ?? decodeURIComponent(new URL(target).pathname.slice(1));
    if (!name) throw connectionFailure(opened, new Error('the URL names no database'));
    const maintenance = await connect(databaseTarget(target, 'postgres')).catch((error) => {
      throw connectionFailure(databaseTarget(target, 'postgres'), error);
    });
    try {
      await maintenance.exec(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } catch (error) {
      throw new LoadError(`--to: cannot create database ${name} on ${target}: ${redactText((error as Error).message)}`);
    } finally {
      await maintenance.close();
    }
    created.push(name);
    return await connect(opened).catch((error) => {
      throw connectionFailure(opened, error);
    });
  };

  const main = (await open(undefined, true))!;
  return {
    main,
    label: target,
    created,
    database: (name, create) => open(name, create),
    close: () => main.close(),
  };
}
