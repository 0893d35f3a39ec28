// The Score panel's "Can EX be trusted here?" section (src/webview/score/counterexampleSection.ts) in Chromium,
// light and dark: the button on an EX-correct score, the search running with its steps and Cancel, the witness
// with gold and prediction side by side (the rows the other lacks marked), its tables, its file with Reveal and
// Copy path, "none found" with how much was searched, a proof of equivalence, a reload, a narrow panel; and the
// EX-fragile note where a mismatch is explained. The fixtures are real `vesLens/score` and `vesLens/counterexample`
// answers for mini-dev questions 1392, 1352 and 743 with GPT-4's official predictions (test/server/counterexampleAction.test.ts
// checks such answers against Python's sqlite3).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Browser, Page } from 'playwright-core';
import type { CounterexampleResult, ScoreResult } from '../../src/shared/protocol';
import { REPO_ROOT } from '../helpers';
import { appText, chromiumMissing, launchChromium, openPanelPage, overflowsSideways, post, settle } from './harness';

declare const window: any, getComputedStyle: (element: unknown) => { backgroundColor: string };

const SHOTS = path.join(REPO_ROOT, 'test-results', 'webview');
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'score-panel');
const fixture = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
const CONTEXT = { target: { uri: 'file:///ws/predict.json', offset: 120 }, questionId: 1392 };

