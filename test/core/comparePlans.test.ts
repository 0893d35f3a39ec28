// comparePlans never says "the same steps" (an empty list) for plans that differ: a query with no plan at all,
// or a gold with an extra CO-ROUTINE whose rule cost is 250 against the prediction's 150.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { DatabaseConnection } from '../../src/core/db/engine';
import { SchemaInfo } from '../../src/core/db/schema';
import { comparePlans } from '../../src/core/plan/comparePlans';
import { buildPlanTree, parsePlanText } from '../../src/core/db/sqlite/queryPlan';
import { explainQuery, explainTree } from '../../src/core/plan/explain';
import { useSampleSuperhero } from '../helpers';

describe('comparePlans: what differs, never "the same steps" when they differ', () => {
  let db: DatabaseConnection;
  let schema: SchemaInfo;
  useSampleSuperhero((opened) => ({ db, schema } = opened));

  it('says which query has no plan (an error, a refusal)', async () => {
    const gold = await explainQuery(db, 'SELECT superhero_name FROM superhero', schema);
    const broken = await explainQuery(db, 'SELECT nope FROM superhero', schema);
    const refused = await explainQuery(db, 'DELETE FROM superhero', schema);
    assert.match(comparePlans(gold, broken)[0].message, /^the prediction has no plan: no such column: nope/);
    assert.match(comparePlans(gold, refused)[0].message, /^the prediction has no plan: .*only read queries/);
    assert.match(comparePlans(broken, gold)[0].message, /^the gold has no plan/);
    assert.match(comparePlans(broken, refused)[0].message, /^neither query has a plan/);
  });

  it('counts an extra CO-ROUTINE and the pass over its result (rule cost 250 vs 150)', () => {
    const rows = (text: string) => buildPlanTree(parsePlanText(text));
    const gold = explainTree(
      'SELECT * FROM (SELECT * FROM superhero ORDER BY height_cm LIMIT 5)',
      rows(
        [
          'QUERY PLAN',
          '|--CO-ROUTINE (subquery-1)',
          '|  `--SCAN superhero',
          '|--SCAN (subquery-1)',
          '`--USE TEMP B-TREE FOR ORDER BY',
        ].join('\n'),
      ),
      schema,
    );
    const pred = explainTree(
      'SELECT * FROM superhero ORDER BY height_cm',
      rows(['QUERY PLAN', '|--SCAN superhero', '`--USE TEMP B-TREE FOR ORDER BY'].join('\n')),
      schema,
    );
    assert.deepEqual([gold.cost.rule, pred.cost.rule], [250, 150]);
    const messages = comparePlans(gold, pred).map((d) => d.message);
    assert.ok(
      messages.some((m) => /fewer subquery result/.test(m)),
      messages.join('\n'),
    );
    assert.ok(comparePlans(pred, gold).some((d) => d.direction === -1 && /more subquery result/.test(d.message)));
  });

  it('a co-routine named like a table alias is not a second read of that table', async () => {
    const gold = await explainQuery(
      db,
      'SELECT T1.superhero_name FROM (SELECT * FROM superhero AS T1 ORDER BY height_cm LIMIT 5) AS T1 ORDER BY T1.superhero_name',
      schema,
    );
    const pred = await explainQuery(db, 'SELECT T1.superhero_name FROM superhero AS T1 ORDER BY T1.superhero_name', schema);
    const messages = comparePlans(gold, pred).map((d) => d.message);
    assert.ok(!messages.some((m) => /SCAN \+ SCAN/.test(m)), messages.join('\n'));
    assert.ok(
      messages.some((m) => /fewer subquery result/.test(m)),
      messages.join('\n'),
    );
  });

  it('says nothing for identical plans', async () => {
    const a = await explainQuery(db, 'SELECT superhero_name FROM superhero WHERE id = 3', schema);
    const b = await explainQuery(db, 'SELECT superhero_name FROM superhero WHERE id = 4', schema);
    assert.deepEqual(comparePlans(a, b), []);
  });
});
