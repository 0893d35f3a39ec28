import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MEMORY_BOUNDS } from '../../src/core/db/database';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase } from '../../src/core/db/engines';
import { readQuery } from '../../src/core/db/readQuery';
import { evaluateTasks } from '../../src/core/eval/evaluate';
import { REPO_ROOT } from '../helpers';
import { sqliteFolder } from '../../src/core/db/source';

const SAMPLE_ROOT = path.join(REPO_ROOT, 'sample');
const SUPERHERO = path.join(SAMPLE_ROOT, 'superhero', 'superhero.sqlite');
const GiB = 2 ** 30;

/** Each prediction must meet a bound and fail with a message that names it, not take the process past 1 GiB. */
const HOSTILE: [string, string, RegExp][] = [
  ['a value over the length bound', 'SELECT zeroblob(1000000000)', /too big.*32 MiB/],
  ['a string over the length bound', "SELECT replace(hex(zeroblob(20000000)), '0', 'xx')", /too big.*32 MiB/],
  [
    'many large values (no back-pressure in the native row queue)',
    'SELECT zeroblob(8000000) FROM hero_power',
    /more than 128 MiB of values/,
  ],
  [
    'five million rows',
    'SELECT a.id, b.id FROM superhero a, superhero b, (SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9)',
    /more than 500,000 rows/,
  ],
  [
    'a four-way cross join',
    'SELECT * FROM superhero a, superhero b, superhero c, superhero d',
    /more than 500,000 rows|more than 128 MiB|timed out/,
  ],
];

describe('memory bounds', () => {
  let db: DatabaseConnection;
  before(async () => {
    db = await openDatabase(SUPERHERO);
  });
  after(() => db.close());

  for (const [label, sql, message] of HOSTILE) {
    it(`${label}: a clear error, memory under 1 GiB`, async () => {
      const run = await readQuery(db, sql, { deadline: performance.now() + 20_000, budgetMs: 20_000, maxRows: 500_000 });
      assert.equal(run.status === 'ok' ? 'ok' : 'failed', 'failed');
      assert.match(run.status === 'ok' ? '' : run.message, message);
      assert.ok(process.memoryUsage().rss < GiB, `rss ${process.memoryUsage().rss}`);
    });
  }

  it('keeps the bounds documented in one place', () => {
    assert.ok(MEMORY_BOUNDS.resultBytes + MEMORY_BOUNDS.valueBytes + MEMORY_BOUNDS.heapBytes < GiB);
  });

  it('an evaluation over hostile predictions scores each with its error and goes on', async () => {
    const questions = [...HOSTILE.map(([, sql]) => sql), 'SELECT count(*) FROM superhero'].map((predictedSql, index) => ({
      question: {
        index,
        questionId: index,
        dbId: 'superhero',
        difficulty: 'simple',
        question: '',
        evidence: '',
        sql: 'SELECT count(*) FROM superhero',
      },
      goldSql: 'SELECT count(*) FROM superhero',
      predictedSql,
      notes: [],
    }));
    const results = await evaluateTasks(questions, {
      source: sqliteFolder(SAMPLE_ROOT),
      metrics: ['ex', 'f1'],
      timing: 'fast',
      timeoutMs: 20_000,
      maxRows: 500_000,
    });
    assert.equal(results.length, HOSTILE.length + 1);
    for (const result of results.slice(0, HOSTILE.length))
      assert.ok(['prediction_error', 'timeout'].includes(result.outcome), `${result.question_id}: ${result.outcome}`);
    assert.equal(results.at(-1)!.outcome, 'correct');
    assert.ok(process.memoryUsage().rss < GiB);
  });
});