describe('Score panel: a database where they differ (src/webview/score in Chromium)', { skip: chromiumMissing, timeout: 120_000 }, () => {
  let browser: Browser;
  const correct = fixture<ScoreResult>('correct-1392.json');
  const found = fixture<CounterexampleResult>('counterexample-1392.json');

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const scored = async (page: Page, result: ScoreResult = correct, context: object = CONTEXT) => {
    await post(page, { type: 'result', result, partial: false, context });
    await settle(page);
  };
  const section = (page: Page) => page.locator('#counterexample').innerText();

  for (const theme of ['dark', 'light'] as const) {
    it(`draws the witness's gold and prediction results side by side, the differing rows marked (${theme})`, async () => {
      const page = await openPanelPage(browser, 'score.js', theme);
      await scored(page);
      assert.match(await section(page), /Can EX be trusted here\?[\s\S]*Look for a database where they differ[\s\S]*up to 10 s/);

      await page.locator('#counterexample vscode-button.counterexample-search').click();
      assert.deepEqual(await page.evaluate(() => window.posted.at(-1)), { type: 'counterexample', context: CONTEXT, budgetSeconds: 10 });
      await post(page, { type: 'counterexample-running', context: CONTEXT, budgetSeconds: 10 });
      await post(page, {
        type: 'counterexample-progress',
        message: 'trying variations of the tables read: 2 s of 10 s (a witness found is then shrunk)',
      });
      await settle(page);
      assert.match(await section(page), /trying variations of the tables read: 2 s of 10 s/);
      await page.locator('#counterexample vscode-button', { hasText: 'Cancel' }).click();
      assert.deepEqual(await page.evaluate(() => window.posted.at(-1)), { type: 'cancel-counterexample' });

      await post(page, { type: 'counterexample', result: found, context: CONTEXT });
      await settle(page);
      const text = await section(page);
      assert.match(text, new RegExp(`They differ on this database: ${found.witness!.how.replace(/[()]/g, '\\$&')}`));
      // Both results, side by side: gold's row and the prediction's, each marked as missing from the other.
      const sides = page.locator('#counterexample .side-by-side .witness-side');
      assert.equal(await sides.count(), 2);
      const [goldBox, predictionBox] = [await sides.nth(0).boundingBox(), await sides.nth(1).boundingBox()];
      assert.ok(goldBox && predictionBox && predictionBox.x > goldBox.x + goldBox.width - 1, 'gold left, prediction right');
      const rowsOf = (i: number) =>
        sides
          .nth(i)
          .locator('tbody tr')
          .evaluateAll((rows) =>
            rows.map((r: any) => ({ cells: [...r.cells].slice(1).map((c: any) => c.innerText), differs: r.classList.contains('differs') })),
          );
      assert.deepEqual(await rowsOf(0), [{ cells: found.witness!.gold.rows[0].map(String), differs: true }]);
      assert.deepEqual(await rowsOf(1), [{ cells: found.witness!.prediction.rows[0].map(String), differs: true }]);
      assert.match(await sides.nth(0).innerText(), /gold · 1 column · 1 row[\s\S]*1 row not in the prediction's result/);
      assert.match(await sides.nth(1).innerText(), /prediction · 1 column · 1 row[\s\S]*1 row not in the gold's result/);
      // The marked rows stand out in the theme: a tint, and a sign in the theme's failure colour.
      const tint = await page
        .locator('#counterexample tr.differs')
        .first()
        .evaluate((r: any) => getComputedStyle(r).backgroundColor);
      assert.notEqual(tint, 'rgba(0, 0, 0, 0)');
      // The witness's own rows, and its file with the actions on it.
      assert.match(text, new RegExp(`Its rows\\s+income · 6 columns · ${found.witness!.tables[0].rowCount} rows`));
      assert.match(text, new RegExp(`SQLite file:\\s*${found.witness!.database.replace(/[.]/g, '\\.')}`));
      assert.match(text, /Agrees with the gold on the real database; not proved equivalent \(no proof: /);
      await page.locator('#counterexample vscode-button', { hasText: 'Reveal' }).click();
      assert.deepEqual(await page.evaluate(() => window.posted.at(-1)), {
        type: 'witness',
        action: 'reveal',
        database: found.witness!.database,
      });
      await page.locator('#counterexample vscode-button', { hasText: 'Copy path' }).click();
      assert.deepEqual(await page.evaluate(() => window.posted.at(-1)), {
        type: 'witness',
        action: 'copy',
        database: found.witness!.database,
      });
      assert.equal(await overflowsSideways(page), false);
      await page.mouse.move(0, 0); // no button left hovered in the picture
      await page.locator('#counterexample').screenshot({ path: path.join(SHOTS, `score-counterexample-${theme}.png`) });

      // A reload draws the score and what was found for it again.
      await page.reload();
      await page.waitForFunction(() => window.ready === true);
      await settle(page);
      assert.match(await appText(page), /Question 1392[\s\S]*They differ on this database/);
      assert.deepEqual((page as Page & { errors: string[] }).errors, []);
      await page.close();
    });
  }

  it('says "none found" with the time and the variations tried, "provably equivalent" with the reason, and a failed search', async () => {
    const page = await openPanelPage(browser, 'score.js', 'dark');
    const none = fixture<CounterexampleResult>('counterexample-none-1352.json');
    const context1352 = { target: { sql: 'SELECT COUNT(*) ...' }, questionId: 1352 };
    await scored(page, { ...correct, question: none.question }, context1352);
    await post(page, { type: 'counterexample', result: none, context: context1352 });
    await settle(page);
    assert.match(
      await section(page),
      new RegExp(
        `None found in ${none.search!.seconds.toFixed(2)} s, ${none.search!.variations_tried} variations of the tables read tried \\(all 60 variations of member, major tried\\)\\.\\s+They agree on every variation tried; that is no proof`,
      ),
    );
    assert.equal(await page.locator('#counterexample .side-by-side').count(), 0);

    // A witness on which the gold returns no rows: its box says so, beside the prediction's marked row.
    const emptyGold = { columns: ['source'], rows: [], differs: [], rowCount: 0, differingCount: 0 };
    await post(page, {
      type: 'counterexample',
      result: { ...found, witness: { ...found.witness!, gold: emptyGold } },
      context: context1352,
    });
    await settle(page);
    const goldSide = page.locator('#counterexample .witness-side').first();
    assert.match(await goldSide.innerText(), /gold · 1 column · 0 rows\s+source\s+no rows$/);
    assert.equal(await goldSide.locator('tr.differs').count(), 0);
    assert.equal(await page.locator('#counterexample .witness-side').nth(1).locator('tr.differs').count(), 1);

    const equivalent: CounterexampleResult = {
      ...none,
      status: 'equivalent',
      search: null,
      equivalence: { verdict: 'equivalent', reason: 'the same query up to alias names' },
    };
    await post(page, { type: 'counterexample', result: equivalent, context: context1352 });
    await settle(page);
    assert.match(
      await section(page),
      /Provably equivalent: the same query up to alias names\. No database with this schema can tell them apart/,
    );

    await post(page, { type: 'counterexample-running', context: context1352, budgetSeconds: 10 });
    await post(page, { type: 'counterexample-failed', message: 'database not found: x.sqlite', cancelled: false });
    await settle(page);
    assert.match(await section(page), /the search failed: database not found: x\.sqlite/);
    await page.close();
  });

  it("shows nothing of another prediction's witness, and no section for a mismatch, whose explanation says it is EX-fragile", async () => {
    const page = await openPanelPage(browser, 'score.js', 'light');
    await scored(page);
    await post(page, { type: 'counterexample', result: found, context: CONTEXT });
    // Another prediction of the same question: the witness was not found for it.
    await scored(page, correct, { target: { sql: 'SELECT source FROM income' }, questionId: 1392 });
    assert.doesNotMatch(await section(page), /They differ/);
    assert.match(await section(page), /Look for a database where they differ/);

    // While the score is still being timed the search waits: it would disturb the timing.
    await post(page, {
      type: 'result',
      result: correct,
      partial: true,
      context: { target: { sql: 'SELECT source FROM income' }, questionId: 1392 },
    });
    await settle(page);
    assert.equal(await page.locator('#counterexample vscode-button.counterexample-search[disabled]').count(), 1);
    assert.match(await section(page), /once the timing has finished/);

    const fragile = fixture<ScoreResult>('fragile-743.json');
    await scored(page, fragile, { target: { sql: 'SELECT ...' }, questionId: 743 });
    assert.equal(await page.locator('#counterexample').count(), 0, 'a mismatch has nothing to search');
    const explanations = await page.locator('.explanations').innerText();
    assert.match(
      explanations,
      /EX-fragile \(float digits\): the results differ only in float digits: at most 3\.55e-15 \(1\.26e-16 relative\)/,
    );
    await page.locator('.explanations').screenshot({ path: path.join(SHOTS, 'score-ex-fragile-light.png') });
    await page.close();
  });

  it('fits a narrow panel: the two results stack, the tables scroll in their own boxes', async () => {
    const page = await openPanelPage(browser, 'score.js', 'dark', { width: 420, height: 900 });
    await scored(page);
    await post(page, { type: 'counterexample', result: found, context: CONTEXT });
    await settle(page);
    const sides = page.locator('#counterexample .side-by-side .witness-side');
    const [goldBox, predictionBox] = [await sides.nth(0).boundingBox(), await sides.nth(1).boundingBox()];
    assert.ok(goldBox && predictionBox && predictionBox.y >= goldBox.y + goldBox.height - 1, 'prediction under gold');
    assert.equal(await overflowsSideways(page), false);
    await page.locator('#counterexample').screenshot({ path: path.join(SHOTS, 'score-counterexample-narrow-dark.png') });
    await page.close();
  });
});
