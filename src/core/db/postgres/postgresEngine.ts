import { Client, Query } from 'pg';
import { QueryCancelled, QueryTimeout, RunLimits } from '../database';
import { DatabaseEngine, TimedQuantity } from '../engine';
import { serverSetting } from './connectionTarget';
import { connectClient, PostgresConnection, SESSION_SETTINGS, sendCancelRequest, toDatabaseError } from './postgresConnection';
import { PYTHON_TYPE_PARSERS } from './pythonValues';

/** The version of the server last connected to (the engine has no version of its own: the server's decides). */
let lastServerVersion: string | undefined;

/**
 * Runs a query with the simple protocol, as psycopg2's execute does, reading rows as they come and keeping none;
 * resolves at the first row (`first-row`) or at the end of the result (`full`).
 */
function runDiscarding(client: Client, body: string, quantity: TimedQuantity): Promise<void> {
  return new Promise((resolve, reject) => {
    const query = new Query({ text: body, types: PYTHON_TYPE_PARSERS as never });
    if (quantity === 'first-row') query.once('row', () => resolve());
    query.on('row', () => undefined);
    query.on('end', () => resolve());
    query.on('error', reject);
    client.query(query);
  });
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

  /**
   * As mini_dev's PostgreSQL script times it: a fresh connection, opened outside the timed span with the
   * deadline as its statement_timeout; then BEGIN (psycopg2 opens a transaction before the first statement;
   * the session is read-only) and the query, to its first row or through its last one and the close.
   */
  async timeExecution(target: string, body: string, quantity: TimedQuantity, limits: RunLimits = {}): Promise<number> {
    const remaining = limits.deadline === undefined ? 0 : Math.max(1, Math.ceil(limits.deadline - performance.now()));
    if (limits.deadline !== undefined && limits.deadline <= performance.now()) throw new QueryTimeout(limits.budgetMs ?? 0);
    const client = await connectClient(target, [...SESSION_SETTINGS, serverSetting('statement_timeout', String(remaining))]);
    const cancel = () => sendCancelRequest(client);
    limits.signal?.addEventListener('abort', cancel);
    let closed = false;
    try {
      const start = performance.now();
      await client.query('BEGIN');
      await runDiscarding(client, body, quantity);
      if (quantity === 'full') {
        await client.end();
        closed = true;
      }
      return performance.now() - start;
    } catch (error) {
      if ((error as { code?: string }).code === '57014')
        throw limits.signal?.aborted ? new QueryCancelled() : new QueryTimeout(limits.budgetMs ?? 0);
      throw toDatabaseError(error);
    } finally {
      limits.signal?.removeEventListener('abort', cancel);
      if (!closed) {
        // A first-row timing leaves the rest of the result unread: stop the server's work before closing.
        if (quantity === 'first-row') cancel();
        await client.end().catch(() => undefined);
      }
    }
  },
};
