import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { Question } from '../../src/core/bird/questions';
import { openDatabase } from '../../src/core/db/engines';
import { readQuery } from '../../src/core/db/readQuery';
import { evaluateTasks } from '../../src/core/eval/evaluate';
import { EvalTask } from '../../src/core/bird/tasks';
import { makeDatabase, sha256, tempDir } from '../helpers';
import { sqliteFolder } from '../../src/core/db/source';

const FIXTURE = `
CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000) INSERT INTO t SELECT x, 'row ' || x FROM n;
`;

function task(index: number, predictedSql: string, goldSql = 'SELECT count(*) FROM t'): EvalTask {
  const question: Question = { index, questionId: index, dbId: 'fixture', question: '', evidence: '', difficulty: 'simple' };
  return { question, goldSql, predictedSql, notes: [] };
}

describe('nothing a prediction holds can change the database', () => {
  let root: string;
  let dbFile: string;
  let before_: string;
  const outside = () => path.join(root, 'outside');
  before(async () => {
    root = tempDir();
    dbFile = await makeDatabase(path.join(root, 'fixture', 'fixture.sqlite'), FIXTURE);
    before_ = sha256(dbFile);
  });

  const hostile = (dir: () => string) => [
    'DELETE FROM t',
    'DROP TABLE t',
    "INSERT INTO t VALUES (99999, 'x')",
    "UPDATE t SET name = 'x'",
    'CREATE TABLE evil (a)',
    'CREATE TEMP TABLE evil (a)',
    `ATTACH '${dir()}/attached.sqlite' AS a`,
    `VACUUM INTO '${dir()}/copy.sqlite'`,
    'PRAGMA journal_mode = WAL',
    'PRAGMA user_version = 7',
    "SELECT load_extension('/nonexistent/evil')",
    'SELECT 1; DELETE FROM t',
    'WITH x AS (SELECT 1) DELETE FROM t',
    'BEGIN IMMEDIATE',
    'REINDEX',
    'ANALYZE',
  ];

  it('refuses every write, ATTACH, PRAGMA, VACUUM INTO, extension and second statement, with a reason', async () => {
    fs.mkdirSync(outside(), { recursive: true });
    const statements = hostile(outside);
    const results = await evaluateTasks(
      statements.map((sql, i) => task(i, sql)),
      {
        source: sqliteFolder(root),
        metrics: ['ex', 'f1'],
        timing: 'fast',
        timeoutMs: 5000,
        maxRows: 10_000,
      },
    );
    results.forEach((result, i) => {
      assert.equal(result.outcome, 'refused', `${statements[i]} → ${result.outcome}: ${result.error}`);
      assert.ok(result.error && result.error.length > 10, 'says why');
      assert.equal(result.ex, 0);
    });
    assert.equal(sha256(dbFile), before_, 'database file unchanged');
    assert.deepEqual(fs.readdirSync(outside()), [], 'no file created elsewhere (VACUUM INTO, ATTACH)');
    assert.deepEqual(fs.readdirSync(path.dirname(dbFile)), ['fixture.sqlite'], 'no journal or WAL left beside it');
  });

  it('refuses them at the connection level too, even if the statement check were bypassed', async () => {
    const db = await openDatabase(dbFile);
    try {
      for (const sql of ['DELETE FROM t', 'CREATE TEMP TABLE x (a)', 'PRAGMA user_version = 3']) {
        await assert.rejects(db.all(sql), /readonly|read-only|query_only|attempt to write/i, sql);
      }
    } finally {
      await db.close();
    }
    assert.equal(sha256(dbFile), before_);
  });
});

describe('runaway queries and huge results', () => {
  let root: string;
  before(async () => {
    root = tempDir();
    await makeDatabase(path.join(root, 'fixture', 'fixture.sqlite'), FIXTURE);
  });

  it('interrupts a runaway cross join at the timeout, and the run goes on', async () => {
    const started = performance.now();
    const results = await evaluateTasks([task(0, 'SELECT count(*) FROM t a, t b, t c, t d'), task(1, 'SELECT count(*) FROM t')], {
      source: sqliteFolder(root),
      metrics: ['ex', 'f1'],
      timing: 'fast',
      timeoutMs: 1000,
      maxRows: 10_000,
    });
    const elapsed = performance.now() - started;
    assert.equal(results[0].outcome, 'timeout');
    assert.match(results[0].error ?? '', /timed out after 1\.0 s/);
    assert.equal(results[1].outcome, 'correct', 'the next question is scored');
    assert.ok(elapsed < 10_000, `interrupted promptly (${elapsed.toFixed(0)} ms), not run for 2000^4 rows`);
  });

  it('cuts off a result larger than maxRows instead of holding it in memory', async () => {
    const db = await openDatabase(path.join(root, 'fixture', 'fixture.sqlite'));
    try {
      const run = await readQuery(db, 'SELECT a.id, b.id FROM t a, t b', { maxRows: 5000 });
      assert.equal(run.status, 'error');
      assert.match(run.status === 'error' ? run.message : '', /more than 5,000 rows/);
      const ok = await readQuery(db, 'SELECT id FROM t', { maxRows: 5000 });
      assert.equal(ok.status === 'ok' && ok.rows.length, 2000, 'the connection still works after the cut-off');
    } finally {
      await db.close();
    }
  });

  it('reports a missing database as skipped, not as wrong', async () => {
    const missing = task(0, 'SELECT 1');
    missing.question.dbId = 'absent';
    const [result] = await evaluateTasks([missing], {
      source: sqliteFolder(root),
      metrics: ['ex'],
      timing: 'fast',
      timeoutMs: 1000,
      maxRows: 10,
    });
    assert.equal(result.outcome, 'skipped');
    assert.match(result.error ?? '', /absent[\\/]absent\.sqlite/);
  });
});
