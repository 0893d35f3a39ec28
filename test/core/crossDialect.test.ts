// The cross-dialect gold check's comparison: two golds' results as sets with Python's equality (what psycopg2 and
// sqlite3 hand over), digits past the 6th significant one reported as such, and every other difference a finding.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { compareGoldRuns, crossDialectCounts, crossDialectText, GoldRun, isCrossDialectFinding } from '../../src/core/audit/crossDialect';
import { Row, TypedValue } from '../../src/core/db/database';
import { canonicalNumber } from '../../src/core/db/postgres/pythonValues';

const decimal = (text: string) => new TypedValue('Decimal', text, canonicalNumber(text));
const sqlite = (rows: Row[]): GoldRun => ({ engine: 'sqlite', sql: 'SELECT …', run: { status: 'ok', rows } });
const postgres = (rows: Row[]): GoldRun => ({ engine: 'postgres', sql: 'SELECT …', run: { status: 'ok', rows } });

describe('cross-dialect gold check', () => {
  it('same rows as sets: order and duplicates do not matter; an exact Decimal meets a float and an int', () => {
    const check = compareGoldRuns(
      sqlite([
        [1, 'a'],
        [0.5, 'b'],
        [1, 'a'],
      ]),
      postgres([
        [decimal('0.50'), 'b'],
        [decimal('1'), 'a'],
      ]),
    );
    assert.equal(check.status, 'same');
    assert.equal(check.precision_only, undefined);
    assert.match(check.detail, /^same rows: the SQLite gold returns 3 rows, the PostgreSQL gold 2 rows/);
    assert.equal(isCrossDialectFinding(check), false);
  });

  it('numbers that differ only past the 6th significant digit: same, said as such, with both values as Python shows them', () => {
    // A float4 cast (question 1390) and a numeric division against a double (question 226), as the official golds give them.
    for (const [gold, compared, shown] of [
      [21.530164665276477, 21.53016489934625, /21\.530164665276477 in the SQLite gold, 21\.53016489934625 in the PostgreSQL gold/],
      [3.84615, decimal('3.84615'), /3\.84615 in the SQLite gold, Decimal\('3\.84615'\) in the PostgreSQL gold/],
      [60.77956989247312, decimal('60.7795698924731183'), /Decimal\('60\.7795698924731183'\)/],
    ] as const) {
      const check = compareGoldRuns(sqlite([[gold, 7]]), postgres([[compared, 7]]));
      assert.equal(check.status, 'same', check.detail);
      assert.equal(check.precision_only, true);
      assert.match(check.detail, /rounded to 6 significant digits .* not a defect/);
      assert.match(check.detail, shown);
      assert.equal(isCrossDialectFinding(check), false);
    }
  });

  it('whole numbers stay exact: 1234567 and 1234568 differ, and so do 5 and 5.5', () => {
    assert.equal(compareGoldRuns(sqlite([[1234567]]), postgres([[1234568]])).status, 'different');
    assert.equal(compareGoldRuns(sqlite([[5]]), postgres([[5.5]])).status, 'different');
  });

  it('another quantity (question 281: a share among women vs a share among Marvel heroes) is a finding, with both first rows', () => {
    const check = compareGoldRuns(sqlite([[28.68217054263566]]), postgres([[54.95049504950495]]));
    assert.equal(check.status, 'different');
    assert.match(
      check.detail,
      /the SQLite gold returns 1 row, the PostgreSQL gold 1 row; no row in common, 1 only in the SQLite gold's, 1 only/,
    );
    assert.deepEqual(check.evidence.gold.first_rows, [[28.68217054263566]]);
    assert.deepEqual(check.evidence.compared?.first_rows, [[54.95049504950495]]);
    assert.equal(isCrossDialectFinding(check), true);
  });

  it('text is case-sensitive and a date is not its text; rows in common are counted', () => {
    const date = new TypedValue('date', '2019-10-08', '2019-10-08');
    const check = compareGoldRuns(
      sqlite([
        ['x', '2019-10-08'],
        ['y', 'a'],
      ]),
      postgres([
        ['x', date],
        ['y', 'a'],
        ['Y', 'a'],
      ]),
    );
    assert.equal(check.status, 'different');
    assert.match(check.detail, /1 row in common, 1 only in the SQLite gold's, 2 only in the PostgreSQL gold's/);
  });

  it('a compared gold that fails, or whose rows Python cannot put in a set, is a finding; a failing audited gold is not compared', () => {
    const fails = compareGoldRuns(sqlite([[1]]), { ...postgres([]), run: { status: 'error', message: 'column "x" does not exist' } });
    assert.equal(fails.status, 'error');
    assert.equal(fails.detail, 'the PostgreSQL gold fails: column "x" does not exist');
    assert.equal(isCrossDialectFinding(fails), true);
    const unhashable = compareGoldRuns(sqlite([[1]]), postgres([[new TypedValue('list', '{1,2}', '{1,2}', "unhashable type: 'list'")]]));
    assert.equal(unhashable.status, 'error');
    assert.match(unhashable.detail, /Python raises "unhashable type: 'list'" on the PostgreSQL gold's result/);
    assert.equal(isCrossDialectFinding(unhashable), true);
    const goldFails = compareGoldRuns({ ...sqlite([]), run: { status: 'error', message: 'no such column: x' } }, postgres([[1]]));
    assert.equal(goldFails.status, 'error');
    assert.equal(isCrossDialectFinding(goldFails), false, 'the audit flags a failing gold already');
  });

  it('on one engine the golds are named the gold and the compared gold; counts and the summary line', () => {
    const check = compareGoldRuns(sqlite([[1]]), sqlite([[2]]));
    assert.match(check.detail, /the gold returns 1 row, the compared gold 1 row/);
    const counts = crossDialectCounts([
      check,
      compareGoldRuns(sqlite([[0.1234567]]), postgres([[0.1234568]])),
      compareGoldRuns(sqlite([[1]]), postgres([[1]])),
      undefined,
    ]);
    assert.deepEqual(counts, { same: 2, precision_only: 1, different: 1, error: 0 });
    assert.equal(
      crossDialectText({ compared_gold_file: 'pg.sql', gold_engine: 'sqlite', compared_engine: 'postgres', counts }),
      'cross-dialect check against the PostgreSQL gold (pg.sql): 2 same (1 only past the 6th significant digit), 1 different, 0 failed or not compared',
    );
  });
});
