// A throwaway PostgreSQL cluster holding BIRD databases as `ves-lens load` builds them, for the tests that need a
// real server. The cluster is stopped again if the load fails, so a failed set-up leaves no server behind.
import { strict as assert } from 'node:assert';
import { LocalCluster, startLocalCluster } from '../src/core/db/postgres/localCluster';
import { postgresEngine } from '../src/core/db/postgres/postgresEngine';
import { readQuery } from '../src/core/db/readQuery';
import { quoteSqlString } from '../src/core/db/schema';
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
  // Through the engine seam (no driver outside src/core/db/): the watcher's own session is left out by its pid.
  const watcher = await postgresEngine.open(cluster.url);
  const idleMs = options.othersIdleMs === undefined ? 'NULL' : String(Math.round(options.othersIdleMs));
  const sql = `SELECT (coalesce(bool_or(mine), false)
                AND (${idleMs}::int IS NULL OR coalesce(bool_and(state = 'idle' AND clock_timestamp() - state_change >= ${idleMs} * interval '1 ms') FILTER (WHERE NOT mine), true)))::int AS ready
           FROM (SELECT state, state_change, state = 'active' AND strpos(query, ${quoteSqlString(fragment)}) > 0 AS mine
                   FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()) AS sessions`;
  try {
    while (!options.signal.aborted) {
      const run = await readQuery(watcher, sql, { maxRows: 1 });
      if (run.status !== 'ok') throw new Error(`watching pg_stat_activity: ${run.message}`);
      if (Number(run.rows[0][0]) === 1) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  } finally {
    await watcher.close().catch(() => undefined);
  }
}
