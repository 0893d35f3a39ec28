// The Optimize panel's page (src/webview/optimize) on its own in Chromium, fed real results of the language
// server's service (in-process, on the shared toxicology database): the VL021 rewrite of a correlated COUNT, with
// its word diff, proof status, speed-up and Apply; the same for a read-only gold (Copy only); a statement with no
// faster form; index advice kept apart. Light and dark; screenshots go to test-results/webview/.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Browser } from 'playwright-core';
import { VesLensService } from '../../src/server/service';
import type { IndexAdviceResult, OptimizeResult } from '../../src/shared/protocol';
import { BIRD_DATA, birdDataMissing, REPO_ROOT, tempDir } from '../helpers';
import { appText, chromiumMissing, launchChromium, openPanelPage, overflowsSideways, post, settle } from './harness';

declare const window: any;

const SHOTS = path.join(REPO_ROOT, 'test-results', 'webview');
const SLOW = "SELECT m.label FROM molecule m WHERE m.label = '-' AND (SELECT COUNT(*) FROM atom a WHERE a.molecule_id = m.molecule_id) > 5";
const PLAIN = "SELECT COUNT(*) FROM atom WHERE element = 'cl'";
const bounds = { scale: 1, budgetSeconds: 60, timeoutSeconds: 20, counterexampleSeconds: 3 };

