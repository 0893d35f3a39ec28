// A throwaway MariaDB server holding the shared BIRD databases in database `BIRD` as the local server loads them,
// for the tests that need a real MySQL-protocol server. Skipped only where MariaDB is not installed and CI is not
// set: under CI (whose pretest runs scripts/setup-mysql.sh) a missing server fails the test instead.
import * as path from 'node:path';
import { after, before } from 'node:test';
import { openDatabase } from '../src/core/db/engines';
import type { DatabaseConnection } from '../src/core/db/engine';
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

/**
 * For a describe block: the shared-databases server and one connection to it, started before its tests and
 * stopped after them (read `server` and `db` inside the tests).
 */
export function birdServerConnection(): { server: Awaited<ReturnType<typeof startBirdTestServer>>; db: DatabaseConnection } {
  const fixture = {} as ReturnType<typeof birdServerConnection>;
  before(async () => {
    fixture.server = await startBirdTestServer();
    fixture.db = await openDatabase(fixture.server.url);
  });
  after(async () => {
    await fixture.db?.close();
    fixture.server?.stop();
  });
  return fixture;
}
