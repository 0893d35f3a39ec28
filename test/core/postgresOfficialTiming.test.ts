// `--timing official` on PostgreSQL, as mini_dev's evaluation_ves.py times it there, on a real PostgreSQL 15 server
// (a throwaway cluster on a unix socket): each execution on a new connection opened outside the timed span; BEGIN
// (psycopg2 opens a transaction), execute, fetchall and close timed, the close as libpq's (not waiting for the
// server's backend to exit); the iterations alternate prediction then gold; ratios cleaned at 3σ and averaged; a loop
// past iterations × the time limit scores 0.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { median, quantile } from 'simple-statistics';
import { readQuery } from '../../src/core/db/readQuery';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase, timeExecution } from '../../src/core/db/engines';
import { LocalCluster, localClusterMissing, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { ServerLoadTarget, openServerTarget } from '../../src/core/db/postgres/loadTarget';
import { connectClient } from '../../src/core/db/postgres/postgresConnection';
import { measureOfficial } from '../../src/core/timing/official';
import { officialClean, pythonMean } from '../../src/core/timing/stats';

const ROWS = 'SELECT * FROM big';

describe('official timing on PostgreSQL (mini_dev evaluation_ves.py)', { skip: localClusterMissing() }, () => {
  let cluster: LocalCluster;
  let admin: ServerLoadTarget;
  let db: DatabaseConnection;

  before(async () => {
    cluster = startLocalCluster({ database: 'bird' });
    admin = await openServerTarget(cluster.url);
    await admin.main.exec('CREATE TABLE big AS SELECT g AS id, md5(g::text) AS label FROM generate_series(1, 20000) g; ANALYZE big');
    db = await openDatabase(cluster.url);
  });
  after(async () => {
    await db?.close();
    await admin?.close();
    cluster?.stop();
  });

  /** Sessions the server has counted on `bird` (pg_stat_database.sessions: one per connection). */
  const sessions = async () => {
    const run = await readQuery(db, "SELECT sessions FROM pg_stat_database WHERE datname = 'bird'", { maxRows: 1 });
    assert.equal(run.status, 'ok');
    return Number(run.status === 'ok' ? run.rows[0][0] : 0);
  };

  it('alternates prediction and gold on a new connection each, and averages the ratios kept by the 3σ cleaning', async () => {
    const before = await sessions();
    const timing = await measureOfficial(cluster.url, ROWS, 'SELECT 1', 'rves', 30_000, 10);
    assert.equal(timing.protocol, 'official-rves');
    assert.equal(timing.quantity, 'full');
    assert.equal(timing.runs, 10);
    assert.equal(timing.goldSamples!.length, 10);
    assert.equal(timing.predSamples!.length, 10);
    const ratios = timing.goldSamples!.map((gold, i) => gold / timing.predSamples![i]);
    assert.equal(timing.ratio, pythonMean(officialClean(ratios)));
    assert.ok(timing.ratio > 2, `fetching 20,000 rows is slower than SELECT 1 (ratio ${timing.ratio})`);
    // The server counts a session when its backend reports; poll briefly for the 20 executions' sessions.
    let counted = before;
    for (let waited = 0; counted - before < 20 && waited < 5000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      counted = await sessions();
    }
    assert.ok(counted - before >= 20, `20 executions, ${counted - before} new sessions`);
  });

  it('times every row fetched, and a close that does not wait for the server backend to exit (as psycopg2 closes)', async () => {
    const full: number[] = [];
    const firstRow: number[] = [];
    for (let i = 0; i < 5; i++) {
      full.push(await timeExecution(cluster.url, ROWS, 'full'));
      firstRow.push(await timeExecution(cluster.url, ROWS, 'first-row'));
    }
    assert.ok(median(full) > median(firstRow), `fetchall is timed: full ${median(full)} ms, first row ${median(firstRow)} ms`);

    // The same BEGIN and SELECT 1 on a fresh connection, without a close and with node-postgres's own end() (which
    // waits for the server to close the socket): the official timing's close must cost far less than that wait.
    const ours: number[] = [];
    const noClose: number[] = [];
    const waitingClose: number[] = [];
    for (let i = 0; i < 60; i++) {
      ours.push(await timeExecution(cluster.url, 'SELECT 1', 'full'));
      const client = await connectClient(cluster.url);
      const start = performance.now();
      await client.query('BEGIN');
      await client.query('SELECT 1');
      noClose.push(performance.now() - start);
      await client.end();
      waitingClose.push(performance.now() - start);
    }
    // Low quantiles: what each costs when nothing else on the machine gets in the way.
    const typical = (samples: number[]) => quantile(samples, 0.1);
    const closeCost = typical(ours) - typical(noClose);
    const backendExit = typical(waitingClose) - typical(noClose);
    assert.ok(closeCost < backendExit / 2, `close ${closeCost.toFixed(3)} ms, waiting for the backend ${backendExit.toFixed(3)} ms`);
  });

  it('scores 0 a loop that outlasts iterations × the time limit, the running statement stopped by its deadline', async () => {
    const started = performance.now();
    const timing = await measureOfficial(cluster.url, 'SELECT pg_sleep(0.2)', 'SELECT 1', 'rves', 100, 3);
    assert.equal(timing.ratio, 0);
    assert.match(timing.note!, /did not finish within 0\.3 s .* the official scripts score this question 0/);
    // Run to its end, the loop would take 100 × 0.2 s = 20 s.
    assert.ok(performance.now() - started < 10_000, 'the statement is stopped at the loop deadline, not run to its end');
  });
});