describe('Optimize panel page in Chromium', { skip: chromiumMissing || birdDataMissing(), timeout: 240_000 }, () => {
  let browser: Browser;
  let optimized: OptimizeResult;
  let plain: OptimizeResult;
  let advice: IndexAdviceResult;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const text = `-- db: toxicology\n${SLOW};\n`;
    const documents = new Map([
      ['file:///ws/slow.sql', { uri: 'file:///ws/slow.sql', languageId: 'sql', version: 3, getText: () => text }],
    ]);
    const service = new VesLensService({
      documents: { get: (uri: string) => documents.get(uri) as never, all: () => [] },
      log: () => {},
      docsRoot: '',
    });
    await service.initialize({
      trusted: true,
      storageDir: tempDir('ves-lens-storage-'),
      dataset: {
        questionsFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
        goldFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
        dbRoot: path.join(BIRD_DATA, 'databases'),
      },
      settings: { optimizeBudgetSeconds: 60, optimizeCounterexampleSeconds: 3, optimizeTimeoutSeconds: 20 } as never,
    });
    optimized = await service.optimize({ sql: SLOW, dbId: 'toxicology' });
    plain = await service.optimize({ sql: PLAIN, dbId: 'toxicology' });
    advice = await service.indexAdvice({ sql: PLAIN, dbId: 'toxicology', measure: true });
    await service.dispose();
    assert.equal(optimized.optimization.status, 'optimized', JSON.stringify(optimized.optimization.notes));
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  for (const theme of ['light', 'dark'] as const) {
    it(`shows the verified rewrite: word diff, proof by rule, speed-up with its interval, Apply (${theme})`, async () => {
      const page = await openPanelPage(browser, 'optimize.js', theme, { width: 1000, height: 1200 });
      const result = { ...optimized, edit: { uri: 'file:///ws/slow.sql', version: 3, start: 18, end: 18 + SLOW.length, text: 'x' } };
      // While it runs: the steps as they come, and Cancel.
      await post(page, { type: 'running', label: 'slow.sql, line 2', bounds });
      await post(page, { type: 'step', message: 'original: 603 ms at ×1' });
      await post(page, { type: 'step', message: 'VL021: same rows, 21 ms at ×1' });
      await settle(page);
      let shown = await appText(page);
      assert.match(shown, /^Faster equivalent · slow\.sql, line 2/);
      assert.match(shown, /searching for a faster equivalent…[\s\S]*original: 603 ms at ×1\s+VL021: same rows, 21 ms at ×1/);
      await page.locator('#cancel').click();
      assert.deepEqual(await page.evaluate(() => window.posted), [{ type: 'cancel' }]);

      await post(page, { type: 'result', label: 'slow.sql, line 2', result, action: 'apply' });
      await settle(page);
      shown = await appText(page);
      const best = optimized.optimization.best!;
      assert.match(shown, /database toxicology · SQLite 3\.\d+\.\d+ · decided at ×1 · search budget 60 s/);
      assert.match(shown, /SPEED-UP AT ×1\s+[\d.,]+×\s+repeat interval [\d.,]+×–[\d.,]+×\s+[\d.]+ m?s → [\d.]+ m?s · \d+ runs/i);
      assert.match(shown, /PROOF\s+by rule\s+the rules' proof conditions hold here; equal on the data and on varied copies/i);
      assert.doesNotMatch(shown, /PROOF\s+proven/i, 'equal on the data is never "proven"');
      assert.match(shown, new RegExp(`PATTERNS\\s+${best.patterns.join(' \\+ ')}`, 'i'));
      assert.match(shown, /by the proof conditions of VL021/);
      // The diff: the correlated subquery taken out, the pre-aggregated join put in.
      const removed = (await page.locator('pre.sql-diff .diff-removed').allInnerTexts()).join('\n');
      const added = (await page.locator('pre.sql-diff .diff-added').allInnerTexts()).join('\n');
      await page.screenshot({ path: path.join(SHOTS, `optimize-panel-${theme}.png`), fullPage: true });
      assert.match(removed, /^−\s+WHERE\s*$/m, removed);
      assert.match(added, /LEFT JOIN/);
      assert.match(added, /GROUP BY/);
      assert.match(added, /COALESCE\(vl_agg1\.vl_value, 0\) > 5/);
      // Lines both have are shown once, unmarked.
      assert.match(await page.locator('pre.sql-diff .diff-same').first().innerText(), /SELECT/);
      assert.match(shown, /The rewrite against the original \d+ lines? out, \d+ lines? in/);
      assert.doesNotMatch(shown, /undefined|NaN|\u001b|\[object/);
      await page.evaluate(() => (window.posted = []));
      await page.locator('#apply').click();
      await page.locator('#copy').click();
      assert.deepEqual(await page.evaluate(() => window.posted), [{ type: 'apply' }, { type: 'copy' }]);
      await post(page, { type: 'applied', message: 'applied (VL021): undo with Ctrl+Z' });
      assert.match(await appText(page), /applied \(VL021\): undo with Ctrl\+Z/);
      assert.equal(await page.locator('#apply').getAttribute('disabled'), '');
      assert.equal(await overflowsSideways(page), false);
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }

  it('offers Copy only for a read-only gold, and keeps index advice apart, measured', async () => {
    const page = await openPanelPage(browser, 'optimize.js', 'dark', { width: 900, height: 1300 });
    await post(page, { type: 'result', label: 'question 1', result: optimized, action: 'copy' });
    await settle(page);
    assert.equal(await page.locator('#apply').count(), 0);
    assert.match(await appText(page), /Copy\s+this gold is read-only \(a question file's view\): copy the rewrite to use it/);
    await page.locator('#measure').click();
    assert.deepEqual(await page.evaluate(() => window.posted), [{ type: 'indexAdvice', measure: true }]);
    await post(page, { type: 'index-running', measure: true });
    assert.match(await appText(page), /timing the query with each index on a temporary copy…/);
    await post(page, { type: 'index-advice', advice });
    await settle(page);
    const shown = await appText(page);
    assert.match(shown, /Indexes\s+Kept apart from the rewrites: an index changes the database, which a BIRD gold cannot do/);
    const onElement = advice.verdicts.find((v) => v.columns.includes('element'))!;
    assert.ok(shown.includes(`${onElement.createSql};`), shown);
    assert.match(
      shown,
      /used, measured faster: recommended|used, no measurable change: not recommended|used, but measured slower|used, not measured/,
    );
    assert.doesNotMatch(shown, /undefined|NaN/);
    await page.locator('#indexes').screenshot({ path: path.join(SHOTS, 'optimize-indexes-dark.png') });
    // A reload draws the result and its advice again.
    await page.reload();
    await page.waitForFunction(() => window.ready === true);
    await settle(page);
    assert.ok((await appText(page)).includes(`${onElement.createSql};`));
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  it('says when no faster equivalent was found, with what was tried', async () => {
    const page = await openPanelPage(browser, 'optimize.js', 'light', { width: 800, height: 900 });
    await post(page, { type: 'result', label: 'query', result: plain, action: 'none' });
    await settle(page);
    const shown = await appText(page);
    assert.equal(plain.optimization.best, null);
    assert.match(shown, /No faster equivalent found: \d+ forms? tried, none both the same rows and measured faster at ×1\./);
    assert.equal(await page.locator('#apply').count(), 0);
    assert.equal(await page.locator('#copy').count(), 0);
    assert.doesNotMatch(shown, /undefined|NaN/);
    await page.screenshot({ path: path.join(SHOTS, 'optimize-none-light.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
