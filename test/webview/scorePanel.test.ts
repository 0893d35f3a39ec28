// The Score panel's page (media/score.js) on its own: the real script, Chart.js, VS Code Elements and codicons in
// Chromium, fed the messages the extension posts, with VS Code's light and dark theme colours. Fast (no
// code-server) and covers states the end-to-end test cannot reach on demand: same program, a re-run cancelled
// or failed, a result with escape codes in its text. Screenshots go to test-results/webview/.
// The fixtures are real `vesLens/score` results for mini-dev question 717 (sample/), as the server returned them.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Browser, chromium, Page } from 'playwright-core';
import type { ScoreResult } from '../../src/shared/protocol';
import { CHROMIUM } from '../e2e/codeServer';
import { REPO_ROOT } from '../helpers';
import { appText, ensureBuilt, openPanelPage, overflowsSideways, post as postRaw, settle, THEMES } from './harness';

// Functions passed to page.evaluate run in the page; the project's tsconfig has no DOM types.
declare const window: any, document: any;

const SHOTS = path.join(REPO_ROOT, 'test-results', 'webview');
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'score-panel');
const fixture = (name: string): ScoreResult => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
const CONTEXT = { target: { sql: 'SELECT 1' }, questionId: 717 };

const skip = fs.existsSync(CHROMIUM) ? false : `not installed: ${CHROMIUM} (run scripts/setup-code-server.sh)`;

