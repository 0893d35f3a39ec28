import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DatabaseConnection } from '../../src/core/db/engine';
import { readQuery } from '../../src/core/db/readQuery';
import { SchemaInfo } from '../../src/core/db/schema';
import { sqliteEngine } from '../../src/core/db/sqlite/sqliteEngine';
import { sameResultSet } from '../../src/core/metrics/executionMatch';
import { decideEquivalence } from '../../src/core/results/equivalence';
import { BIRD_DATA, birdDataMissing } from '../helpers';

const skip = birdDataMissing();

/** [gold, prediction, provably equivalent?, what the reason must mention] on the real superhero schema. */
const CASES: [string, string, boolean, RegExp?][] = [
  [
    "SELECT T1.superhero_name FROM superhero AS T1 INNER JOIN colour AS T2 ON T1.eye_colour_id = T2.id WHERE T2.colour = 'Blue'",
    "select s.superhero_name from colour c join superhero s on c.id = s.eye_colour_id where c.colour = 'Blue'",
    true,
    /inner joins in another order/,
  ],
  ['SELECT COUNT(id) FROM superhero WHERE height_cm > 200', 'SELECT COUNT(*) FROM superhero WHERE 200 < height_cm', true, /NOT NULL/],
  ['SELECT COUNT(DISTINCT id) FROM superhero', 'SELECT COUNT(*) FROM superhero', true, /DISTINCT on the key/],
  ['SELECT DISTINCT full_name FROM superhero ORDER BY full_name', 'SELECT full_name FROM superhero', true, /EX compares sets/],
  ['SELECT COUNT(height_cm) FROM superhero', 'SELECT COUNT(*) FROM superhero', false],
  ['SELECT COUNT(*) FROM superhero WHERE height_cm >= 200', 'SELECT COUNT(*) FROM superhero WHERE height_cm > 200', false],
  ['SELECT DISTINCT full_name FROM superhero LIMIT 3', 'SELECT full_name FROM superhero LIMIT 3', false],
  [
    'SELECT superhero_name FROM superhero ORDER BY height_cm DESC LIMIT 1',
    'SELECT superhero_name FROM superhero WHERE height_cm = (SELECT MAX(height_cm) FROM superhero)',
    false,
  ],
  [
    'SELECT T1.superhero_name FROM superhero T1 LEFT JOIN colour T2 ON T1.eye_colour_id = T2.id',
    'SELECT T1.superhero_name FROM superhero T1 JOIN colour T2 ON T1.eye_colour_id = T2.id',
    false,
  ],
  ['SELECT full_name, superhero_name FROM superhero', 'SELECT superhero_name, full_name FROM superhero', false],
  ['SELECT height_cm / 2 FROM superhero', 'SELECT height_cm / 2.0 FROM superhero', false],
  ["SELECT full_name FROM superhero WHERE full_name = 'x' COLLATE NOCASE", "SELECT full_name FROM superhero WHERE full_name = 'x'", false],
  ['SELECT 1 UNION SELECT 2', 'SELECT 2 UNION SELECT 1', false, /outside the subset/],
];

describe('equivalence where provable', { skip }, () => {
  let db: DatabaseConnection;
  let schema: SchemaInfo;
  before(async () => {
    db = await sqliteEngine.open(path.join(BIRD_DATA, 'databases', 'superhero', 'superhero.sqlite'));
    schema = await db.readSchema();
  });
  after(() => db?.close());

  for (const [gold, prediction, equivalent, reason] of CASES) {
    it(`${equivalent ? 'equivalent' : 'not proved'}: ${prediction}`, async () => {
      const verdict = decideEquivalence(gold, prediction, schema);
      assert.equal(verdict.verdict, equivalent ? 'equivalent' : 'agrees_on_this_data', verdict.reason);
      if (reason) assert.match(verdict.reason, reason);
      if (equivalent) {
        // A proof must at least hold on the real data.
        const limits = { maxRows: 10_000, deadline: performance.now() + 10_000 };
        const a = await readQuery(db, gold, limits);
        const b = await readQuery(db, prediction, limits);
        assert.ok(a.status === 'ok' && b.status === 'ok');
        assert.ok(sameResultSet(b.rows, a.rows));
      }
    });
  }

  it('says so when a query cannot be read, and treats the same program as equivalent', () => {
    assert.match(decideEquivalence('SELEC nonsense', 'SELECT 1', schema).reason, /no proof/);
    assert.equal(decideEquivalence('SELECT 1', 'select 1', schema, true).verdict, 'equivalent');
  });
});
