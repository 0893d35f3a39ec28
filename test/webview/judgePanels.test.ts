// The Judge in the panels' pages (src/webview/score, src/webview/report) on their own in Chromium: the verdict section
// beside a score of the same prediction, alone, running and failed; the Refuter's flags; restored after a
// reload; and the report's judge column. Screenshots (light and dark) go to test-results/webview/.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Browser } from 'playwright-core';
import { VesLensService } from '../../src/server/service';
import type { JudgeResult, ScoreResult } from '../../src/shared/protocol';
import type { JudgeFlag } from '../../src/shared/webviewMessages';
import { REPO_ROOT } from '../helpers';
import { appText, chromiumMissing, launchChromium, openPanelPage, overflowsSideways, post, settle } from './harness';

declare const window: any;

const SHOTS = path.join(REPO_ROOT, 'test-results', 'webview');
const SAMPLE = path.join(REPO_ROOT, 'sample');
const score: ScoreResult = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'score-panel', 'timed-717.json'), 'utf8'));
const CONTEXT = { target: { uri: 'file:///ws/predicted.sql', offset: 13 }, questionId: 717, questionIndex: 0 };

/** A verdict on the fixture's prediction: the Prover passes, the Refuter upholds and flags the gold and the question. */
function judgement(fields: Partial<JudgeResult['judge']> = {}, of: Pick<JudgeResult, 'question' | 'predSql'> = score): JudgeResult {
  return {
    question: of.question,
    predSql: of.predSql,
    goldSql: score.goldSql,
    predicted_sql: 'SELECT ...',
    model: 'openai-compatible:judge-model',
    elapsedMs: 1800,
    judge: {
      score: 1,
      method: 'rose',
      branch: 'results_differ',
      prover: {
        verdict: true,
        reason: 'It lists the powers of the hero named 3-D Man, as asked.',
        expected_answer: "the names of 3-D Man's superpowers",
        sql_description: 'joins the hero to his powers and selects their names',
      },
      refuter: {
        overturn: false,
        judgement: "The gold joins on the wrong key, so its rows are not the question's answer; the prediction is right.",
        ambiguity: 'ambiguous question',
        gold_correct: false,
      },
      error: null,
      pred_rows: 4,
      gold_rows: 4,
      calls: 2,
      cached_calls: 1,
      usage: { prompt_tokens: 2310, completion_tokens: 184 },
      notes: [],
      ...fields,
    },
  };
}

const skip = chromiumMissing;

