import { Client, Query, QueryArrayConfig } from 'pg';
import { QueryCancelled, QueryTimeout, RunLimits } from '../database';
import { DatabaseEngine, TimedQuantity } from '../engine';
import { serverSetting } from './connectionTarget';
import {
  CANCEL_GRACE_MS,
  PostgresConnection,
  PostgresTransport,
  SERVER_TRANSPORT,
  SESSION_SETTINGS,
  toDatabaseError,
} from './postgresConnection';
import { PYTHON_TYPE_PARSERS } from './pythonValues';

/** The version of the server last connected to (the engine has no version of its own: the server's decides). */
let lastServerVersion: string | undefined;

/**
 * Runs a query with the simple protocol, as psycopg2's execute does, reading rows as they come and keeping none;
 * resolves at the first row (`first-row`) or at the end of the result (`full`).
 */
export function runDiscarding(client: Client, body: string, quantity: TimedQuantity): Promise<void> {
  return new Promise((resolve, reject) => {
    // Rows as arrays, as psycopg2 builds tuples: no objects keyed by column name to pay for in the timed span.
    const config: QueryArrayConfig = { text: body, rowMode: 'array', types: PYTHON_TYPE_PARSERS as never };
    const query = new Query(config);
    if (quantity === 'first-row') query.once('row', () => resolve());
    query.on('row', () => undefined);
    query.on('end', () => resolve());
    query.on('error', reject);
    client.query(query);
  });
}

/**
 * Ends a session as psycopg2's close() does (libpq's PQfinish): Terminate written and this side of the socket
 * closed, without waiting for the server's backend to exit, which node-postgres's end() waits for (about a
 * millisecond on a local socket, as much as a small query: timed, it would pull every ratio towards 1).
 * `terminated` resolves then; `ended` when node-postgres is done, outside the timed span.
 */
function closeAsPsycopg(client: Client): { terminated: Promise<unknown>; ended: Promise<void> } {
  const { stream } = (client as unknown as { connection: { stream: NodeJS.EventEmitter } }).connection;
  const finished = new Promise((resolve) => stream.once('finish', resolve));
  const ended = client.end();
  return { terminated: Promise.race([finished, ended]), ended };
}

/** PostgreSQL servers, through node-postgres: a target is a connection URL (postgres/connectionTarget.ts). */
export const postgresEngine: DatabaseEngine = {
  name: 'postgres',

  async version(): Promise<string> {
    return lastServerVersion ?? 'unknown (no server reached yet)';
  },

  async open(target: string): Promise<PostgresConnection> {
    const connection = await PostgresConnection.open(postgresEngine, target);
    lastServerVersion ??= await connection.serverVersion();
    return connection;
  },

  timeExecution(target: string, body: string, quantity: TimedQuantity, limits: RunLimits = {}): Promise<number> {
    return timeOnFreshClient(SERVER_TRANSPORT, target, body, quantity, limits);
  },
};

/**
 * As mini_dev's PostgreSQL script times it: a fresh connection, opened outside the timed span with the deadline
 * as its statement_timeout (and a cancel past it, for a session that has no timer); then BEGIN (psycopg2 opens a
 * transaction before the first statement; the session is read-only) and the query, to its first row or through
 * its last one and the close.
 */
export async function timeOnFreshClient(
  transport: PostgresTransport,
  target: string,
  body: string,
  quantity: TimedQuantity,
  limits: RunLimits,
): Promise<number> {
  const remaining = limits.deadline === undefined ? 0 : Math.max(1, Math.ceil(limits.deadline - performance.now()));
  if (limits.deadline !== undefined && limits.deadline <= performance.now()) throw new QueryTimeout(limits.budgetMs ?? 0);
  const client = await transport.connect(target, [...SESSION_SETTINGS, serverSetting('statement_timeout', String(remaining))]);
  const cancel = () => transport.cancel(client);
  limits.signal?.addEventListener('abort', cancel);
  // From the deadline, not from `remaining`: connecting may have taken part of the budget (an embedded engine starting again).
  const timer = limits.deadline === undefined ? undefined : setTimeout(cancel, limits.deadline - performance.now() + CANCEL_GRACE_MS);
  let closed = false;
  try {
    const start = performance.now();
    await client.query('BEGIN');
    await runDiscarding(client, body, quantity);
    if (quantity === 'full') {
      const { terminated, ended } = closeAsPsycopg(client);
      await terminated;
      const elapsed = performance.now() - start;
      closed = true;
      await ended;
      return elapsed;
    }
    return performance.now() - start;
  } catch (error) {
    if ((error as { code?: string }).code === '57014')
      throw limits.signal?.aborted ? new QueryCancelled() : new QueryTimeout(limits.budgetMs ?? 0);
    throw toDatabaseError(error);
  } finally {
    clearTimeout(timer);
    limits.signal?.removeEventListener('abort', cancel);
    if (!closed) {
      // A first-row timing leaves the rest of the result unread: stop the server's work before closing.
      if (quantity === 'first-row') cancel();
      await client.end().catch(() => undefined);
    }
  }
}
