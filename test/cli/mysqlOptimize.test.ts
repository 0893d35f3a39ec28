// hints --verify and optimize with --engine mysql, as users run them, on a real MariaDB 10.11 server (the local server
// the CLI starts from the shared SQLite files): both say MariaDB ran the SQL, verify a rewrite on the server (not on
// the SQLite file --db names), and the rewrite optimize keeps returns the original's rows there and is measured
// faster there by this test too, on its own connection.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { median } from 'simple-statistics';
import { readQuery } from '../../src/core/db/readQuery';
import { sameResultBag } from '../../src/core/metrics/executionMatch';
import { BIRD_DATA, runCli, tempDir } from '../helpers';
import { mysqlMissing, birdServerConnection } from '../mysqlServer';

const file = (dbId: string) => path.join(BIRD_DATA, 'databases', dbId, `${dbId}.sqlite`);
/** Llama-3's prediction for question 327: a COUNT correlated per molecule, which MariaDB runs once per outer row. */
const Q327_LLAMA = `SELECT m.label FROM molecule m WHERE m.label = '-' AND (SELECT COUNT(*) FROM atom a WHERE a.molecule_id = m.molecule_id) > 5`;

describe('hints --verify and optimize on MySQL (MariaDB)', { skip: mysqlMissing() }, () => {
  const mariadb = birdServerConnection();

  it('hints --verify runs both forms on MariaDB and says so', () => {
    const sql = 'SELECT count(*) FROM superhero WHERE height_cm > 180';
    const run = runCli(['hints', '--engine', 'mysql', '--db', file('superhero'), '--verify', sql], { timeout: 300_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^MariaDB 10\.11\.\S+ \(local server, loaded from /);
    assert.match(run.stdout, /VL002[\s\S]*verified: same rows; /);
    assert.doesNotMatch(run.stdout, /SQLite makes/);
    const json = JSON.parse(
      runCli(['hints', '--engine', 'mysql', '--db', file('superhero'), '--verify', sql, '--json'], { timeout: 300_000 }).stdout,
    );
    assert.equal(json.engine.product, 'MariaDB');
    const verdict = json.statements[0].hints.find((h: { rule: string }) => h.rule === 'VL002').verdict;
    assert.ok(verdict.speedup.runs > 0, JSON.stringify(verdict));
  });

  it('optimize keeps a rewrite of q327 that returns the same rows on MariaDB and is measured faster there', async () => {
    const json = path.join(tempDir(), 'optimized.json');
    const run = runCli(['optimize', '--engine', 'mysql', '--db', file('toxicology'), '--json', json, Q327_LLAMA], { timeout: 300_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^MariaDB 10\.11\.\S+ \(local server/);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.engine, 'mysql');
    assert.equal(report.engine_description.product, 'MariaDB');
    const best = report.statements[0].best;
    assert.ok(best, JSON.stringify(report.statements[0]));
    assert.ok(best.low > 1, `the whole repeat interval above 1: ${best.low}–${best.high}`);
    // The counterexample search needs SQLite files: on MySQL it says it did not search, never that it did.
    assert.equal(best.verification.counterexample.result, 'not_searched');

    // Checked here on the server, on a connection of this test's own: the same rows, and faster.
    const original = await readQuery(mariadb.db, Q327_LLAMA, { maxRows: 100_000 });
    const rewrite = await readQuery(mariadb.db, best.sql, { maxRows: 100_000 });
    assert.ok(original.status === 'ok' && rewrite.status === 'ok', JSON.stringify([original, rewrite]));
    assert.ok(original.rows.length > 0);
    assert.ok(sameResultBag(original.rows, rewrite.rows));
    const times = async (sql: string) => {
      const ms: number[] = [];
      for (let i = 0; i < 3; i++) {
        const start = performance.now();
        await mariadb.db.drain(sql);
        ms.push(performance.now() - start);
      }
      return median(ms);
    };
    const [slow, fast] = [await times(Q327_LLAMA), await times(best.sql)];
    assert.ok(slow > 5 * fast, `original ${slow.toFixed(1)} ms, rewrite ${fast.toFixed(1)} ms`);
  });

  it('optimize says honestly when no faster form is found', () => {
    const run = runCli(
      ['optimize', '--engine', 'mysql', '--db', file('superhero'), '--json', '-', 'SELECT id FROM superhero WHERE id = 7'],
      {
        timeout: 300_000,
      },
    );
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.engine_description.product, 'MariaDB');
    assert.equal(report.statements[0].best, null);
  });
});
