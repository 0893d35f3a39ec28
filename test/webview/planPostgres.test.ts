// PostgreSQL's plans in the Plan panel and the Score panel's plan section, in Chromium, light and dark: real plans
// from a PostgreSQL 15 server (a throwaway cluster loaded with superhero), explained and measured (EXPLAIN
// ANALYZE), made into cards by app/statementPlan.ts's planView as the language server sends them. Screenshots go to
// test-results/webview/.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Browser } from 'playwright-core';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase } from '../../src/core/db/engines';
import { LocalCluster, localClusterMissing, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { loadFromSqlite } from '../../src/core/db/postgres/loadFromSqlite';
import { openServerTarget } from '../../src/core/db/postgres/loadTarget';
import { readSchema } from '../../src/core/db/schema';
import { engineLine } from '../../src/core/text/engineText';
import { explainQuery } from '../../src/core/plan/explain';
import { formatSql } from '../../src/app/sqlLayout';
import { comparePlanViews, planView } from '../../src/app/statementPlan';
import type { ExplainResult, ScoreResult } from '../../src/shared/protocol';
import { BIRD_DATA, birdDataMissing, REPO_ROOT } from '../helpers';
import { appText, chromiumMissing, launchChromium, openPanelPage, overflowsSideways, post, settle } from './harness';

declare const window: any;

const SHOTS = path.join(REPO_ROOT, 'test-results', 'webview');
const GOLD =
  "SELECT T3.power_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'";
const PRED =
  "SELECT sp.power_name FROM superpower sp WHERE sp.id IN (SELECT hp.power_id FROM hero_power hp WHERE hp.hero_id IN (SELECT id FROM superhero WHERE superhero_name = '3-D Man'))";
const CORRELATED =
  'SELECT T1.superhero_name FROM superhero AS T1 WHERE T1.height_cm > (SELECT avg(T2.height_cm) FROM superhero AS T2 WHERE T2.publisher_id = T1.publisher_id) ORDER BY 1';

describe(
  'PostgreSQL plans in the Plan and Score panels (Chromium)',
  { skip: chromiumMissing || localClusterMissing() || birdDataMissing(), timeout: 180_000 },
  () => {
    let browser: Browser;
    let cluster: LocalCluster;
    let db: DatabaseConnection;
    let engine: string;
    let explain: (sql: string, analyze: boolean) => Promise<ExplainResult>;

    before(async () => {
      fs.mkdirSync(SHOTS, { recursive: true });
      cluster = startLocalCluster({ database: 'bird' });
      const target = await openServerTarget(cluster.url);
      try {
        await loadFromSqlite(target, { from: path.join(BIRD_DATA, 'databases'), dbIds: ['superhero'] });
      } finally {
        await target.close();
      }
      db = await openDatabase(cluster.url);
      const schema = await readSchema(db);
      engine = engineLine({
        engine: 'postgres',
        version: await db.engine.version(),
        runs: 'server',
        location: cluster.url,
        layout: 'one-database',
      });
      explain = async (sql, analyze) => {
        const plan = await explainQuery(
          db,
          sql,
          schema,
          analyze ? { analyze: { deadline: performance.now() + 10_000, budgetMs: 10_000 } } : {},
        );
        return { plan: planView(plan), sql, formattedSql: formatSql(sql), dbId: 'superhero', dbPath: db.path, sqlite: '3.45.1', engine };
      };
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await db?.close();
      cluster?.stop();
    });

    for (const theme of ['light', 'dark'] as const) {
      it(`draws PostgreSQL's plan as step cards: operators, planner cost and its own share, the costliest; a button to measure it (${theme})`, async () => {
        const page = await openPanelPage(browser, 'plan.js', theme);
        await post(page, { type: 'plan', explain: await explain(CORRELATED, false), following: false });
        await settle(page);
        const shown = await appText(page);
        assert.match(shown, /^Query plan · query\s+database superhero · PostgreSQL 15\.\d+/);
        assert.match(shown, /PLANNER COST\s+[\d.]+[\s\S]*RULE COST\s+\d+[\s\S]*STEPS\s+\d+/i);
        assert.doesNotMatch(shown, /ROW VISITS/i);
        assert.match(shown, /Seq Scan\s+superhero AS t1/);
        assert.match(shown, /cost [\d.]+ · self [\d.]+ · \d+ %/);
        assert.equal(await page.locator('.plan-node.costliest').count(), 1);
        assert.equal(await page.locator('.plan-node.kind-subquery').count(), 1, 'the correlated SubPlan is a subquery step');
        await page.locator('.plan-node', { hasText: 'Seq Scan' }).first().hover();
        assert.match(
          await page.locator('#plan-tip').innerText(),
          /Seq Scan: reads every row of the table[\s\S]*The planner estimated ~[\d.K]+ rows per loop/,
        );
        await page.screenshot({ path: path.join(SHOTS, `plan-postgres-${theme}.png`), fullPage: true });
        await page.locator('#analyze').click();
        assert.deepEqual(await page.evaluate(() => window.posted.at(-1)), { type: 'analyze' });
        assert.equal(await overflowsSideways(page), false);
        assert.deepEqual(page.errors, []);
        await page.close();
      });

      it(`draws a measured plan: actual rows × loops, own time, buffers, the slowest step and misestimates flagged (${theme})`, async () => {
        const page = await openPanelPage(browser, 'plan.js', theme);
        const measured = await explain(CORRELATED, true);
        await post(page, { type: 'plan', explain: measured, following: false });
        await settle(page);
        const shown = await appText(page);
        assert.match(shown, /^Query plan, measured · query/);
        assert.match(shown, /RAN IN\s+[\d.]+ ms\s+EXPLAIN ANALYZE, read-only · planning [\d.]+ ms/i);
        assert.match(shown, /actual [\d.K]+ rows? × 750 loops · [\d.]+ ms \(self [\d.]+ ms\) · buffers [\d.K]+ hit, \d+ read/);
        assert.equal(await page.locator('.plan-node .slowest-badge').count(), 1);
        assert.equal(await page.locator('#analyze').count(), 0, 'measured already');
        const flagged = await page.locator('.misestimate-badge').count();
        const expected = [...JSON.stringify(measured.plan).matchAll(/"misestimate":(\d+(\.\d+)?)/g)].filter(
          (m) => Number(m[1]) >= 10,
        ).length;
        assert.equal(flagged, expected);
        await page.screenshot({ path: path.join(SHOTS, `plan-postgres-analyzed-${theme}.png`), fullPage: true });
        assert.equal(await overflowsSideways(page), false);
        assert.deepEqual(page.errors, []);
        await page.close();
      });
    }

    it("aligns the gold's and the prediction's PostgreSQL plans step by step in the Score panel", async () => {
      const page = await openPanelPage(browser, 'score.js', 'dark');
      const result = JSON.parse(
        fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'score-panel', 'timed-717.json'), 'utf8'),
      ) as ScoreResult;
      const schema = await readSchema(db);
      const [gold, pred] = [await explainQuery(db, GOLD, schema), await explainQuery(db, PRED, schema)];
      Object.assign(result, { goldPlan: planView(gold), predPlan: planView(pred), planComparison: comparePlanViews(gold, pred), engine });
      await post(page, { type: 'result', result, partial: false, context: { target: { sql: PRED }, questionId: 717 } });
      await settle(page);
      const shown = await appText(page);
      assert.match(shown, /Plans\s+the plans differ: planner cost [\d.]+ \(gold\) vs [\d.]+ \(prediction\), rule cost \d+ vs \d+/);
      assert.ok((await page.locator('.plan-compare .compare-cell.gold .plan-node.planned').count()) >= 3);
      assert.ok((await page.locator('.plan-compare .compare-cell.pred .plan-node.planned').count()) >= 3);
      assert.equal(await page.locator('.plan-compare .compare-cell.gold .plan-node.costliest').count(), 1);
      assert.ok((await page.locator('.compare-row.mark-same, .compare-row.mark-changed').count()) > 0, 'corresponding steps side by side');
      await page.locator('.plans').screenshot({ path: path.join(SHOTS, 'score-plans-postgres-dark.png') });
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  },
);
