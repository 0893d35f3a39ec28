// R-VES timing on MySQL, on a real MariaDB 10.11 server (the local server loaded from the shared SQLite files):
// `--timing official` as mini_dev's evaluation_ves.py times it there (each execution on a new pymysql-like
// connection opened outside the timed span; execute, every row and the close timed; prediction then gold; ratios
// cleaned at 3σ and averaged; a loop past iterations × the time limit scores 0), and `--timing fast` with its
// repeat interval, which puts a prediction that does far more work than its gold below 1.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { median } from 'simple-statistics';
import { timeExecution } from '../../src/core/db/engines';
import { measureOfficial } from '../../src/core/timing/official';
import { officialClean, pythonMean } from '../../src/core/timing/stats';
import { planPairTiming, timePairs, TimingRequest } from '../../src/core/timing/timePairs';
import { mysqlMissing, birdServerConnection } from '../mysqlServer';

/** Every atom (12,333 rows on toxicology), and a query of one row. */
const ROWS = 'SELECT * FROM atom';
/** The same count as `SELECT COUNT(*) FROM molecule`, each row's count computed from a correlated scan of atom. */
const SLOW_COUNT = 'SELECT COUNT(*) FROM molecule m WHERE (SELECT COUNT(*) FROM atom a WHERE a.molecule_id = m.molecule_id) >= 0';

describe('R-VES timing on MySQL (MariaDB)', { skip: mysqlMissing() }, () => {
  const mariadb = birdServerConnection();

  /** Connections the server has accepted since it started (each pymysql.connect is one). */
  const connections = async () => Number((await mariadb.db.all("SHOW GLOBAL STATUS LIKE 'Connections'"))[0].Value);

  it('official: prediction then gold, each on a new connection, 3σ-cleaned mean of the ratios', async () => {
    const before = await connections();
    const timing = await measureOfficial(mariadb.server.url, ROWS, 'SELECT 1', 'rves', 30_000, 10);
    const opened = (await connections()) - before;
    assert.equal(timing.protocol, 'official-rves');
    assert.equal(timing.quantity, 'full');
    assert.equal(timing.runs, 10);
    assert.equal(timing.goldSamples!.length, 10);
    assert.equal(timing.predSamples!.length, 10);
    const ratios = timing.goldSamples!.map((gold, i) => gold / timing.predSamples![i]);
    assert.equal(timing.ratio, pythonMean(officialClean(ratios)));
    assert.ok(timing.ratio > 2, `reading 12,333 rows is slower than SELECT 1 (ratio ${timing.ratio})`);
    // 20 timed executions on connections of their own (the time limit is set on each, untimed).
    assert.ok(opened >= 20, `20 executions, ${opened} new connections`);
  });

  it('official: every row is read in the timed span, as pymysql reads the whole result in execute', async () => {
    const all: number[] = [];
    const one: number[] = [];
    for (let i = 0; i < 5; i++) {
      all.push(await timeExecution(mariadb.server.url, ROWS, 'full'));
      one.push(await timeExecution(mariadb.server.url, `${ROWS} LIMIT 1`, 'full'));
    }
    assert.ok(median(all) > 3 * median(one), `all rows ${median(all).toFixed(2)} ms, one row ${median(one).toFixed(2)} ms`);
  });

  it('official: a loop past iterations × the time limit scores 0, the running statement stopped at the deadline', async () => {
    const started = performance.now();
    const slow = 'SELECT COUNT(*) FROM atom a, atom b, atom c WHERE a.element <> c.element';
    const timing = await measureOfficial(mariadb.server.url, slow, 'SELECT 1', 'rves', 100, 3);
    assert.equal(timing.ratio, 0);
    assert.match(timing.note!, /did not finish within 0\.3 s .* the official scripts score this question 0/);
    assert.ok(performance.now() - started < 10_000, 'the statement is stopped at the loop deadline, not run to its end');
  });

  it('fast: a repeat interval, entirely below 1 for a prediction that does far more work than its gold', async () => {
    const request: TimingRequest = { protocol: 'fast', scores: ['rves'], timeoutMs: 30_000 };
    const plan = await planPairTiming(mariadb.db, 'SELECT COUNT(*) FROM molecule', SLOW_COUNT, request);
    assert.equal(plan.kind, 'time');
    const [outcome] = await timePairs([{ plan }], request, { inPasses: false });
    assert.equal(outcome.kind, 'timed', JSON.stringify(outcome));
    const rves = outcome.kind === 'timed' ? outcome.rves! : undefined;
    assert.ok(rves && rves.runs > 0 && rves.low <= rves.ratio && rves.ratio <= rves.high, JSON.stringify(rves));
    assert.ok(rves.high < 1, `gold / prediction ${rves.ratio.toFixed(3)} (${rves.low.toFixed(3)}–${rves.high.toFixed(3)})`);
    // The same statement laid out otherwise is the same work on MySQL too: not timed, ratio exactly 1.
    const same = await planPairTiming(mariadb.db, 'SELECT COUNT(*) FROM molecule', 'SELECT COUNT(*)\n  FROM molecule', request);
    assert.equal(same.kind, 'identical');
  });
});
