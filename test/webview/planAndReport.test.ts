// The plan panel (src/webview/plan) and the report panel (src/webview/report) on their own in Chromium, fed real
// results of the language server's service (in-process, on the embedded superhero sample), light and dark.
// Screenshots go to test-results/webview/.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Browser } from 'playwright-core';
import { allRowsRatio, firstRowRatio } from '../../src/core/report/ratios';
import { VesLensService } from '../../src/server/service';
import type { EvaluateFileResult, ExplainResult, TimeQueryResult } from '../../src/shared/protocol';
import { REPO_ROOT } from '../helpers';
import { appText, chromiumMissing, launchChromium, openPanelPage, overflowsSideways, post, settle } from './harness';

declare const window: any, document: any;

const SHOTS = path.join(REPO_ROOT, 'test-results', 'webview');
const SAMPLE = path.join(REPO_ROOT, 'sample');
const CORRELATED =
  'SELECT T1.superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 WHERE T2.hero_id = T1.id AND T2.power_id = 18) ORDER BY T1.superhero_name';
const skip = chromiumMissing;

describe('Plan and report panel pages in Chromium', { skip, timeout: 180_000 }, () => {
  let browser: Browser;
  let explain: ExplainResult;
  let timing: TimeQueryResult;
  let report: EvaluateFileResult;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const service = new VesLensService({ documents: { get: () => undefined, all: () => [] }, log: () => {}, docsRoot: '' });
    await service.initialize({
      trusted: true,
      dataset: {
        questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
        goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
        dbRoot: SAMPLE,
      },
    });
    explain = await service.explain({ sql: CORRELATED, dbId: 'superhero' });
    timing = await service.timeQuery({ sql: CORRELATED, dbId: 'superhero', questionId: 717 });
    report = await service.evaluateFile({ predictionsFile: path.join(SAMPLE, 'predict_gpt-4_superhero.json'), metrics: ['ex', 'f1'] });
    await service.dispose();
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  for (const theme of ['light', 'dark'] as const) {
    it(`draws the plan as a tree of step cards with cost bars, the costliest marked, a tooltip per operator (${theme})`, async () => {
      const page = await openPanelPage(browser, 'plan.js', theme);
      await post(page, { type: 'plan', explain: { ...explain, source: { uri: 'file:///ws/predicted.sql', line: 2 } }, following: true });
      await settle(page);
      const shown = await appText(page);
      assert.match(
        shown,
        /^Query plan · predicted\.sql, line 2\s+database superhero · SQLite 3\.\d+\.\d+ · follows edits to the statement/,
      );
      assert.match(shown, /RULE COST\s+\d+[\s\S]*ROW VISITS\s+~[\d.]+[KM]?/i);
      const cards = page.locator('.plan-tree .plan-node');
      assert.ok((await cards.count()) >= 4);
      assert.equal(await page.locator('.plan-node.costliest').count(), 1);
      assert.match(await page.locator('.plan-node.costliest').innerText(), /CORRELATED SCALAR SUBQUERY|SCAN|SEARCH/);
      const widths = await page.locator('.cost-fill').evaluateAll((bars) => bars.map((b) => parseFloat((b as any).style.width)));
      assert.ok(widths.every((w) => w >= 0 && w <= 100) && widths.some((w) => w > 50), widths.join(','));
      await page.locator('.plan-node.kind-subquery').first().hover();
      assert.match(
        await page.locator('#plan-tip').innerText(),
        /CORRELATED (SCALAR|LIST) SUBQUERY: it refers to the outer query, so it runs again for every outer row: [\d.K]+ times/,
      );
      await page.screenshot({ path: path.join(SHOTS, `plan-panel-${theme}.png`), fullPage: true });
      await page.locator('.plan-node.kind-temp-btree').first().hover();
      assert.match(await page.locator('#plan-tip').innerText(), /USE TEMP B-TREE FOR ORDER BY: no index yields the rows in the order/);
      // The subquery's steps collapse under it.
      const visible = await page.locator('.plan-node:visible').count();
      await page.locator('li[aria-expanded="true"] > .plan-row > .plan-toggle').first().click();
      assert.ok((await page.locator('.plan-node:visible').count()) < visible);
      assert.match(shown, /SQL\s+SELECT\s+T1\.superhero_name\s+FROM\s+superhero AS T1\s+WHERE\s+EXISTS \(/);
      assert.doesNotMatch(shown, /\u001b|QUERY PLAN/);
      assert.equal(await overflowsSideways(page), false);
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }

  it("states the rule cost's rule as a rule, and this plan's own breakdown; a statement with no plan shows its error", async () => {
    const page = await openPanelPage(browser, 'plan.js', 'light', { width: 900, height: 900 });
    const steps = (nodes: typeof explain.plan.nodes): typeof explain.plan.nodes => nodes.flatMap((n) => [n, ...steps(n.children)]);
    const scans = steps(explain.plan.nodes).filter((n) => n.ruleCost === 100).length;
    const trees = steps(explain.plan.nodes).filter((n) => n.ruleCost === 50).length;
    assert.ok(scans >= 1 && trees >= 1, `${scans} scans, ${trees} temp B-trees`);
    await post(page, { type: 'plan', explain, following: false });
    await settle(page);
    let shown = await appText(page);
    const breakdown = `this plan: ${scans} SCAN${scans === 1 ? '' : 's'} × 100 \\+ ${trees} temp B-tree${trees === 1 ? '' : 's'} × 50`;
    assert.match(shown, new RegExp(`RULE COST\\s+${explain.plan.rule}\\s+${breakdown}`, 'i'));
    assert.match(shown, /The rule behind the rule cost: every full SCAN \+100, every temp B-tree \+50, a SEARCH 0\./);
    await page.locator('.row').screenshot({ path: path.join(SHOTS, 'plan-rule-cost-light.png') });
    // A plan with one SCAN and no temp B-tree does not list one.
    const scanOnly = {
      ...explain,
      plan: { ...explain.plan, rule: 100, nodes: [{ ...explain.plan.nodes[0], ruleCost: 100, children: [] }] },
    };
    await post(page, { type: 'plan', explain: scanOnly, following: false });
    shown = await appText(page);
    assert.match(shown, /RULE COST\s+100\s+this plan: 1 SCAN × 100\s+ROW VISITS/i);
    // A syntax error: the error, not cards of zeros.
    const broken = {
      ...explain,
      sql: 'SELEC 1',
      formattedSql: 'SELEC 1',
      plan: { error: 'near "SELEC": syntax error', rule: 0, work: 0, nodes: [] },
    };
    await post(page, { type: 'plan', explain: broken, following: false });
    shown = await appText(page);
    assert.match(shown, /SQLite cannot plan this statement: near "SELEC": syntax error/);
    assert.doesNotMatch(shown, /RULE COST|ROW VISITS|~0 visits/i);
    await page.screenshot({ path: path.join(SHOTS, 'plan-syntax-error-light.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  it('shows a query timed alone: milliseconds with an interval, its rows, its plan; no ratio', async () => {
    const page = await openPanelPage(browser, 'plan.js', 'dark');
    await post(page, { type: 'timing', timing });
    await settle(page);
    const shown = await appText(page);
    assert.match(shown, /^Timed alone · gold SQL of question 717/);
    assert.match(shown, /TIME\s+[\d.]+ ms\s+95 % interval of the median: [\d.]+–[\d.]+ ms/i);
    assert.match(shown, /Result\s+result · 1 column · \d+ rows/);
    assert.doesNotMatch(shown, /ratio|R-VES reward/i);
    assert.ok((await page.locator('.plan-node').count()) >= 4);
    await page.screenshot({ path: path.join(SHOTS, 'time-alone-dark.png'), fullPage: true });
    await page.close();
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`filters, searches and sorts the report; a row jumps to its entry; exports what is shown (${theme})`, async () => {
      const page = await openPanelPage(browser, 'report.js', theme, { width: 1300, height: 1100 });
      const file = path.join(SAMPLE, 'predict_gpt-4_superhero.json');
      await post(page, { type: 'report', file, result: report });
      await settle(page);
      const rows = page.locator('table.questions tbody tr');
      assert.equal(await rows.count(), 52);
      assert.match(await appText(page), /52 of 52 questions shown/);
      const header = await page.locator('table.questions thead').innerText();
      // Each quantity under its own name: the terms each metric averages, the reward, and both timed ratios.
      assert.match(
        header,
        /question ▲\s+database\s+difficulty\s+outcome\s+reason\s+EX\s+Soft-F1\s+VES term √ratio\s+R-VES reward\s+R-VES term √reward\s+time ratio \(VES, first row\)\s+R-VES ratio \(all rows\)\s+gold ms\s+pred ms/,
      );
      await page.selectOption('#outcome', 'failures');
      assert.equal(await rows.count(), 12);
      await page.selectOption('#difficulty', 'challenging');
      assert.equal(await rows.count(), 5);
      await page.selectOption('#outcome', 'all');
      await page.selectOption('#difficulty', 'all');
      await page.fill('#search', 'dual');
      assert.equal(await rows.count(), 1);
      assert.match(await rows.first().innerText(), /744\s+superhero\s+challenging\s+prediction error\s+no such table: dual\s+0\s+0\.000/);
      await page.fill('#search', '');
      await page.check('#failures-first');
      assert.match(await rows.first().innerText(), /prediction error/);
      assert.match(await rows.nth(1).innerText(), /mismatch/);
      await page.screenshot({ path: path.join(SHOTS, `report-${theme}.png`), fullPage: true });
      // A row's file icon jumps to its entry; the row opens its Score panel; export sends what is shown.
      await rows.nth(1).locator('button.jump').click();
      await rows.nth(1).click();
      await page.fill('#search', 'mismatch');
      await page.locator('#export-csv').click();
      const posted = await page.evaluate(() => window.posted);
      assert.equal(posted[0].type, 'jump');
      assert.equal(posted[0].file, file);
      assert.ok(posted[0].line > 0);
      assert.equal(posted[1].type, 'open');
      assert.ok(posted[1].sql.length > 10);
      assert.equal(posted[2].type, 'export');
      assert.equal(posted[2].format, 'csv');
      assert.equal(posted[2].rows.length, 11, 'the 11 mismatches shown');
      // The JSON is the run's eval report (what `ves-lens compare` reads), every question whatever the filter.
      await page.locator('#export-json').click();
      const [, , , exported] = await page.evaluate(() => window.posted);
      assert.equal(exported.type, 'exportReport');
      assert.equal(exported.file, file);
      assert.equal(exported.report.tool.name, 'ves-lens');
      assert.equal(exported.report.complete, true);
      assert.equal(exported.report.questions.length, 52);
      assert.match(await page.locator('#export-json').innerText(), /JSON report/);
      assert.equal(await overflowsSideways(page), false);
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }

  it('lists skipped questions last; shows both ratios and the R-VES reward beside its term, sortable by either ratio', async () => {
    const page = await openPanelPage(browser, 'report.js', 'dark', { width: 1300, height: 1100 });
    const rows = structuredClone(report.questions);
    // The first five questions' database is missing; two correct ones timed, their ratios telling opposite stories.
    for (const row of rows.slice(0, 5)) Object.assign(row, { outcome: 'skipped', ex: 0, f1: null, reason: 'database missing: not scored' });
    const correct = rows.filter((row) => row.outcome === 'correct');
    const [fastAllRows, fastFirstRow] = correct;
    Object.assign(fastAllRows, {
      ves: Math.sqrt(0.74),
      time_ratio: 0.74,
      time_ratio_interval: [0.7, 0.79],
      rves_time_ratio: 65.2,
      rves_time_ratio_interval: [60.1, 108],
      rves_reward: 1.25,
      rves: Math.sqrt(1.25),
      reason: "correct; 0.74× gold's speed to the first row (VES), 65.2× over all rows (R-VES)",
    });
    Object.assign(fastFirstRow, {
      ves: Math.sqrt(3),
      time_ratio: 3,
      time_ratio_interval: [2.8, 3.2],
      rves_time_ratio: 0.5,
      rves_time_ratio_interval: [0.45, 0.55],
      rves_reward: 0.75,
      rves: Math.sqrt(0.75),
    });
    // Each row's two ratios with their intervals, read from its fields as the server reads them (server/explanations.ts).
    for (const row of [fastAllRows, fastFirstRow])
      Object.assign(row, { first_row_ratio: firstRowRatio(row), all_rows_ratio: allRowsRatio(row) });
    await post(page, { type: 'report', file: path.join(SAMPLE, 'predict_gpt-4_superhero.json'), result: { ...report, questions: rows } });
    await settle(page);
    const ids = () => page.locator('table.questions tbody tr').evaluateAll((trs) => trs.map((tr: any) => tr.getAttribute('data-question')));
    const skippedIds = rows.slice(0, 5).map((row) => String(row.question_id));
    assert.deepEqual((await ids()).slice(-5), skippedIds, 'skipped questions come after every scored one');
    assert.match(await appText(page), /5 questions skipped \(database missing; listed last\)/);
    const rowText = await page.locator(`tr[data-question="${fastAllRows.question_id}"]`).innerText();
    assert.match(
      rowText,
      /correct; 0\.74× gold's speed to the first row \(VES\), 65\.2× over all rows \(R-VES\)\s+1\s+1\.000\s+0\.860\s+1\.25\s+1\.118\s+0\.74×\s+65\.20×/,
    );
    const sortBy = async (label: string) => {
      await page.locator('table.questions thead button', { hasText: label }).click();
      await page.locator('table.questions thead button', { hasText: label }).click(); // descending
    };
    await sortBy('R-VES ratio (all rows)');
    assert.equal((await ids())[0], String(fastAllRows.question_id));
    await sortBy('time ratio (VES, first row)');
    assert.equal((await ids())[0], String(fastFirstRow.question_id));
    assert.deepEqual((await ids()).slice(-5).sort(), skippedIds, 'still last, whatever the order');
    const title = await page.locator(`tr[data-question="${fastAllRows.question_id}"] td`).nth(12).getAttribute('title');
    assert.equal(title, 'repeat interval 60.10–108.00×');
    await page.screenshot({ path: path.join(SHOTS, 'report-ratios-dark.png') });
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  it('keeps the reason readable in a narrow panel: the table scrolls in its box, the reason column keeps its width', async () => {
    const page = await openPanelPage(browser, 'report.js', 'light', { width: 560, height: 900 });
    await post(page, { type: 'report', file: path.join(SAMPLE, 'predict_gpt-4_superhero.json'), result: report });
    await settle(page);
    const width = await page
      .locator('table.questions td.reason')
      .first()
      .evaluate((td: any) => td.getBoundingClientRect().width);
    assert.ok(width >= 250, `the reason column is ${width}px wide`);
    assert.equal(await overflowsSideways(page), false);
    await page.screenshot({ path: path.join(SHOTS, 'report-narrow-light.png') });
    await page.close();
  });

  it('streams rows while scoring, and a cancelled run says it keeps what it scored', async () => {
    const page = await openPanelPage(browser, 'report.js', 'dark');
    const file = path.join(SAMPLE, 'predict_gpt-4_superhero.json');
    await post(page, { type: 'start', file });
    await post(page, { type: 'rows', rows: report.questions.slice(0, 5), message: '5/52: question 721 correct', percentage: 10 });
    await page.waitForFunction(() => document.querySelectorAll('table.questions tbody tr').length === 5);
    assert.match(await appText(page), /scoring… 5\/52: question 721 correct\s+Cancel/);
    assert.equal(await page.locator('#export-json[disabled]').count(), 1, 'no eval report before the run ends');
    const partial = { ...report, partial: true, questions: report.questions.slice(0, 5) };
    await post(page, { type: 'report', file, result: partial });
    assert.match(await appText(page), /cancelled: 5 of 52 questions were scored before the run stopped; the tables show those only/);
    // Restored after a reload, with its filters.
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('table.questions tbody tr').length === 5);
    await page.close();
  });
});