describe('the Judge in the Score and report pages (Chromium)', { skip, timeout: 180_000 }, () => {
  let browser: Browser;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  for (const theme of ['light', 'dark'] as const) {
    it(`asks for a judgement from the score, shows it running, then the verdict with the Refuter's flags (${theme})`, async () => {
      const page = await openPanelPage(browser, 'score.js', theme);
      await post(page, { type: 'result', result: score, partial: false, context: CONTEXT });
      await settle(page);
      assert.match(
        await appText(page),
        /Judge \(does the prediction answer the question\?[\s\S]*Judge\s+with the model set in vesLens\.judge/,
      );
      await page.locator('vscode-button#judge').click();
      assert.deepEqual(await page.evaluate(() => window.posted.at(-1)), { type: 'judge', context: CONTEXT });

      await post(page, { type: 'judging', context: CONTEXT, model: 'judge-model' });
      await settle(page);
      assert.match(await appText(page), /asking judge-model…/);
      assert.match(await appText(page), /time ratio \(VES, first row\)/i, 'the score stays on screen while judging');
      await page.locator('#judge vscode-button', { hasText: 'Cancel' }).click();
      assert.deepEqual(await page.evaluate(() => window.posted.at(-1)), { type: 'cancel-judge' });

      const canvases = await page.locator('canvas').count();
      await post(page, { type: 'judgement', judgement: judgement(), context: CONTEXT });
      await settle(page);
      const shown = await page.locator('#judge').innerText();
      assert.match(shown, /JUDGE\s+1\s+answers/i);
      assert.match(shown, /METHOD\s+rose\s+results differ: the Prover, then the Refuter if it passed/i);
      assert.match(shown, /MODEL\s+judge-model\s+2 requests \(1 from the cache\) · 2,310 prompt \+ 184 completion tokens/i);
      assert.match(
        shown,
        /the Refuter says the gold SQL looks wrong\s+the Refuter finds an ambiguous question\s+for annotators: these flags never change the score/,
      );
      assert.match(
        shown,
        /Prover passes \(judged without the gold\)\s+reason\s+It lists the powers[\s\S]*expected answer\s+the names of 3-D Man's superpowers/,
      );
      assert.match(
        shown,
        /Refuter upholds \(with the gold as a noisy reference\)\s+judgement\s+The gold joins on the wrong key[\s\S]*ambiguity\s+ambiguous question\s+gold correct\s+no/,
      );
      assert.equal(await page.locator('canvas').count(), canvases, "the score's charts stay (only the Judge section is redrawn)");
      assert.equal(await overflowsSideways(page), false);
      await page.locator('#judge').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `judge-verdict-${theme}.png`), fullPage: true });

      // After a reload the panel draws the score and its judgement again.
      await page.reload();
      await page.waitForFunction(() => window.ready === true);
      await settle(page);
      assert.match(await appText(page), /time ratio \(VES, first row\)[\s\S]*Refuter upholds/i);
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }

  it('a judgement of another prediction shows alone, with both SQLs; a judge_error says there is no verdict (light and dark)', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const page = await openPanelPage(browser, 'score.js', theme, { width: 1000, height: 800 });
      await post(page, { type: 'result', result: score, partial: false, context: CONTEXT });
      const other = { target: { sql: 'SELECT 1' }, questionId: 717 };
      await post(page, { type: 'judging', context: other, model: 'judge-model' });
      await settle(page);
      assert.match(await appText(page), /^Judging…\s+Judge[\s\S]*asking judge-model…/);
      const failed = judgement(
        {
          score: null,
          prover: null,
          refuter: null,
          calls: 2,
          cached_calls: 0,
          error: 'judge_error: no JSON object in the reply; after one retry: no JSON object in the reply',
        },
        { question: score.question, predSql: 'SELECT\n  1' },
      );
      await post(page, { type: 'judgement', judgement: failed, context: other });
      await settle(page);
      const text = await appText(page);
      assert.match(text, /^Question 717 superhero · simple/);
      assert.match(text, /JUDGE\s+–\s+no verdict/i);
      assert.match(text, /no verdict: judge_error: no JSON object in the reply; after one retry/);
      assert.match(text, /SQL\s+gold\s+SELECT[\s\S]*prediction\s+SELECT\s+1/);
      assert.doesNotMatch(text, /time ratio/i, "the other prediction's score is gone");
      await page.screenshot({ path: path.join(SHOTS, `judge-error-alone-${theme}.png`), fullPage: true });
      await post(page, {
        type: 'judge-failed',
        message: 'the endpoint refused the key: run "VES Lens: Set Judge API Key"',
        cancelled: false,
      });
      await settle(page);
      assert.match(await appText(page), /could not judge: the endpoint refused the key/);
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });

  it('the report gets a judge column only when a question was judged: the verdict for the same prediction, the flags always', async () => {
    const service = new VesLensService({ documents: { get: () => undefined, all: () => [] }, log: () => {}, docsRoot: '' });
    await service.initialize({
      dataset: {
        questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
        goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
        dbRoot: SAMPLE,
      },
      trusted: true,
    });
    const report = await service.evaluateFile({
      predictionsFile: path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      metrics: ['ex', 'f1'],
    });
    await service.dispose();
    const [first, second] = report.questions;
    const flag = (row: typeof first, fields: Partial<JudgeFlag>): JudgeFlag => ({
      score: 1,
      error: null,
      goldFlagged: false,
      ambiguity: null,
      judgement: 'the gold is wrong',
      predictedSql: row.predicted_sql,
      model: 'openai-compatible:judge-model',
      ...fields,
    });
    for (const theme of ['light', 'dark'] as const) {
      const page = await openPanelPage(browser, 'report.js', theme, { width: 1400, height: 900 });
      await post(page, { type: 'report', file: 'predict.json', result: report });
      await settle(page);
      assert.doesNotMatch(await page.locator('table.questions thead').innerText(), /judge/, 'no judge column without judgements');
      await post(page, {
        type: 'judgements',
        byQuestion: {
          [String(first.question_id)]: flag(first, { goldFlagged: true, ambiguity: 'ambiguous schema' }),
          [String(second.question_id)]: flag(second, { score: 0, predictedSql: 'SELECT another prediction' }),
        },
      });
      await settle(page);
      assert.match(await page.locator('table.questions thead').innerText(), /pred ms\s+judge/);
      const cell = (row: typeof first) => page.locator(`tr[data-question="${row.question_id}"] td.judge-cell`).innerText();
      assert.match(await cell(first), /^1 · +gold flagged, ambiguous schema$/);
      assert.equal((await cell(second)).trim(), '', 'judged for another prediction: no verdict, and no flag was raised');
      assert.equal((await page.locator('td.judge-cell').allInnerTexts()).filter((t) => t.trim()).length, 1);
      await page.screenshot({ path: path.join(SHOTS, `report-judge-column-${theme}.png`) });
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });
});