describe('Score panel page (media/score.js in Chromium)', { skip, timeout: 120_000 }, () => {
  let browser: Browser;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    ensureBuilt();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  });
  after(async () => browser?.close());

  const open = (theme: keyof typeof THEMES = 'dark', viewport?: { width: number; height: number }) => openPanelPage(browser, 'score.js', theme, viewport);
  // Results carry what they scored, as the extension posts them.
  const post = (page: Page, message: { type: string; [key: string]: unknown }) => postRaw(page, message.type === 'result' ? { context: CONTEXT, ...message } : message);
  const text = appText;
  const errorsOf = (page: Page) => (page as Page & { errors: string[] }).errors;

  for (const theme of ['dark', 'light'] as const) {
    it(`shows both ratios with their repeat intervals, the bucket probabilities and the scale curve (${theme})`, async () => {
      const page = await open(theme);
      const result = fixture('timed-717.json');
      // Text from the server must read plainly even if a colour code slipped into it.
      result.timing!.note = `\u001b[2m${result.timing!.note}\u001b[22m`;
      await post(page, { type: 'result', result, partial: false });
      await settle(page);
      const shown = await text(page);
      assert.doesNotMatch(shown, /\u001b/);
      assert.doesNotMatch(shown, /\[2m|\{"|":/, 'no escape-code remnants or raw JSON');
      assert.match(shown, /time ratio \(VES, first row\)\s+0\.26×\s+a repeat run: 0\.24–0\.28× \(95 %\)\s+4 blocks · 24 runs\s+gold faster/i);
      assert.match(shown, /R-VES ratio \(all rows\)\s+0\.96×\s+a repeat run: 0\.89–1\.04× \(95 %\)\s+4 blocks · 16 runs\s+no measurable difference/i);
      assert.match(shown, /R-VES reward\s+0\.75\s+bucket 0\.5 ≤ ratio < 1\s+near a bucket edge: a repeat run lands in\s+1\s+16 %\s+0\.75\s+84 %\s+→ expected reward 0\.79/i);
      assert.match(shown, /Ratio as the data grows\s+prediction and gold grow alike: 0\.98× at ×1, 0\.90× at ×100/);
      assert.equal(await page.locator('canvas').count(), 2, 'the samples chart and the scale chart');
      assert.equal(await page.locator('vscode-button#rerun:not([disabled])').count(), 1);
      // The bucket bars are as wide as their probabilities.
      const widths = await page.locator('.bucket-fill').evaluateAll((bars) => bars.map((b) => (b as any).style.width));
      assert.deepEqual(widths, ['15.7%', '84.3%']);
      // The scale chart has log axes, the ratio 1 line, and ticks at the measured scales.
      const scale = await page.evaluate(() => {
        const chart = window.Chart.getChart(document.querySelectorAll('canvas')[1]);
        return { x: chart.scales.x.type, y: chart.scales.y.type, ticks: chart.scales.x.ticks.map((t: { value: number }) => t.value), one: chart.data.datasets[1].data };
      });
      assert.deepEqual(scale, { x: 'logarithmic', y: 'logarithmic', ticks: [1, 10, 100], one: [{ x: 1 / 1.4, y: 1 }, { x: 140, y: 1 }] });
      await page.screenshot({ path: path.join(SHOTS, `score-timed-${theme}.png`), fullPage: true });
      assert.deepEqual(errorsOf(page), []);
      await page.close();
    });
  }

  it('switches the samples chart between the two timed quantities', async () => {
    const page = await open();
    await post(page, { type: 'result', result: fixture('timed-717.json'), partial: false });
    await settle(page);
    assert.match(await text(page), /first row \(VES\): median gold 0\.095 ms, prediction 0\.357 ms/);
    await page.evaluate(() => {
      const select = document.querySelector('vscode-single-select');
      select.value = 'full';
      select.dispatchEvent(new Event('change'));
    });
    await settle(page);
    assert.match(await text(page), /all rows \(R-VES\): median gold 0\.380 ms, prediction 0\.395 ms/);
    assert.equal(await page.locator('canvas').count(), 2);
    assert.equal(await page.evaluate('charts.length'), 2, 'the chart switched away from is let go');
    assert.deepEqual(errorsOf(page), []);
    await page.close();
  });

  it('redraws the charts in the new colours when the theme changes', async () => {
    const page = await open('dark');
    await post(page, { type: 'result', result: fixture('timed-717.json'), partial: false });
    await settle(page);
    const legendColours = () => page.evaluate(() => [...document.querySelectorAll('canvas')].map((c: unknown) => window.Chart.getChart(c).legend.options.labels.color));
    assert.deepEqual(await legendColours(), [THEMES.dark.foreground, THEMES.dark.foreground]);
    // As VS Code does it: the kind on <body> first, the colours on <html> a moment later.
    await page.evaluate((light) => {
      document.body.className = 'vscode-light';
      setTimeout(() => { for (const [name, value] of Object.entries(light)) document.documentElement.style.setProperty(`--vscode-${name}`, value as string); }, 30);
    }, THEMES.light);
    await page.waitForTimeout(200);
    await settle(page);
    assert.deepEqual(errorsOf(page), []);
    assert.deepEqual(await legendColours(), [THEMES.light.foreground, THEMES.light.foreground]);
    assert.deepEqual(errorsOf(page), []);
    await page.close();
  });

  it('leaves a scale that was not measured off the curve, and says so', async () => {
    const page = await open();
    const result = { ...fixture('timed-717.json'), timeRatioByScale: { 1: 1.02, 10: 0.4, 100: null }, growth: 'not enough scales measured to say how it grows' };
    await post(page, { type: 'result', result, partial: false });
    await settle(page);
    assert.match(await text(page), /Ratio as the data grows\s+not enough scales measured to say how it grows\s+not measured at ×100/);
    const points = await page.evaluate(() => window.Chart.getChart(document.querySelectorAll('canvas')[1]).data.datasets[0].data);
    assert.deepEqual(points, [{ x: 1, y: 1.02 }, { x: 10, y: 0.4 }]);
    await page.close();
  });

  it('says "same program" plainly: no chart, no re-run', async () => {
    const page = await open();
    await post(page, { type: 'result', result: fixture('same-program-717.json'), partial: false });
    await settle(page);
    const shown = await text(page);
    assert.match(shown, /same program\s+1×\s+as gold: identical work,\s+ratio 1 by construction, not timed/i);
    assert.match(shown, /Timing\s+Same program as gold: identical work, ratio 1 by construction, not timed\./);
    assert.match(shown, /R-VES reward\s+1\s+ratio 1 by construction/i);
    assert.doesNotMatch(shown, /a repeat run|Re-run/);
    assert.equal(await page.locator('canvas').count(), 0);
    await page.screenshot({ path: path.join(SHOTS, 'score-same-program-dark.png'), fullPage: true });
    await page.close();
  });

  it('offers no re-run while the first timing runs, nor for a wrong prediction', async () => {
    const page = await open();
    const first = { ...fixture('timed-717.json'), timing: null, rvesTiming: null, rvesReward: null, rvesBucketProbabilities: null, rvesExpectedReward: null, rvesUncertain: null, timeRatioByScale: null, growth: null };
    await post(page, { type: 'result', result: first, partial: true });
    assert.match(await text(page), /time ratio\s+…\s+timing runs in progress[\s\S]*timing prediction and gold…\s+Cancel/i);
    assert.equal(await page.locator('#rerun').count(), 0);
    await post(page, { type: 'result', result: { ...first, outcome: 'mismatch', ex: 0, f1: 0.5, difference: { pred_rows: 2, gold_rows: 1, missing: [['Agility', null]], extra: [['Super Strength', 3]] } }, partial: false });
    const shown = await text(page);
    assert.equal(await page.locator('#rerun').count(), 0);
    assert.match(shown, /gold rows the prediction lacks \(first 5\)\s+Agility\s+NULL/);
    assert.doesNotMatch(shown, /\["|\{"/, 'rows as a table, not JSON');
    await page.close();
  });

  it('keeps the old numbers visible while re-running, shows progress, then the new numbers', async () => {
    const page = await open();
    const old = fixture('timed-717.json');
    await post(page, { type: 'result', result: old, partial: false });
    await settle(page);
    await page.locator('#rerun').click();
    assert.deepEqual(await page.evaluate(() => window.posted), [{ type: 'rerun', context: CONTEXT }]);
    await post(page, { type: 'rerunning' });
    await page.waitForTimeout(1200); // the elapsed-seconds counter ticks
    const during = await text(page);
    assert.match(during, /time ratio \(VES, first row\)\s+0\.26×\s+a repeat run: 0\.24–0\.28×/i, 'the old numbers stay');
    assert.match(during, /Re-run with more iterations\s+Cancel\s+re-running with more iterations… \d+ s\s+the numbers shown are from the previous run until the new ones arrive/);
    assert.equal(await page.locator('#rerun[disabled]').count(), 1);
    assert.equal(await page.locator('vscode-progress-ring').count(), 1);
    assert.equal(await page.locator('canvas').count(), 2, 'the charts stay too');
    await page.screenshot({ path: path.join(SHOTS, 'score-rerunning-dark.png') });
    const thorough = structuredClone(old);
    Object.assign(thorough.timing!, { ratio: 0.27, low: 0.26, high: 0.28, blocks: 10, runs: 80 });
    await post(page, { type: 'result', result: thorough, partial: false });
    await settle(page);
    const after = await text(page);
    assert.match(after, /time ratio \(VES, first row\)\s+0\.27×\s+a repeat run: 0\.26–0\.28× \(95 %\)\s+10 blocks · 80 runs\s+gold faster\s+before: 0\.26× \(0\.24–0\.28×\)/i);
    assert.doesNotMatch(after, /re-running/);
    assert.equal(await page.locator('#rerun:not([disabled])').count(), 1);
    assert.deepEqual(errorsOf(page), []);
    await page.close();
  });

  it('a cancelled or failed re-run leaves the previous numbers and says so', async () => {
    const page = await open();
    await post(page, { type: 'result', result: fixture('timed-717.json'), partial: false });
    await post(page, { type: 'rerunning' });
    await post(page, { type: 'cancelled', rerun: true });
    let shown = await text(page);
    assert.match(shown, /0\.26×[\s\S]*re-run cancelled: the numbers shown are from the previous run/);
    assert.equal(await page.locator('#rerun:not([disabled])').count(), 1);
    await post(page, { type: 'rerunning' });
    await post(page, { type: 'error', message: '\u001b[31mdatabase is locked\u001b[39m', rerun: true });
    shown = await text(page);
    assert.match(shown, /0\.26×[\s\S]*re-run failed: database is locked/);
    assert.doesNotMatch(shown, /\u001b/);
    // A first score cancelled still clears the panel: there are no numbers of this run to keep.
    await post(page, { type: 'running' });
    await post(page, { type: 'cancelled', rerun: false });
    assert.match(await text(page), /^Cancelled/);
    await page.close();
  });

  it('shows both SQLs highlighted, both results with their column names, and the plans aligned as step cards', async () => {
    const page = await open('light');
    await post(page, { type: 'result', result: fixture('timed-717.json'), partial: false });
    await settle(page);
    const shown = await text(page);
    assert.match(shown, /SQL\s+gold\s+SELECT\s+T3\.power_name\s+FROM/);
    assert.match(shown, /prediction\s+SELECT\s+sp\.power_name\s+FROM\s+superpower sp/);
    assert.ok(await page.locator('pre.sql .hljs-keyword').count() > 4, 'keywords highlighted');
    assert.match(shown, /Results\s+gold · 1 column · 4 rows\s+power_name\s+Agility/);
    assert.equal(await page.locator('table.preview th', { hasText: 'power_name' }).count(), 2);
    // Plans: one card per step on each side, aligned, the costliest marked, what differs said.
    assert.match(shown, /Plans\s+the plans differ: rule cost 100 \(gold\) vs 100 \(prediction\)/);
    const cards = await page.locator('.plan-compare .plan-node').count();
    assert.ok(cards >= 6, `${cards} step cards`);
    assert.equal(await page.locator('.plan-compare .compare-cell.gold .plan-node.costliest').count(), 1);
    assert.equal(await page.locator('.plan-compare .compare-cell.pred .plan-node.costliest').count(), 1);
    assert.ok(await page.locator('.compare-row.mark-gold-only, .compare-row.mark-pred-only, .compare-row.mark-changed').count() > 0);
    // Hovering a step explains its operator and its cost.
    await page.locator('.plan-compare .plan-node.kind-scan').first().hover();
    const tip = await page.locator('#plan-tip').innerText();
    assert.match(tip, /SCAN reads every row of (hero_power|superhero) \([\d.K]+ rows\), start to end\.[\s\S]*Rule cost \+100/);
    await page.screenshot({ path: path.join(SHOTS, 'score-sql-results-plans-light.png'), fullPage: true });
    // Collapsing a step hides the steps under it.
    const before = await page.locator('.compare-row:not(.hidden-by-parent) .plan-node').count();
    await page.locator('.compare-mark .plan-toggle').first().click();
    assert.ok((await page.locator('.compare-row:not(.hidden-by-parent) .plan-node').count()) < before);
    assert.equal(await overflowsSideways(page), false);
    assert.doesNotMatch(shown, /\u001b|QUERY PLAN\s+rule/);
    assert.deepEqual(errorsOf(page), []);
    await page.close();
  });

  it('fits a narrow panel: tables and plans scroll inside their own boxes', async () => {
    const page = await open('dark', { width: 560, height: 900 });
    await post(page, { type: 'result', result: fixture('timed-717.json'), partial: false });
    await settle(page);
    assert.equal(await overflowsSideways(page), false);
    await page.screenshot({ path: path.join(SHOTS, 'score-narrow-dark.png'), fullPage: true });
    await page.close();
  });

  it('names the columns when their number differs, and explains Soft-F1 below 1 for a correct result', async () => {
    const page = await open();
    const result = { ...fixture('timed-717.json'), timing: null, rvesTiming: null, explanations: ['2 columns vs 1: the prediction returns "power_name", "id", gold returns "power_name". EX compares whole rows, so no row can match.'] };
    await post(page, { type: 'result', result, partial: false });
    assert.match(await text(page), /2 columns vs 1: the prediction returns "power_name", "id", gold returns "power_name"/);
    await page.close();
  });

  it('says which query has no plan instead of "the same steps"', async () => {
    const page = await open();
    const result = fixture('timed-717.json');
    const broken = { ...result, outcome: 'prediction_error', ex: 0, error: 'no such column: nope', timing: null, rvesTiming: null, predPlan: { error: 'no such column: nope', rule: 0, work: 0, nodes: [] },
      planComparison: { rows: result.planComparison.rows.filter((r) => r.gold).map((r) => ({ gold: r.gold, depth: r.depth, mark: 'gold-only' })), differences: [], summary: 'the prediction has no plan: no such column: nope' } };
    await post(page, { type: 'result', result: broken, partial: false });
    const shown = await text(page);
    assert.match(shown, /the prediction has no plan: no such column: nope/);
    assert.doesNotMatch(shown, /same steps/);
    assert.ok(await page.locator('.compare-gap', { hasText: 'no step here in the prediction' }).count() > 0);
    await page.close();
  });

  it('restores the last result after a reload (the webview state)', async () => {
    const page = await open();
    await post(page, { type: 'result', result: fixture('timed-717.json'), partial: false });
    await settle(page);
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#app h1')?.textContent?.startsWith('Question 717'));
    assert.match(await text(page), /Question 717[\s\S]*time ratio \(VES, first row\)\s+0\.26×/i);
    await page.close();
  });

  it('keeps the correctness result when its timing is cancelled, and says so', async () => {
    const page = await open();
    const first = { ...fixture('timed-717.json'), timing: null, rvesTiming: null, rvesReward: null, rvesBucketProbabilities: null, rvesExpectedReward: null, rvesUncertain: null, timeRatioByScale: null, growth: null };
    await post(page, { type: 'result', result: first, partial: true });
    assert.match(await text(page), /timing runs in progress/);
    await post(page, { type: 'cancelled', rerun: false });
    const shown = await text(page);
    assert.match(shown, /outcome\s+correct[\s\S]*timing cancelled: EX and Soft-F1 above are final; no speed was measured/i);
    assert.doesNotMatch(shown, /timing runs in progress|Cancel\b/);
    await page.close();
  });
});
