// A throwaway PostgreSQL cluster holding BIRD databases as `ves-lens load` builds them, for the tests that need a
// real server. The cluster is stopped again if the load fails, so a failed set-up leaves no server behind.
import { strict as assert } from 'node:assert';
import { Client } from 'pg';
import { LocalCluster, startLocalCluster } from '../src/core/db/postgres/localCluster';
import { runCli } from './helpers';

/** A cluster with database `bird` holding the databases of `from` (all, or those `loadArgs` names: `--db a,b`). */
export function startLoadedCluster(from: string, loadArgs: string[] = []): LocalCluster {
  const cluster = startLocalCluster({ database: 'bird' });
  try {
    const load = runCli(['load', '--from', from, ...loadArgs, '--to', cluster.url, '--no-progress']);
    assert.equal(load.status, 0, load.stderr);
  } catch (error) {
    cluster.stop();
    throw error;
  }
  return cluster;
}

/**
 * Resolves true once a statement holding `fragment` runs on the cluster (and, given `othersIdleMs`, every other
 * session has been idle that long, in server time), polled in pg_stat_activity: a test that stops the server under that statement stops
 * it there, whatever the machine's load made of the client's start-up. False when `signal` aborts first (the client
 * ended before running it).
 */
export async function whenRunning(
  cluster: LocalCluster,
  fragment: string,
  options: { othersIdleMs?: number; signal: AbortSignal },
): Promise<boolean> {
  const client = new Client({ host: cluster.socketDir, port: cluster.port, user: 'postgres', database: 'postgres' });
  client.on('error', () => undefined); // the server stopped under the watcher: the caller sees it through its client
  await client.connect();
  try {
    while (!options.signal.aborted) {
      const { rows } = await client.query<{ ready: boolean }>(
        `SELECT coalesce(bool_or(mine), false)
                AND ($2::int IS NULL OR coalesce(bool_and(state = 'idle' AND clock_timestamp() - state_change >= $2 * interval '1 ms') FILTER (WHERE NOT mine), true)) AS ready
           FROM (SELECT state, state_change, state = 'active' AND strpos(query, $1) > 0 AS mine
                   FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()) AS sessions`,
        [fragment, options.othersIdleMs ?? null],
      );
      if (rows[0].ready) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
