// A throwaway PostgreSQL cluster holding BIRD databases as `ves-lens load` builds them, for the tests that need a
// real server. The cluster is stopped again if the load fails, so a failed set-up leaves no server behind.
import { strict as assert } from 'node:assert';
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
