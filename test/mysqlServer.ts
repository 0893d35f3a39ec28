// A throwaway MariaDB server holding the shared BIRD databases in database `BIRD` as the local server loads them,
// for the tests that need a real MySQL-protocol server. Skipped only where MariaDB is not installed and CI is not
// set: under CI (whose pretest runs scripts/setup-mysql.sh) a missing server fails the test instead.
import * as path from 'node:path';
import { localServerMissing, startBirdServer } from '../src/core/db/mysql/localServer';
import { BIRD_DATA, birdDataMissing, testCacheHome } from './helpers';

/** Why the MySQL tests cannot run here (then they are skipped), or false; throws under CI. */
export function mysqlMissing(): string | false {
  const missing = localServerMissing() || birdDataMissing();
  if (missing && process.env.CI) throw new Error(`under CI the MySQL tests must run: ${missing}`);
  return missing;
}

/** A server with the shared databases (the copy kept in this test process's cache folder, as the CLI keeps its own). */
export function startBirdTestServer(): ReturnType<typeof startBirdServer> {
  return startBirdServer(path.join(BIRD_DATA, 'databases'), { cacheDir: path.join(testCacheHome(), 'ves-lens', 'mariadb') });
}
