import { pathToFileURL } from 'node:url';
import { Client, ClientConfig } from 'pg';
import { DatabaseError, RunLimits } from '../database';
import { DatabaseEngine, TimedQuantity } from '../engine';
import { serverSetting } from '../postgres/connectionTarget';
import { quotePostgresName } from '../postgres/identifiers';
import { PostgresConnection, PostgresTransport, toDatabaseError } from '../postgres/postgresConnection';
import { timeOnFreshClient } from '../postgres/postgresEngine';
import { PYTHON_TYPE_PARSERS } from '../postgres/pythonValues';
import { EMBEDDED_THREADS, EmbeddedPostgres, EmbeddedSession } from './embeddedPostgres';

/**
 * The embedded PostgreSQL as an engine: the same connection as a server's (postgres/postgresConnection.ts: READ
 * ONLY transactions, cursor batches within the row and byte bounds, psycopg2's values, plans, same work), over
 * sessions of a PGlite thread instead of a socket. A target names the SQLite root the copy was loaded from:
 * `pglite:///path/to/db_root` (one database), with `?layout=schema&search_path=<schema>` for a db_id's schema.
 */

export function isEmbeddedTarget(target: string): boolean {
  return target.startsWith('pglite:');
}

/** The target of a copy of `dbRoot`'s databases, and of one db_id's schema in it (layout schema). */
export function embeddedTarget(dbRoot: string, schema?: string): string {
  const base = `pglite://${pathToFileURL(dbRoot).pathname}`;
  return schema === undefined ? base : `${base}?layout=schema&search_path=${encodeURIComponent(schema)}`;
}

/** The copy a target is on (its schema left out). */
function copyOf(target: string): string {
  const url = new URL(target);
  const layout = url.searchParams.get('layout');
  url.search = '';
  return layout ? `${url.toString()}?layout=${layout}` : url.toString();
}

/** The embedded instances this process runs, by copy (embeddedSource.ts registers them as it prepares them). */
const instances = new Map<string, Promise<EmbeddedPostgres>>();

/** Makes `instance` the one that serves the targets of a copy (a target of the schema layout: its copy). */
export function serveCopy(target: string, instance: Promise<EmbeddedPostgres>): void {
  instances.set(copyOf(target), instance);
}

async function instanceFor(target: string): Promise<EmbeddedPostgres> {
  const instance = instances.get(copyOf(target));
  if (!instance) throw new DatabaseError(`no embedded PostgreSQL is loaded for ${target} in this process`);
  return instance;
}

/** Clients on the embedded engine's sessions; a cancel stops the session's statement (by ending the thread). */
const EMBEDDED_TRANSPORT: PostgresTransport = {
  async connect(target: string, settings: readonly string[] = []): Promise<Client> {
    const instance = await instanceFor(target);
    const schema = new URL(target).searchParams.get('search_path');
    const options = [...(schema === null ? [] : [serverSetting('search_path', quotePostgresName(schema))]), ...settings].join(' ');
    const config = { stream: () => instance.openSession(), user: 'postgres', database: 'postgres', options, types: PYTHON_TYPE_PARSERS };
    const client = new Client(config as unknown as ClientConfig);
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw toDatabaseError(error);
    }
    return client;
  },
  cancel(client: Client): void {
    sessionOf(client).cancel();
  },
  executorWaitMs(client: Client): number {
    return sessionOf(client).waitedMs;
  },
};

/** The embedded session a client reads and writes instead of a socket. */
const sessionOf = (client: Client) => (client as unknown as { connection: { stream: EmbeddedSession } }).connection.stream;

/** The version of the embedded PostgreSQL last opened. */
let lastVersion: string | undefined;

export const pgliteEngine: DatabaseEngine = {
  name: 'postgres',
  maxLanes: EMBEDDED_THREADS,

  async version(): Promise<string> {
    return lastVersion ?? 'unknown (no embedded PostgreSQL opened yet)';
  },

  async open(target: string): Promise<PostgresConnection> {
    lastVersion ??= await (await instanceFor(target)).version();
    return PostgresConnection.open(pgliteEngine, target, EMBEDDED_TRANSPORT);
  },

  /** As on a server (a fresh session, BEGIN, the query, the close); past the deadline the thread is ended. */
  timeExecution(target: string, body: string, quantity: TimedQuantity, limits: RunLimits = {}): Promise<number> {
    return timeOnFreshClient(EMBEDDED_TRANSPORT, target, body, quantity, limits);
  },
};
