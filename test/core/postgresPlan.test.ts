// PostgreSQL's plans in VES Lens's plan model, read as pev2 reads them: EXPLAIN (FORMAT JSON) and EXPLAIN
// (ANALYZE, BUFFERS) mapped onto the typed tree, exclusive cost and time, misestimates, buffers; plans compared,
// printed and drawn; BIRD-Critic's Total Cost verdict. Then on a real PostgreSQL 15 server (a throwaway cluster
// loaded with superhero): EXPLAIN ANALYZE read-only and bounded, rewrite verification that says what the planner
// made of a rewrite, and index advice that writes only to a scratch copy, and leaves it as it was.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase } from '../../src/core/db/engines';
import { LocalCluster, localClusterMissing, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { loadFromSqlite } from '../../src/core/db/postgres/loadFromSqlite';
import { openServerTarget } from '../../src/core/db/postgres/loadTarget';
import { measuredPlanOfJson, planTreeOfJson } from '../../src/core/db/postgres/postgresPlan';
import { readSchema, SchemaInfo } from '../../src/core/db/schema';
import { analyzeSql } from '../../src/core/hints/analyze';
import { verifyHint } from '../../src/core/hints/verify';
import { comparePlans } from '../../src/core/plan/comparePlans';
import { CostedNode, plannerCostVerdict } from '../../src/core/plan/cost';
import { ExplainedPlan, explainQuery, explainTree, walkPlan } from '../../src/core/plan/explain';
import { adviseIndexes, NEEDS_SCRATCH } from '../../src/core/plan/indexAdvice';
import { planLines } from '../../src/core/report/planText';
import { plainText } from '../../src/core/text/terminalText';
import { comparePlanViews, planView } from '../../src/app/statementPlan';
import { BIRD_DATA, birdDataMissing, SAMPLE_SUPERHERO } from '../helpers';

/** Only node types, relations and figures matter here: an empty schema costs the plan by its own numbers. */
const NO_SCHEMA: SchemaInfo = { tables: new Map() } as SchemaInfo;

const node = (fields: Record<string, unknown>, ...plans: Record<string, unknown>[]) => ({
  ...fields,
  ...(plans.length ? { Plans: plans } : {}),
});

/**
 * A measured Nested Loop: an InitPlan (its time is inside the step that ran it, as in PostgreSQL), an outer Seq
 * Scan and an inner Index Scan run 10 times. Figures chosen so that every derived number is easy to check.
 */
const ANALYZED = [
  {
    Plan: node(
      {
        'Node Type': 'Nested Loop',
        'Join Type': 'Inner',
        'Startup Cost': 5,
        'Total Cost': 50,
        'Plan Rows': 10,
        'Actual Rows': 100,
        'Actual Loops': 1,
        'Actual Startup Time': 0.1,
        'Actual Total Time': 2.0,
        'Shared Hit Blocks': 30,
        'Shared Read Blocks': 2,
        'Join Filter': '(a.x > $0)',
        'Rows Removed by Join Filter': 7,
      },
      node(
        {
          'Node Type': 'Aggregate',
          Strategy: 'Plain',
          'Parent Relationship': 'InitPlan',
          'Subplan Name': 'InitPlan 1 (returns $0)',
          'Total Cost': 5,
          'Plan Rows': 1,
          'Actual Rows': 1,
          'Actual Loops': 1,
          'Actual Total Time': 0.5,
          'Shared Hit Blocks': 5,
          'Shared Read Blocks': 0,
        },
        node({
          'Node Type': 'Seq Scan',
          'Parent Relationship': 'Outer',
          'Relation Name': 't',
          Alias: 't',
          'Total Cost': 4,
          'Plan Rows': 10,
          'Actual Rows': 10,
          'Actual Loops': 1,
          'Actual Total Time': 0.3,
          'Shared Hit Blocks': 5,
          'Shared Read Blocks': 0,
        }),
      ),
      node({
        'Node Type': 'Seq Scan',
        'Parent Relationship': 'Outer',
        'Relation Name': 'a',
        Alias: 'a',
        'Total Cost': 10,
        'Plan Rows': 10,
        'Actual Rows': 10,
        'Actual Loops': 1,
        'Actual Total Time': 0.4,
        'Shared Hit Blocks': 10,
        'Shared Read Blocks': 2,
        Filter: '(a.y = 1)',
        'Rows Removed by Filter': 90,
      }),
      node({
        'Node Type': 'Index Scan',
        'Parent Relationship': 'Inner',
        'Relation Name': 'b',
        Alias: 'b',
        'Index Name': 'b_pkey',
        'Index Cond': '(b.id = a.b_id)',
        'Total Cost': 3,
        'Plan Rows': 1,
        'Actual Rows': 10,
        'Actual Loops': 10,
        'Actual Total Time': 0.1,
        'Shared Hit Blocks': 15,
        'Shared Read Blocks': 0,
      }),
    ),
    'Planning Time': 0.25,
    'Execution Time': 2.5,
  },
];

/** Parallel workers report time per worker (not × loops); a step that never ran has 0 loops. */
const PARALLEL = [
  {
    Plan: node(
      { 'Node Type': 'Gather', 'Total Cost': 100, 'Plan Rows': 300, 'Actual Rows': 300, 'Actual Loops': 1, 'Actual Total Time': 10 },
      node(
        {
          'Node Type': 'Hash Join',
          'Join Type': 'Left',
          'Parent Relationship': 'Outer',
          'Hash Cond': '(p.id = q.p_id)',
          'Total Cost': 90,
          'Plan Rows': 100,
          'Actual Rows': 100,
          'Actual Loops': 3,
          'Actual Total Time': 8,
        },
        node({
          'Node Type': 'Seq Scan',
          'Parent Relationship': 'Outer',
          'Relation Name': 'p',
          Alias: 'p',
          'Total Cost': 40,
          'Plan Rows': 100,
          'Actual Rows': 100,
          'Actual Loops': 3,
          'Actual Total Time': 5,
        }),
        node(
          { 'Node Type': 'Hash', 'Parent Relationship': 'Inner', 'Total Cost': 30, 'Plan Rows': 50, 'Actual Rows': 0, 'Actual Loops': 0 },
          node({
            'Node Type': 'Seq Scan',
            'Parent Relationship': 'Outer',
            'Relation Name': 'q',
            Alias: 'q',
            'Total Cost': 30,
            'Plan Rows': 50,
            'Actual Rows': 0,
            'Actual Loops': 0,
          }),
        ),
      ),
    ),
  },
];

function find(plan: ExplainedPlan, test: (node: CostedNode) => boolean): CostedNode {
  const found = [...walkPlan(plan.nodes)].find(test);
  assert.ok(found, 'step not found');
  return found;
}

describe("PostgreSQL's plans in the plan model (no server)", () => {
  const analyzed = () => {
    const tree = measuredPlanOfJson(ANALYZED);
    const plan = explainTree('SELECT ...', tree.nodes, NO_SCHEMA);
    plan.measured = { planningMs: tree.planningMs, executionMs: tree.executionMs };
    return plan;
  };

  it('maps EXPLAIN ANALYZE onto the typed tree: operators, relations, conditions, filters, actuals, times', () => {
    const tree = measuredPlanOfJson(ANALYZED);
    assert.equal(tree.planningMs, 0.25);
    assert.equal(tree.executionMs, 2.5);
    const [root] = tree.nodes;
    assert.equal(root.nodeType, 'Nested Loop');
    assert.equal(root.filter, 'a.x > $0');
    assert.equal(root.rowsRemovedByFilter, 7);
    const [initPlan, outer, inner] = root.children;
    assert.equal(initPlan.kind, 'subquery');
    assert.equal(initPlan.correlated, false);
    assert.equal(initPlan.children[0].nodeType, 'Aggregate');
    assert.equal(initPlan.children[0].detail, 'Aggregate');
    assert.deepEqual([outer.kind, outer.table, outer.filter, outer.rowsRemovedByFilter], ['scan', 'a', 'a.y = 1', 90]);
    assert.deepEqual([inner.kind, inner.index, inner.constraint, inner.actualLoops], ['search', 'b_pkey', 'b.id = a.b_id', 10]);
    // Without ANALYZE the same mapping carries no measurements.
    const [plain] = planTreeOfJson([{ Plan: { 'Node Type': 'Seq Scan', 'Relation Name': 'a', 'Total Cost': 10, 'Plan Rows': 10 } }]);
    assert.equal(plain.actualLoops, undefined);
    assert.equal(measuredPlanOfJson(PARALLEL).nodes[0].children[0].detail, 'Hash Left Join (p.id = q.p_id)');
  });

  it("costs each step by the planner's Total Cost: exclusive cost is its cost less its inputs', the plan's is the root's", () => {
    const plan = analyzed();
    assert.deepEqual(plan.cost, { rule: 200, work: 50, totalCost: 50 });
    const view = planView(plan);
    const [root] = view.nodes;
    assert.equal(root.selfWork, 32); // 50 - (5 + 10 + 3)
    assert.equal(root.share, 1);
    assert.equal(view.totalCost, 50);
    assert.deepEqual(view.measured, { planningMs: 0.25, executionMs: 2.5 });
    // The costliest step is the one with most cost of its own: the Nested Loop here (32 of 50).
    assert.equal(root.costliest, true);
    assert.equal(root.children[1].selfWork, 10);
  });

  it('reads times as pev2 does: × loops, inputs taken out, an InitPlan left with the step that ran it, workers not × loops', () => {
    const plan = analyzed();
    const [root] = plan.nodes;
    const inner = find(plan, (n) => n.table === 'b');
    assert.equal(inner.measured!.totalMs, 1); // 0.1 ms × 10 loops
    assert.ok(Math.abs(root.measured!.selfMs - 0.6) < 1e-9); // 2.0 - (0.4 + 1.0); the InitPlan's 0.5 ms is not taken out
    assert.equal(root.measured!.hitBlocks, 5); // 30 - (10 + 15)
    assert.equal(root.measured!.readBlocks, 0);
    assert.deepEqual([root.measured!.misestimate, root.measured!.direction], [10, 'under']);
    assert.deepEqual([inner.measured!.misestimate, inner.measured!.direction], [10, 'under']);
    assert.equal(find(plan, (n) => n.table === 'a').measured!.direction, 'exact');

    const parallel = explainTree('SELECT ...', measuredPlanOfJson(PARALLEL).nodes, NO_SCHEMA);
    const join = find(parallel, (n) => n.nodeType === 'Hash Join');
    assert.equal(join.measured!.totalMs, 8); // under a Gather: per worker, not × 3 loops
    assert.equal(parallel.nodes[0].measured!.selfMs, 2);
    const never = find(parallel, (n) => n.table === 'q');
    assert.deepEqual([never.measured!.loops, never.measured!.misestimate], [0, 1]);
    assert.equal(planView(parallel).nodes[0].children[0].children[0].slowest, true); // the Seq Scan on p: 5 ms of its own
  });

  it('prints the tree with planner costs, its own share, the costliest step, measurements and flagged misestimates', () => {
    const lines = planLines(analyzed()).map(plainText);
    assert.match(lines[0], /^QUERY PLAN {2}planner cost 50\.00 · rule cost 200 · ran in 2\.50 ms \(planning 0\.250 ms\)$/);
    assert.match(lines[1], /^`--Nested Loop  ← costliest {2}\[\+0|^`--Nested Loop {2}← costliest/);
    assert.match(lines[1], /est\. 10 rows · cost 50\.00 \(self 32\.00, 64 %\) · filter a\.x > \$0, 7 removed\]/);
    assert.match(
      lines[1],
      /actual 100 rows · 2\.00 ms \(self 0\.600 ms\) · buffers 5 hit, 0 read · rows misestimated 10\.0× \(underestimated\)/,
    );
    const inner = lines.find((line) => line.includes('Index Scan'))!;
    assert.match(inner, /actual 10 rows × 10 loops · 1\.00 ms \(self 1\.00 ms\)/);
    assert.ok(lines.some((line) => /SCALAR SUBQUERY InitPlan 1/.test(line)));
  });

  it('compares two planned plans by how tables are read, by operator, and by the planner cost', () => {
    const gold = explainTree('SELECT ...', measuredPlanOfJson(ANALYZED).nodes, NO_SCHEMA);
    const hashed = structuredClone(ANALYZED);
    const root = hashed[0].Plan as Record<string, unknown>;
    root['Node Type'] = 'Hash Join';
    root['Total Cost'] = 40;
    const inner = (root.Plans as Record<string, unknown>[])[2];
    Object.assign(inner, { 'Node Type': 'Seq Scan', 'Index Name': undefined, 'Index Cond': undefined });
    const pred = explainTree('SELECT ...', measuredPlanOfJson(hashed).nodes, NO_SCHEMA);
    const differences = comparePlans(gold, pred);
    assert.deepEqual(differences, [
      { direction: -1, message: 'b: Index Scan using b_pkey → Seq Scan' },
      { direction: 0, message: 'Nested Loop: 1 → 0 steps' },
      { direction: 0, message: 'Hash Join: 0 → 1 step' },
      { direction: 1, message: 'planner cost 50.00 → 40.00' },
    ]);
    const compared = comparePlanViews(gold, pred);
    assert.match(compared.summary, /^the plans differ: planner cost 50\.00 \(gold\) vs 40\.00 \(prediction\), rule cost 200 vs 300$/);
    // The two joins correspond (another method), as do the two reads of b.
    assert.equal(compared.rows[0].mark, 'changed');
    assert.ok(compared.rows.every((row) => row.gold && row.pred));
    assert.deepEqual(comparePlans(gold, gold), []);
    assert.equal(comparePlanViews(gold, gold).summary, 'the two plans take the same steps');
  });

  it("scores BIRD-Critic's verdict: the prediction's Total Cost strictly below the gold's, and the ratio gold / prediction", () => {
    const cost = (totalCost: number) => ({ rule: 0, work: totalCost, totalCost });
    assert.deepEqual(plannerCostVerdict({ gold: cost(20), pred: cost(10) }), {
      gold: cost(20),
      pred: cost(10),
      total_cost_ratio: 2,
      pred_cheaper: 1,
    });
    assert.equal(plannerCostVerdict({ gold: cost(10), pred: cost(10) }).pred_cheaper, 0);
    assert.equal(plannerCostVerdict({ gold: cost(10), pred: cost(20) }).total_cost_ratio, 0.5);
    assert.deepEqual(plannerCostVerdict({ gold: cost(10), pred: null }), {
      gold: cost(10),
      pred: null,
      total_cost_ratio: null,
      pred_cheaper: null,
    });
    // SQLite's costs carry no Total Cost: no verdict.
    assert.equal(plannerCostVerdict({ gold: { rule: 100, work: 5 }, pred: { rule: 0, work: 1 } }).pred_cheaper, null);
  });
});

