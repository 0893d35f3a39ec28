import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DatabaseConnection } from '../../src/core/db/engine';
import { SchemaInfo } from '../../src/core/db/schema';
import { tableAliases } from '../../src/core/sql/scope';
import { comparePlans } from '../../src/core/plan/comparePlans';
import { explainQuery, walkPlan } from '../../src/core/plan/explain';
import { PlanNode } from '../../src/core/db/planTree';
import { buildPlanTree, parseDetail, parsePlanText } from '../../src/core/db/sqlite/queryPlan';
import { REPO_ROOT, useSampleSuperhero } from '../helpers';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'plans');

/** A node with only the fields it sets, as the fixture files write them. */
function compact(node: PlanNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (['id', 'parent', 'children'].includes(key) || value === undefined || value === false) continue;
    out[key] = value;
  }
  if (node.children.length) out.children = node.children.map(compact);
  return out;
}

describe('plan parser fixtures: plan text in, expected tree out', () => {
  const names = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.txt'))
    .sort();
  it('has a fixture for every detail form the issue lists', () => assert.ok(names.length >= 18, names.join(', ')));
  for (const name of names) {
    it(name.replace('.txt', ''), () => {
      const tree = buildPlanTree(parsePlanText(fs.readFileSync(path.join(FIXTURES, name), 'utf8')));
      const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, name.replace('.txt', '.json')), 'utf8'));
      assert.deepEqual(tree.map(compact), expected);
    });
  }

  it('covers every node kind at least once', () => {
    const kinds = new Set<string>();
    for (const name of names) {
      for (const node of walkPlan(buildPlanTree(parsePlanText(fs.readFileSync(path.join(FIXTURES, name), 'utf8'))))) kinds.add(node.kind);
    }
    for (const kind of [
      'scan',
      'search',
      'scan-subquery',
      'constant-row',
      'temp-btree',
      'subquery',
      'materialize',
      'co-routine',
      'compound',
      'bloom-filter',
      'multi-index-or',
      'in-operator',
      'recursive',
      'right-join',
      'unknown',
    ]) {
      assert.ok(kinds.has(kind), kind);
    }
  });

  it('never throws, whatever the detail string', () => {
    for (const detail of ['', 'SCAN', 'SEARCH', 'USE TEMP B-TREE FOR', '((((', 'SCAN t USING INDEX', 'SEARCH t USING COVERING INDEX (']) {
      assert.doesNotThrow(() => parseDetail(detail));
    }
  });
});

describe('alias resolution', () => {
  it('maps aliases to real tables, with or without AS, quoted or not', () => {
    const map = tableAliases('SELECT * FROM superhero AS T1 JOIN "colour" c ON T1.x = c.id, publisher WHERE publisher.id = 1', [
      'superhero',
      'colour',
      'publisher',
    ]);
    assert.equal(map.get('t1'), 'superhero');
    assert.equal(map.get('c'), 'colour');
    assert.equal(map.get('publisher'), 'publisher');
    assert.equal(map.has('where'), false);
  });
});

describe('explain on the real superhero database', () => {
  let db: DatabaseConnection;
  let schema: SchemaInfo;
  useSampleSuperhero((opened) => ({ db, schema } = opened));

  it('reads row counts and resolves aliases to tables', async () => {
    assert.equal(schema.tables.get('superhero')?.rowCount, 750);
    const plan = await explainQuery(
      db,
      "SELECT T1.superhero_name FROM superhero AS T1 JOIN colour AS T2 ON T1.eye_colour_id = T2.id WHERE T2.colour = 'Blue' ORDER BY T1.height_cm",
      schema,
    );
    const [scan, search, sort] = plan.nodes;
    assert.equal(scan.kind, 'scan');
    assert.equal(scan.realTable, 'superhero');
    assert.equal(scan.rowCount, 750);
    assert.equal(search.realTable, 'colour');
    assert.equal(search.loops, 750, 'one lookup per superhero row');
    assert.equal(sort.kind, 'temp-btree');
    assert.equal(plan.cost.rule, 150, 'SCAN +100, temp B-tree +50, SEARCH 0');
  });

  it('charges a correlated subquery for every outer row', async () => {
    const correlated = await explainQuery(
      db,
      'SELECT (SELECT count(*) FROM hero_power hp WHERE hp.hero_id = s.id) FROM superhero s',
      schema,
    );
    const joined = await explainQuery(
      db,
      'SELECT count(hp.hero_id) FROM superhero s LEFT JOIN hero_power hp ON hp.hero_id = s.id GROUP BY s.id',
      schema,
    );
    assert.ok(correlated.cost.work > 100 * joined.cost.work, `${correlated.cost.work} vs ${joined.cost.work}`);
  });

  it('says what differs between a gold and a predicted plan', async () => {
    const gold = await explainQuery(
      db,
      'SELECT superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 WHERE T1.id = T2.hero_id)',
      schema,
    );
    const pred = await explainQuery(
      db,
      'SELECT DISTINCT sh.superhero_name FROM superhero sh JOIN hero_power hp ON sh.id = hp.hero_id',
      schema,
    );
    const messages = comparePlans(gold, pred).map((d) => d.message);
    assert.ok(
      messages.some((m) => /superhero: SCAN → SEARCH USING INTEGER PRIMARY KEY/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /fewer correlated subquer/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /new temp B-tree for DISTINCT/.test(m)),
      messages.join('\n'),
    );
  });

  it('reports a compile error or a refusal instead of a plan', async () => {
    assert.match((await explainQuery(db, 'SELECT nope FROM superhero', schema)).error ?? '', /no such column: nope/);
    assert.match((await explainQuery(db, 'DELETE FROM superhero', schema)).error ?? '', /only read queries run/);
  });
});