describe('PostgreSQL plans, verification and index advice on a real server', { skip: localClusterMissing() || birdDataMissing() }, () => {
  let cluster: LocalCluster;
  let db: DatabaseConnection;
  let schema: SchemaInfo;
  let scratchUrl: string;
  const limits = (ms = 10_000) => ({ deadline: performance.now() + ms, budgetMs: ms });

  before(async () => {
    cluster = startLocalCluster({ database: 'bird' });
    scratchUrl = cluster.url.replace('/bird?', '/scratch?');
    for (const url of [cluster.url, scratchUrl]) {
      const target = await openServerTarget(url);
      try {
        await loadFromSqlite(target, { from: path.join(BIRD_DATA, 'databases'), dbIds: ['superhero'] });
      } finally {
        await target.close();
      }
    }
    db = await openDatabase(cluster.url);
    schema = await readSchema(db);
  });
  after(async () => {
    await db?.close();
    cluster?.stop();
  });

  const indexes = async (url: string) => {
    const connection = await openDatabase(url);
    try {
      return (await connection.all("SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1")).map((r) =>
        String(r.indexname),
      );
    } finally {
      await connection.close();
    }
  };

  it('EXPLAIN ANALYZE runs the query read-only and measures every step; the planner cost is the root Total Cost', async () => {
    const sql = 'SELECT T1.superhero_name FROM superhero T1 JOIN hero_power T2 ON T1.id = T2.hero_id WHERE T2.power_id = 18 ORDER BY 1';
    const plain = await explainQuery(db, sql, schema);
    const measured = await explainQuery(db, sql, schema, { analyze: limits() });
    assert.equal(measured.error, undefined);
    assert.equal(plain.cost.totalCost, plain.nodes[0].totalCost);
    assert.ok(measured.measured!.executionMs! > 0 && measured.measured!.planningMs! >= 0);
    const [root] = measured.nodes;
    const rows = (await db.all(`SELECT count(*)::int AS n FROM (${sql}) AS result`))[0].n;
    assert.equal(root.measured!.rows, rows);
    assert.ok([...walkPlan(measured.nodes)].every((step) => step.measured === undefined || step.measured.selfMs >= 0));
    assert.ok([...walkPlan(measured.nodes)].some((step) => (step.measured?.hitBlocks ?? 0) > 0));
    // The tables are the loaded ones, with their row counts.
    assert.equal(find(measured, (n) => n.table === 'hero_power').rowCount, 5825);
  });

  it('refuses to analyze what it must not run, stops a runaway query at its time limit, and SQLite says it cannot', async () => {
    const before = (await db.all('SELECT count(*)::int AS n FROM superhero'))[0].n;
    const refused = await explainQuery(db, 'DELETE FROM superhero', schema, { analyze: limits() });
    assert.match(refused.error ?? '', /not a read|write|only/i);
    const side = await explainQuery(db, "SELECT nextval('x')", schema, { analyze: limits() });
    assert.ok(side.error);
    assert.equal((await db.all('SELECT count(*)::int AS n FROM superhero'))[0].n, before);
    const started = performance.now();
    const slow = await explainQuery(db, 'SELECT pg_sleep(60)', schema, { analyze: limits(300) });
    assert.match(slow.error ?? '', /timed out|statement timeout|canceling/i);
    assert.ok(performance.now() - started < 15_000, 'stopped well before the 60 s sleep ends');
    assert.equal((await db.all('SELECT 1 AS one'))[0].one, 1); // the connection is still usable
    const sqlite = await openDatabase(SAMPLE_SUPERHERO);
    try {
      const none = await explainQuery(sqlite, 'SELECT 1', await readSchema(sqlite), { analyze: limits() });
      assert.match(none.error ?? '', /sqlite does not measure plan steps/);
    } finally {
      await sqlite.close();
    }
  });

  it("verifies a rewrite on the server and says after measuring what PostgreSQL's planner made of it", async () => {
    const sql = 'SELECT count(*) FROM superhero WHERE height_cm > 180';
    const [{ hints }] = analyzeSql(sql, { schema });
    const hint = hints.find((h) => h.rule === 'VL002');
    assert.ok(hint, 'VL002 offers COUNT(<key>)');
    const verdict = await verifyHint(db, sql, hint, { timeoutMs: 10_000, maxRows: 1000 });
    assert.equal(verdict.sameSet, true);
    assert.ok(verdict.speedup && verdict.speedup.runs > 0, 'measured before anything is said');
    assert.ok(verdict.planner);
    assert.equal(verdict.planner.samePlan, true);
    assert.match(verdict.message, /PostgreSQL's planner makes the same plan of both forms/);
    if (verdict.status !== 'faster') assert.match(verdict.message, /this rewrite does not help its planner/);
  });

  it('index advice: without a scratch copy the candidates are listed, not tried; with one, tried and rolled back there', async () => {
    const sql = 'SELECT superhero_name FROM superhero WHERE height_cm > 200 ORDER BY height_cm';
    const bird = await indexes(cluster.url);
    const scratch = await indexes(scratchUrl);
    const unchecked = await adviseIndexes(db, sql, schema, { measure: true });
    assert.equal(unchecked.verdicts.length, 0);
    assert.equal(unchecked.unchecked?.reason, NEEDS_SCRATCH);
    assert.deepEqual(
      unchecked.unchecked?.candidates.map((c) => c.columns),
      [['height_cm']],
    );
    const advice = await adviseIndexes(db, sql, schema, { measure: true, timeoutMs: 10_000, scratchTarget: scratchUrl });
    assert.equal(advice.error, undefined);
    const [verdict] = advice.verdicts;
    assert.equal(verdict.used, true);
    assert.ok(verdict.plan!.cost.totalCost! < advice.baseline!.cost.totalCost!);
    assert.ok(verdict.measured && verdict.measured.runs > 0 && verdict.measured.ratio > 0);
    assert.match(advice.method ?? '', /rolled back/);
    // Neither the server's database nor the scratch copy keeps anything.
    assert.deepEqual(await indexes(cluster.url), bird);
    assert.deepEqual(await indexes(scratchUrl), scratch);
    const missing = await adviseIndexes(db, sql, schema, { scratchTarget: cluster.url.replace('/bird?', '/postgres?') });
    assert.match(missing.error ?? '', /the scratch copy has no table "superhero"/);
  });
});
