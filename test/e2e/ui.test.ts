// The whole extension in the real VS Code (code-server + Chromium), as a person uses it, with FORCE_COLOR=1 and
// CI=true in the environment (terminal colour forced on): attach (a wrong file first), score, explain, hints,
// evaluate, the explorer, the log; then every panel again in the dark theme, then a reload that restores them.
// Each step saves a screenshot to test-results/e2e/ and asserts what a person would check.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, beforeEach, describe, it as itStep } from 'node:test';
import { BrowserContext, Page } from 'playwright-core';
import { FakeChatServer, refuterReply, roleOf, startChatServer } from '../fakeChatServer';
import { startEmbeddingsServer } from '../fakeEmbeddingsServer';
import { REPO_ROOT } from '../helpers';
import { editorMissing, RunningCodeServer, sampleWorkspace, startCodeServer } from './codeServer';
import {
  assertPanelsClean,
  clearNotifications,
  expandRow,
  flaggedInExplorer,
  launchChromium,
  lenses,
  openFile,
  pickTheme,
  runCommand,
  runExactCommand,
  setNumberSetting,
  toast,
  waitForFrameWith,
  waitForWebview,
  waitInFrame,
  webviewFrameWith,
} from './workbench';

// VES_LENS_E2E_SHOTS: another folder for this run's screenshots (two runs at once would clear each other's).
const SHOTS = process.env.VES_LENS_E2E_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'e2e');
const VSIX = path.join(REPO_ROOT, 'ves-lens.vsix');

// Mini-dev question 717 (superhero: "list all the superpowers of 3-D Man"), answered correctly with a
// correlated IN; a LIKE without wildcard for the quick fix; two answers that EX and Soft-F1 judge apart, and a
// statement bound to no question; a database that is not there; a question file cut short.
const SCORE_SQL =
  "-- bird: 717\nSELECT sp.power_name FROM superpower sp WHERE sp.id IN (SELECT hp.power_id FROM hero_power hp JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name = '3-D Man');\n";
const HINT_SQL = "-- db: superhero\nSELECT id FROM superhero WHERE superhero_name LIKE 'Batman';\n";
const JOIN_717 =
  "FROM superhero AS T1 JOIN hero_power AS T2 ON T1.id = T2.hero_id JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'";
const COLUMNS_SQL = `-- bird: 717\nSELECT T3.power_name, T3.id ${JOIN_717};\n\n-- bird: 717\nSELECT T3.power_name ${JOIN_717} ORDER BY T3.power_name DESC;\n\nSELECT COUNT(*) FROM superhero;\n`;
const MISSING_SQL = '-- db: formula_1\nSELECT * FROM races;\n';
const TRUNCATED_QUESTIONS =
  '[\n  {"question_id": 1, "db_id": "superhero", "question": "How many heroes?", "evidence": "", "SQL": "SELECT COUNT(*) FROM superhero", "difficulty": "simple"},\n  {"question_id": 2, "db_id": "superhero", "question": "cut short';

const skip = editorMissing();

describe('VES Lens in the real VS Code (code-server + Chromium)', { skip, timeout: 900_000 }, () => {
  let server: RunningCodeServer;
  let browser: BrowserContext;
  let page: Page;
  let workspace: string;
  /** The Judge's model: a loopback OpenAI-compatible server whose Refuter upholds and flags the gold and the question. */
  let chat: FakeChatServer;
  let step = 0;

  const shot = async (name: string) => page.screenshot({ path: path.join(SHOTS, `${String(++step).padStart(2, '0')}-${name}.png`) });
  /** Brings a panel's tab to the front (its title starts with `prefix`). */
  const showTab = async (prefix: string) => {
    await page.locator('.tab', { hasText: prefix }).first().click();
    await page.mouse.move(700, 995); // off the tab: no hover over it in the screenshot
    await page.waitForTimeout(300);
  };

  before(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    // npm test packages first; run alone, the test packages what is checked out, never a stale .vsix.
    if (!process.env.npm_lifecycle_event) {
      const pack = spawnSync('npm', ['run', 'package'], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(pack.status, 0, pack.stderr);
    }
    workspace = sampleWorkspace({
      'predicted.sql': SCORE_SQL,
      'hints.sql': HINT_SQL,
      'columns.sql': COLUMNS_SQL,
      'missing.sql': MISSING_SQL,
      'questions_truncated.json': TRUNCATED_QUESTIONS,
    });
    fs.writeFileSync(
      path.join(workspace, 'predict_slow.json'),
      JSON.stringify(
        // The editor scores up to three questions at once: more runaways than that, so that one has timed out
        // while others still run when Cancel is clicked.
        [
          { question_id: 717, predicted_sql: 'SELECT 1' },
          { question_id: 719, predicted_sql: 'SELECT 2' },
          { question_id: 724, predicted_sql: 'SELECT 3' },
          ...[723, 726, 728, 730, 732, 733, 736, 737].map((question_id) => ({
            question_id,
            predicted_sql: 'SELECT count(*) FROM hero_power a, hero_power b, hero_power c',
          })),
        ],
        null,
        2,
      ),
    );
    // Colour forced on, as in CI: no terminal formatting may reach a panel. Scales: the Score panel also re-times
    // the pair on ×10 and ×100 copies of the database and draws the curve.
    server = await startCodeServer({
      workspace,
      vsix: VSIX,
      env: { FORCE_COLOR: '1', CI: 'true' },
      settings: {
        'vesLens.scales': [1, 10, 100],
        'workbench.colorTheme': 'Default Light Modern',
        'vesLens.judge.provider': 'openai',
        'vesLens.judge.url': (chat = await startChatServer(() => ({
          content: refuterReply(false, { gold_correct: false, ambiguity: 'ambiguous question' }),
        }))).url,
        'vesLens.judge.model': 'judge-model',
      },
    });
    browser = await launchChromium();
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  });

  // A failed step leaves a screenshot of what was on screen.
  const it = (name: string, body: () => Promise<void>) =>
    itStep(name, async () => {
      try {
        await body();
      } catch (error) {
        await page
          .screenshot({
            path: path.join(SHOTS, `${String(step).padStart(2, '0')}-FAILED-${name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}.png`),
          })
          .catch(() => undefined);
        throw error;
      }
    });

  // A failed step must not leave a menu or quick input open over the next one.
  beforeEach(async () => {
    await page?.keyboard.press('Escape');
    await page?.keyboard.press('Escape');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await chat?.close();
  });

  it('offers the BIRD dataset it detects; a wrong question file is named with what was expected', async () => {
    await openFile(page, 'predicted.sql'); // activates the extension (onLanguage:sql)
    const offer = toast(page, 'this workspace has a BIRD dataset');
    await offer.waitFor({ timeout: 60_000 });
    assert.match(await offer.innerText(), /mini_dev_superhero\.json, databases in /);
    await page.waitForTimeout(400); // the toast has slid in
    await shot('detected-dataset-offer');
    await offer.locator('.monaco-button', { hasText: 'Not Now' }).click();
    // The person picks the wrong file: a question file cut short.
    await runCommand(page, 'VES Lens: Attach a BIRD Dataset');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'questions_truncated.json' }).first().click();
    const error = toast(page, 'cannot attach this dataset');
    await error.waitFor({ timeout: 30_000 });
    const message = await error.innerText();
    assert.match(message, /questions_truncated\.json/);
    assert.match(message, /Expected a BIRD question file: a JSON list of objects with "question_id", "db_id"/);
    assert.match(
      await page.locator('.statusbar-item', { hasText: 'not a question file' }).first().innerText(),
      /questions_truncated\.json: not a question file/,
    );
    await page.waitForTimeout(400); // the toast has slid in
    await shot('wrong-question-file');
    // The notification offers the dataset BIRD's layout gives.
    await error.locator('.monaco-button', { hasText: 'Attach mini_dev_superhero.json' }).click();
    const status = page.locator('.statusbar-item', { hasText: 'mini_dev_superhero.json' });
    await status.waitFor({ timeout: 30_000 });
    assert.match(await status.innerText(), /52 q · 1\/1 db · SQLite 3\.\d+/);
    await shot('dataset-attached');
  });

  it('scores a prediction: both SQLs, both results with column names, timing, and the plans as aligned step cards', async () => {
    await page.locator('.tab', { hasText: 'predicted.sql' }).first().click();
    const lens = lenses(page, 'Score against gold').first();
    await lens.waitFor({ timeout: 30_000 });
    await shot('code-lenses');
    await lens.click();
    // Card labels are upper-cased by the theme's CSS, so innerText reads them so.
    const first = await waitForWebview(page, /Question 717[\s\S]*outcome\s+correct[\s\S]*EX\s+1/i);
    assert.match(first, /Soft-F1\s+1\.000/i);
    const timed = await waitForWebview(
      page,
      /VES time ratio\s+first row, as the VES script times it\s+[\d.]+×\s+estimated interval [\d.]+–[\d.]+× \(95 %, \d+ blocks of this run\)\s+\d+ runs · median gold [\d.]+ ms/i,
      120_000,
    );
    assert.match(
      timed,
      /R-VES time ratio\s+all rows, as the R-VES script times it\s+[\d.]+×\s+estimated interval [\d.]+–[\d.]+× \(95 %, \d+ blocks of this run\)\s+\d+ runs · median gold [\d.]+ ms/i,
    );
    assert.doesNotMatch(timed, /median time/i, 'one speed answer per metric (issue 30)');
    assert.match(timed, /R-VES reward\s+(1\.25|1|0\.75|0\.5|0\.25)\s+bucket /i);
    assert.match(timed, /Timing\s+timed quantity[\s\S]*first row \(VES\): median gold [\d.]+ ms, prediction [\d.]+ ms/);
    assert.match(
      timed,
      /Ratio as the data grows\s+prediction (and gold grow alike|scales better than gold|scales worse than gold): [\d.]+× at ×1, [\d.]+× at ×100/,
    );
    assert.match(
      timed,
      /SQL\s+gold\s+SELECT\s+T3\.power_name\s+FROM\s+superhero AS T1[\s\S]*prediction\s+SELECT\s+sp\.power_name\s+FROM\s+superpower sp/,
    );
    assert.match(timed, /Results\s+gold · 1 column · 4 rows\s+power_name\s+Agility[\s\S]*prediction · 1 column · 4 rows\s+power_name/);
    assert.match(timed, /Plans\s+the plans differ: rule cost \d+ \(gold\) vs \d+ \(prediction\)/);
    const panel = await webviewFrameWith(page, '#rerun');
    assert.equal(await panel.locator('canvas').count(), 2, 'the timing samples and the ratio-vs-scale curve');
    assert.ok((await panel.locator('pre.sql .hljs-keyword').count()) > 4, 'the SQL is highlighted');
    assert.ok((await panel.locator('.plan-compare .plan-node').count()) >= 6, 'a card per plan step');
    assert.equal(await panel.locator('.plan-compare .plan-node.costliest').count(), 2, 'the costliest step of each plan marked');
    assert.equal(
      await panel.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1'),
      true,
      'nothing overflows the panel',
    );
    await assertPanelsClean(page);
    await shot('score-panel');
    await panel.evaluate("document.querySelector('.plan-compare').scrollIntoView({ block: 'center' })");
    await panel.locator('.plan-compare .plan-node.kind-scan').first().hover();
    await waitInFrame(panel, "!document.getElementById('plan-tip').classList.contains('hidden')");
    assert.match(await panel.locator('#plan-tip').innerText(), /SCAN reads every row of/);
    await shot('score-plans-tooltip');
    await panel.evaluate("document.querySelector('.scale-chart').scrollIntoView({ block: 'center' })");
    await page.waitForTimeout(300);
    await shot('score-panel-scale');
    await panel.evaluate('window.scrollTo(0, 0)');
  });

  it('"Re-run with more iterations" keeps the old numbers visible while it runs, then shows the new ones', async () => {
    const panel = await webviewFrameWith(page, '#rerun');
    const cardsBefore = await panel.locator('.cards').innerText();
    const ratioBefore = cardsBefore.match(
      /VES time ratio\s+first row, as the VES script times it\s+([\d.]+×\s+estimated interval [\d.]+–[\d.]+×)/i,
    )?.[1];
    assert.ok(ratioBefore, cardsBefore);
    await panel.locator('#rerun').click();
    const during = await waitForWebview(page, /re-running with more iterations…/, 10_000);
    assert.ok(during.includes(ratioBefore), `the previous numbers stay on screen while it runs:\n${during.slice(0, 1500)}`);
    assert.match(
      during,
      /Re-run with more iterations\s+Cancel\s+re-running with more iterations… \d+ s\s+the numbers shown are from the previous run/,
    );
    assert.equal(await panel.locator('#rerun[disabled]').count(), 1, 'the button is disabled while it runs');
    await shot('score-rerunning');
    const after = await waitForWebview(
      page,
      /VES time ratio\s+first row, as the VES script times it\s+[\d.]+×\s+estimated interval [\d.]+–[\d.]+× \(95 %, \d+ blocks of this run\)\s+\d+ runs · .*\s+(over \d+ runs: .*\s+)?.*\s+before: [\d.]+× \([\d.]+–[\d.]+×\)/i,
      120_000,
    );
    assert.doesNotMatch(after, /re-running/);
    assert.equal(await panel.locator('#rerun:not([disabled])').count(), 1);
    await shot('score-rerun-done');
  });

  it('looks for a database where a correct prediction and its gold differ, and says what it found', async () => {
    const panel = await webviewFrameWith(page, '#rerun');
    await panel.locator('vscode-button', { hasText: 'Look for a database where they differ' }).click();
    // Whatever the search finds is said: a counterexample database with both results on it, a proof, or none.
    const answered = await waitForWebview(page, /They differ on this database: |Provably equivalent: |None found (in|within) /, 60_000);
    if (/They differ on this database: /.test(answered)) {
      assert.match(answered, /Gold and prediction on it[\s\S]*Its rows[\s\S]*SQLite file: /);
    } else if (/None found/.test(answered)) {
      assert.match(answered, /variations?/);
    }
    await panel.evaluate(
      "[...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('Can EX be trusted'))?.scrollIntoView({ block: 'start' })",
    );
    await page.waitForTimeout(300);
    await assertPanelsClean(page);
    await shot('score-counterexample');
    await panel.evaluate('window.scrollTo(0, 0)');
  });

  it('says "2 columns vs 1" by name, explains Soft-F1 below 1, and binds no statement by its position', async () => {
    await openFile(page, 'columns.sql');
    const scoreLenses = lenses(page, 'Score against gold');
    await scoreLenses.nth(1).waitFor({ timeout: 30_000 });
    assert.equal(await scoreLenses.count(), 2, 'the statement without `-- bird:` gets no Score lens');
    assert.equal(await lenses(page, 'Explain').count(), 3);
    await scoreLenses.nth(0).click();
    const mismatch = await waitForWebview(
      page,
      /outcome\s+mismatch[\s\S]*2 columns vs 1: the prediction returns "power_name", "id", gold returns "power_name"/i,
    );
    assert.match(mismatch, /Results\s+gold · 1 column · 4 rows\s+power_name[\s\S]*prediction · 2 columns · 4 rows\s+power_name\s+id/);
    await shot('score-columns-mismatch');
    await scoreLenses.nth(1).click();
    const reordered = await waitForWebview(
      page,
      /EX is 1 \(the same set of rows\) but Soft-F1 is 0\.\d{3}: Soft-F1 pairs predicted row i with gold row i, by position/,
    );
    assert.match(reordered, /outcome\s+correct/i);
    await shot('score-soft-f1-explained');
    // Only the correctness matters here: stop the timing (if it still runs); the result stays either way.
    const panel = await webviewFrameWith(page, '#app', /Soft-F1 pairs predicted row/);
    const cancel = panel.locator('.actions vscode-button', { hasText: 'Cancel' });
    if (await cancel.count()) await cancel.click().catch(() => undefined);
    const settled = await waitForWebview(
      page,
      /^(?=[\s\S]*Soft-F1 pairs predicted row)(?=[\s\S]*(timing cancelled: EX and Soft-F1 above are final|Re-run with more iterations))/,
      120_000,
    );
    assert.match(settled, /outcome\s+correct/i);
    await page.locator('.notification-toast', { hasText: 'scoring question 717' }).waitFor({ state: 'detached', timeout: 30_000 });
    await assertPanelsClean(page);
  });

  it('gives partial credit (SQLMorph): the technique table, the column alignment, the rows; the embeddings key set in its password box', async () => {
    const KEY = 'sk-typed-into-the-password-box-1618';
    const embeddings = await startEmbeddingsServer();
    const settingsFile = path.join(workspace, '.vscode', 'settings.json');
    const before = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : null;
    const scoreLenses = lenses(page, 'Score against gold');
    /** The Score panel's section, scrolled into view with the panel alone on screen, in a screenshot. */
    const sectionShot = async (name: string) => {
      await showTab('Score: ');
      const frame = await webviewFrameWith(page, '#techniques');
      await frame.evaluate("document.getElementById('techniques').scrollIntoView({ block: 'start' })");
      await runCommand(page, 'View: Toggle Maximize Editor Group');
      await page.waitForTimeout(600);
      await shot(name);
      await runCommand(page, 'View: Toggle Maximize Editor Group');
    };
    try {
      // The prediction with the id added (no embeddings yet): the exact-name techniques credit the names, the semantic ones say what they need.
      await openFile(page, 'columns.sql');
      await scoreLenses.nth(0).click();
      const text = await waitForWebview(page, /outcome\s+mismatch[\s\S]*Partial credit \(SQLMorph\)[\s\S]*Rows/i);
      assert.match(
        text,
        /Partial credit \(SQLMorph\)\s+technique\s+EX\s+EXP\s+EXR\s+F1\s+execution_accuracy\s+0\s+–\s+–\s+–\s+exact_column_and_exact_cell\s+0\s+0\.500\s+1\.000\s+0\.667/,
      );
      // An optional feature not set up: one quiet line naming the techniques, not a red row for each.
      assert.match(text, /Not scored \(optional, needs embeddings\): semantic_column_and_exact_cell, semantic_column_and_partial_cell/);
      assert.doesNotMatch(text, /semantic_column_and_exact_cell\s+no embedding provider/);
      assert.match(text, /need embeddings: set vesLens\.embeddings\.provider to "openai"[\s\S]*Embeddings Settings/);
      assert.match(
        text,
        /Column alignment\s+predicted column\s+gold column\s+similarity\s+power_name\s+power_name\s+1\.000\s+matched\s+id\s+no gold column\s+–\s+extra: its cells count against precision/,
      );
      assert.match(text, /gold · 4 rows: 4 exact · 0 partial · 0 none/);
      const frame = await webviewFrameWith(page, '#techniques');
      assert.equal(await frame.locator('#techniques tr.fate-exact').count(), 8, 'every row of both sides matched whole on power_name');
      assert.equal(
        await frame.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1'),
        true,
        'nothing overflows the panel',
      );
      await sectionShot('score-partial-credit');

      // The key, typed into the password box of "Set Embeddings API Key"; the endpoint in the workspace settings.
      fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
      fs.writeFileSync(
        settingsFile,
        JSON.stringify(
          { ...(before ? JSON.parse(before) : {}), 'vesLens.embeddings.url': embeddings.url, 'vesLens.embeddings.model': 'fake-embedding' },
          null,
          2,
        ),
      );
      await clearNotifications(page);
      await runCommand(page, 'VES Lens: Set Embeddings API Key');
      const box = page.locator('.quick-input-widget input');
      await box.waitFor();
      assert.equal(await box.getAttribute('type'), 'password', 'the key is typed into a password box');
      await box.fill(KEY);
      await shot('embeddings-key-password-box');
      await page.keyboard.press('Enter');
      // The provider is still "none": the notification offers to switch it.
      const stored = toast(page, "the embeddings API key is stored in VS Code's secret storage");
      await stored.waitFor({ timeout: 20_000 });
      await stored.locator('.monaco-button', { hasText: 'Use OpenAI-compatible Embeddings' }).click();
      // The settings take effect at once: the next score embeds with the key.
      await runCommand(page, 'VES Lens: Show the Log');
      // Both the provider and the workspace's endpoint have reached the server (the settings file is read on its own time).
      await page
        .locator('.part.panel .view-lines')
        .filter({ hasText: `embeddings openai at ${embeddings.url}` })
        .first()
        .waitFor({ timeout: 30_000 });
      await runCommand(page, 'View: Hide Panel');
      await page.locator('.tab', { hasText: 'columns.sql' }).first().click();
      await scoreLenses.nth(0).click();
      const semantic = await waitForWebview(
        page,
        /semantic_column_and_partial_cell\s+0\s+[\d.]+\s+[\d.]+\s+[\d.]+[\s\S]*embeddings: fake-embedding at http:\/\/127\.0\.0\.1/,
        60_000,
      );
      assert.match(semantic, /unified_column_and_semantic_row\s+0\s+[\d.]+\s+[\d.]+\s+[\d.]+/);
      assert.match(
        semantic,
        /Column alignment\s+predicted column\s+gold column\s+similarity\s+power_name\s+power_name\s+1\.000\s+matched/,
        'the semantic alignment: equal column texts',
      );
      assert.ok(embeddings.requests.length > 0, 'the endpoint was asked');
      assert.deepEqual(
        [...new Set(embeddings.requests.map((r) => r.auth))],
        [`Bearer ${KEY}`],
        'the key typed in the box, as the bearer token',
      );
      await sectionShot('score-partial-credit-semantic');
      await pickTheme(page, 'Dark Modern');
      await waitInFrame(await webviewFrameWith(page, '#techniques'), "document.body.classList.contains('vscode-dark')");
      await sectionShot('dark-score-partial-credit');
      await pickTheme(page, 'Light Modern');
      await assertPanelsClean(page);
    } finally {
      await runCommand(page, 'VES Lens: Clear Embeddings API Key').catch(() => undefined);
      // The settings as they were: the endpoint (workspace) and the provider the notification's button set (user).
      if (before === null) fs.rmSync(settingsFile, { force: true });
      else fs.writeFileSync(settingsFile, before);
      const userSettings = path.join(server.home, 'user-data', 'User', 'settings.json');
      const user = JSON.parse(fs.readFileSync(userSettings, 'utf8'));
      delete user['vesLens.embeddings.provider'];
      fs.writeFileSync(userSettings, JSON.stringify(user, null, 2));
      await embeddings.close();
      // As the next steps expect it, even after a failure here: the reordered answer on screen (its timing stopped).
      await (async () => {
        await openFile(page, 'columns.sql');
        await scoreLenses.nth(1).click();
        await waitForWebview(page, /Soft-F1 pairs predicted row i/);
        const panel = await webviewFrameWith(page, '#app', /Soft-F1 pairs predicted row/);
        const cancel = panel.locator('.actions vscode-button', { hasText: 'Cancel' });
        if (await cancel.count()) await cancel.click().catch(() => undefined);
        await waitForWebview(
          page,
          /^(?=[\s\S]*Soft-F1 pairs predicted row)(?=[\s\S]*(timing cancelled: EX and Soft-F1 above are final|Re-run with more iterations))/,
          120_000,
        );
        await clearNotifications(page);
      })().catch(() => undefined);
    }
  });

  it("applies a hint's rewrite through its quick fix, verified on the database; the rule id links to its doc", async () => {
    await openFile(page, 'hints.sql');
    // VL006 is a note (issue 34: rarely faster), drawn as a hint, which F8 does not visit: the cursor goes into its range.
    await page.locator('.squiggly-hint, .squiggly-info, .squiggly-warning').first().waitFor({ state: 'attached', timeout: 30_000 });
    await page.locator('.view-lines .view-line', { hasText: "LIKE 'Batman'" }).first().click();
    await page.keyboard.press('End');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft'); // inside 'Batman', within the hint's range
    await shot('hint-diagnostic');
    await page.keyboard.press('Control+.');
    const fix = page
      .locator('.action-widget .monaco-list-row, .context-view .action-item', { hasText: 'Verify and apply the VL006 rewrite' })
      .first();
    await fix.waitFor({ timeout: 15_000 });
    await shot('quick-fix-menu');
    await page.keyboard.press('Enter'); // the preferred fix is the focused first entry
    // Same rows either way; applied at once only if measured faster, else the measurement and "Apply anyway".
    const applied = page.locator('.view-lines', { hasText: "superhero_name = 'Batman'" });
    const anyway = toast(page, 'Apply anyway');
    await Promise.race([applied.waitFor({ timeout: 60_000 }), anyway.waitFor({ timeout: 60_000 })]);
    if (await anyway.isVisible()) {
      await shot('rewrite-not-faster');
      assert.match(
        await anyway.innerText(),
        // Identical plans are "same work", never timed (issue 34); a timed pair says its repeat interval,
        // or the first claim and the repeat that did not confirm it.
        /VL006 rewrite not applied: same rows; (same work: SQLite makes the same plan of both forms.*so not timed|(no measurable difference|the rewrite is slower)[^]*repeat interval|no difference that survives a repeat: .* on a repeat)/,
      );
      // The progress toast above it goes as the warning comes: a click while the toasts move can land beside the button.
      await toast(page, 'verifying the VL006 rewrite').waitFor({ state: 'hidden', timeout: 10_000 });
      const button = anyway.locator('.monaco-button', { hasText: 'Apply anyway' });
      await button.focus();
      await page.keyboard.press('Enter');
    }
    await applied.waitFor({ timeout: 60_000 });
    await shot('rewrite-applied');
    await page
      .locator('.notifications-toasts, .notification-toast', { hasText: 'VL006 rewrite applied' })
      .first()
      .waitFor({ timeout: 10_000 });
  });

  it('explains a plan: which statement, a card per step, the SQL formatted; it follows edits', async () => {
    await clearNotifications(page);
    await page.locator('.tab', { hasText: 'hints.sql' }).first().click();
    const lens = lenses(page, 'Explain').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    const text = await waitForWebview(page, /^Query plan · hints\.sql, line 2/);
    // The header names the build; on the WebAssembly fallback (VES_LENS_SQLITE=wasm, issue 31) it says so.
    assert.match(text, /database superhero · SQLite 3\.\d+\.\d+( \(WebAssembly\))? · follows edits to the statement/);
    assert.match(text, /RULE COST\s+100/i);
    assert.match(text, /SCAN\s+superhero/);
    assert.match(text, /SQL\s+SELECT\s+id\s+FROM\s+superhero\s+WHERE\s+superhero_name = 'Batman'/, 'the statement as edited, formatted');
    const panel = await webviewFrameWith(page, '.plan-tree');
    assert.ok((await panel.locator('.plan-node').count()) >= 1);
    await shot('plan-panel');
    // Edit the statement: the plan follows (a sort appears).
    await page.locator('.tab', { hasText: 'hints.sql' }).first().click();
    await page.locator('.view-lines .view-line', { hasText: "superhero_name = 'Batman'" }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft'); // before the ;
    await page.keyboard.type(' ORDER BY full_name');
    const followed = await waitForWebview(page, /Query plan · hints\.sql, line 2[\s\S]*TEMP B-TREE\s+for ORDER BY/, 20_000);
    assert.match(followed, /ORDER BY\s+full_name/);
    await shot('plan-follows-edit');
    await assertPanelsClean(page);
  });

  it('says a database is missing, naming it, instead of "attach a dataset"', async () => {
    await openFile(page, 'missing.sql');
    const lens = lenses(page, 'Explain').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    const error = toast(page, 'formula_1');
    await error.waitFor({ timeout: 20_000 });
    assert.match(
      await error.innerText(),
      /database formula_1 \(named by `?-- db: formula_1`?\) is missing: .*formula_1\.sqlite does not exist/,
    );
    assert.doesNotMatch(await error.innerText(), /attach a dataset/i);
    await page.waitForTimeout(400); // the toast has slid in
    await shot('missing-database');
    await clearNotifications(page);
  });

  it('evaluates a prediction file: filter, search, reasons, VES and ms columns; a row jumps to its entry', async () => {
    await openFile(page, 'predict_gpt-4_superhero.json'); // the command evaluates the prediction file in the editor
    await shot('prediction-json-highlighted');
    await runCommand(page, 'VES Lens: Evaluate a Prediction File');
    const report = await waitForWebview(
      page,
      /Evaluation report[\s\S]*count\s+14\s+26\s+12\s+52[\s\S]*EX\s+85\.71\s+80\.77\s+58\.33\s+76\.92/,
      240_000,
    );
    assert.match(report, /52 of 52 questions shown/);
    const frame = await webviewFrameWith(page, 'table.questions', /predict_gpt-4_superhero\.json/);
    const header = await frame.locator('table.questions thead').innerText();
    // Both ratios, each named for its quantity, and the R-VES reward beside its term in the score.
    assert.match(
      header,
      /outcome\s+reason\s+EX\s+Soft-F1\s+VES term √ratio\s+R-VES reward\s+R-VES term √reward\s+time ratio \(VES, first row\)\s+R-VES ratio \(all rows\)\s+gold ms\s+pred ms/,
    );
    await frame.locator('#outcome').selectOption('failures');
    assert.equal(await frame.locator('table.questions tbody tr').count(), 12, 'the failures');
    await frame.locator('#search').fill('dual');
    const row = frame.locator('table.questions tbody tr');
    assert.equal(await row.count(), 1);
    assert.match(await row.first().innerText(), /744\s+superhero\s+challenging\s+prediction error[\s\S]*no such table: dual/);
    await shot('report-filtered');
    // Its file icon opens the prediction file at the entry.
    await row.first().locator('button.jump').click();
    await page.locator('.tab.active[aria-label^="predict_gpt-4_superhero.json"]').waitFor();
    await page.locator('.view-lines', { hasText: 'dual' }).first().waitFor({ timeout: 10_000 });
    await shot('report-jumped-to-entry');
    await frame.locator('#search').fill('');
    await frame.locator('#outcome').selectOption('all');
    await frame.locator('#failures-first').check();
    assert.match(await frame.locator('table.questions tbody tr').first().innerText(), /prediction error/);
    await assertPanelsClean(page);
  });

  it('opens a second report beside the first; a shorter time limit applies at once; a cancelled run keeps what it scored', async () => {
    // Settings take effect without a reload: a 4 s limit, set in the Settings editor.
    await setNumberSetting(page, 'vesLens.timeoutSeconds', 4);
    await shot('setting-time-limit');
    await runExactCommand(page, 'View: Close Editor');
    try {
      // The server says in its log when it takes new settings.
      await runCommand(page, 'VES Lens: Show the Log');
      await page.locator('.part.panel .view-lines').filter({ hasText: 'settings: timeout 4 s' }).first().waitFor({ timeout: 30_000 });
      await runCommand(page, 'View: Hide Panel');
      // Wrong answers scored at once, then runaway queries that only the time limit stops (more than run at once).
      await openFile(page, 'predict_slow.json');
      await runCommand(page, 'VES Lens: Evaluate a Prediction File');
      const streaming = await waitForWebview(page, /predict_slow\.json[\s\S]*scoring… [\s\S]*timeout/, 30_000);
      assert.match(streaming, /717\s+superhero\s+simple\s+mismatch/);
      assert.match(streaming, /4000 ms|4 s|4\.0 s|4000/, 'the first runaway query stopped at the new 4 s limit, named in its reason');
      const frame = await webviewFrameWith(page, '.actions vscode-button', /predict_slow\.json/);
      await shot('report-streaming');
      // The second runaway is running now: Cancel interrupts it at once rather than at its time limit.
      const clicked = Date.now();
      await frame.locator('.actions vscode-button', { hasText: 'Cancel' }).click();
      const partial = await waitForWebview(
        page,
        /predict_slow\.json[\s\S]*cancelled: \d of 52 questions were scored before the run stopped/,
        30_000,
      );
      assert.ok(Date.now() - clicked < 3_500, `cancelling took ${Date.now() - clicked} ms: the running query was not interrupted`);
      assert.match(partial, /timeout/, 'what was scored before the cancel stays');
      assert.equal(await page.locator('.tab', { hasText: 'Report: ' }).count(), 2, 'two reports open');
      await shot('report-cancelled-partial');
    } finally {
      await setNumberSetting(page, 'vesLens.timeoutSeconds', 30);
      await runExactCommand(page, 'View: Close Editor');
    }
    await clearNotifications(page);
  });

  it('refuses to evaluate a question file, saying why', async () => {
    await openFile(page, 'mini_dev_superhero.json');
    await shot('question-json-highlighted');
    await runCommand(page, 'VES Lens: Evaluate a Prediction File');
    const refusal = toast(page, 'is a BIRD question file');
    await refusal.waitFor({ timeout: 20_000 });
    assert.match(
      await refusal.innerText(),
      /mini_dev_superhero\.json is a BIRD question file .* not a prediction file: evaluating it would score the gold against itself/,
    );
    await page.waitForTimeout(400); // the toast has slid in
    await shot('question-file-refused');
    await clearNotifications(page);
  });

  it('browses the BIRD explorer: a question opens one read-only document; "Time the Gold SQL" times it alone', async () => {
    await page.locator('.activitybar .action-item a[aria-label^="VES Lens"]').first().click();
    const tree = page.locator('.pane', { hasText: 'BIRD Explorer' });
    await tree.locator('.monaco-list-row', { hasText: 'superhero' }).first().click();
    await tree.locator('.monaco-list-row', { hasText: 'simple' }).first().click();
    const question = tree.locator('.monaco-list-row', { hasText: '717: Please list all the superpowers of 3-D Man.' }).first();
    await question.click();
    await page.locator('.tab.active', { hasText: 'question 717.sql' }).waitFor({ timeout: 20_000 });
    await page.locator('.view-lines', { hasText: '-- bird: 717' }).first().waitFor();
    await page.locator('.view-lines', { hasText: 'INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id' }).first().waitFor();
    await question.click();
    await page.waitForTimeout(500);
    assert.equal(
      await page.locator('.tab', { hasText: 'question 717.sql' }).count(),
      1,
      'one document per question, however often clicked',
    );
    assert.equal(await page.locator('.tab', { hasText: 'Untitled' }).count(), 0, 'no Untitled editor');
    await shot('bird-explorer-question');
    // The inline action on the question: time the gold alone.
    await question.hover();
    await question.locator('.action-label[aria-label="Time the Gold SQL"]').click();
    const timed = await waitForWebview(
      page,
      /^Timed alone · gold SQL of question 717[\s\S]*TIME\s+[\d.]+ ms\s+95 % interval of the median: [\d.]+–[\d.]+ ms/i,
      60_000,
    );
    assert.match(timed, /Result\s+result · 1 column · 4 rows\s+power_name/);
    assert.doesNotMatch(timed, /R-VES reward|ratio/i, 'the gold alone: no ratio against itself');
    assert.ok((await (await webviewFrameWith(page, '.plan-tree', /Timed alone/)).locator('.plan-node').count()) >= 3);
    assert.equal(await page.locator('.tab', { hasText: 'Plan: ' }).count(), 1, 'the timing has its own panel: the Plan panel stays');
    await shot('time-gold-alone');
    await assertPanelsClean(page);
  });

  it('audits the gold SQL: a pick of prediction files, a step per question, the page in the editor, flagged questions marked in the explorer', async () => {
    // The audit also times each gold alone at the scales of vesLens.scales: none here (the ×100 copies take minutes).
    fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'vesLens.scales': [] }));
    // The server says in its log when it takes the new settings.
    await runCommand(page, 'VES Lens: Show the Log');
    await page.locator('.part.panel .view-lines').filter({ hasText: 'scales []' }).first().waitFor({ timeout: 30_000 });
    await runCommand(page, 'View: Hide Panel');
    await clearNotifications(page);
    await runCommand(page, 'VES Lens: Audit Gold SQL');
    // The workspace's prediction files are offered (none checked): check GPT-4's, to count its faster correct predictions.
    const offered = page.locator('.quick-input-list .monaco-list-row', { hasText: 'predict_gpt-4_superhero.json' }).first();
    await offered.waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('.quick-input-list .monaco-list-row', { hasText: 'predict_slow.json' }).count(), 1);
    assert.equal(
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'mini_dev_superhero.json' }).count(),
      0,
      'a question file is no prediction file',
    );
    await offered.locator('.monaco-checkbox, input[type=checkbox]').first().click();
    await shot('audit-pick-predictions');
    await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();
    const progress = toast(page, 'auditing the gold SQL of mini_dev_superhero.json');
    await progress.waitFor({ timeout: 30_000 });
    await page
      .locator('.notification-toast', { hasText: /\d+\/52: question \d+ \(superhero\)/ })
      .first()
      .waitFor({ timeout: 240_000 });
    await shot('audit-progress');
    await toast(page, /52 gold SQL audited: \d+ worth another look, marked in the BIRD Explorer/).waitFor({ timeout: 240_000 });
    // core's page, in the webview: its own table script ran (the count), and the question ids are links.
    const frame = await waitForFrameWith(page, 'table#audit');
    await waitInFrame(frame, "document.querySelectorAll('a.vl-open').length === 52");
    const text = await frame.evaluate<string>('document.body.innerText');
    assert.match(text, /52 gold audited · \d+ worth another look/);
    assert.match(text, /VES Lens gold audit[\s\S]*Prediction files: .*predict_gpt-4_superhero\.json/);
    assert.match(await frame.locator('[data-count-for="audit"]').innerText(), /^52 of 52 shown$/);
    // Is the gold right before is it fast: a finding on the data (here a LIMIT without ORDER BY) ranks first.
    const first = await frame.locator('table#audit tbody tr').first().innerText();
    assert.match(first, /^1\s+[\d.]+\s+\d+\s+superhero[\s\S]*evidence: /);
    const slowGold = await frame
      .locator('table#audit tbody tr', { hasText: /VL001 rewrite/ })
      .first()
      .innerText();
    assert.match(slowGold, /^\d+\s+[\d.]+\s+(738|730)\s+superhero[\s\S]*VL001 rewrite is \d+× as fast, same rows/);
    assert.equal(
      await frame.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1'),
      true,
      'the page fits its panel (wide tables scroll in their box)',
    );
    await runCommand(page, 'View: Toggle Maximize Editor Group');
    await page.waitForTimeout(600);
    await shot('audit-panel');
    await runCommand(page, 'View: Toggle Maximize Editor Group');
    // A question id opens that question's gold in the editor.
    await frame.locator('a.vl-open', { hasText: /^738$/ }).click();
    await page.locator('.tab.active', { hasText: 'question 738.sql' }).waitFor({ timeout: 20_000 });
    await page.locator('.view-lines', { hasText: 'WHERE EXISTS' }).first().waitFor();
    // The explorer marks the flagged questions; "show flagged only" leaves just those.
    const { tree, flagged } = await flaggedInExplorer(page, '738');
    await flagged.waitFor({ timeout: 20_000 });
    assert.match(await flagged.innerText(), /gold: \d+(\.\d)?× faster rewrite/);
    // An unflagged question is hidden (once the tree has redrawn with the filter on).
    await tree.locator('.monaco-list-row', { hasText: '717: ' }).first().waitFor({ state: 'detached', timeout: 15_000 });
    await flagged.hover();
    await page.locator('.monaco-hover', { hasText: 'Gold audit #' }).first().waitFor({ timeout: 10_000 });
    await shot('audit-explorer-marks');
    await page.mouse.move(700, 995);
    await assertPanelsClean(page);
  });

  it("shows the language server's log in the Output panel", async () => {
    await runCommand(page, 'VES Lens: Show the Log');
    const output = page.locator('.part.panel .view-lines');
    // The log follows its end; the dataset line was written early: go to the top, where it is drawn.
    await output.first().click();
    await page.keyboard.press('Control+Home');
    await output.filter({ hasText: 'dataset: 52 questions' }).first().waitFor({ timeout: 20_000 });
    await shot('output-log');
    await runCommand(page, 'View: Hide Panel');
  });

  it('draws every panel in the dark theme: charts, plans, SQL and tables in its colours', async () => {
    await pickTheme(page, 'Dark Modern');
    // The Timing panel's page draws plans too (as the Plan panel does): its frame is the one that says "Timed alone".
    const panels: [string, string, string, RegExp?][] = [
      ['Score: ', '.plan-compare', 'score'],
      ['Time: ', '.plan-tree', 'time-gold', /Timed alone/],
      ['Report: predict_gpt-4', 'table.questions', 'report'],
      ['Gold Audit: ', 'table#audit', 'gold-audit'],
    ];
    for (const [tab, selector, name, shows] of panels) {
      await showTab(tab);
      const frame = await webviewFrameWith(page, selector, shows);
      await waitInFrame(frame, "document.body.classList.contains('vscode-dark')");
      await runCommand(page, 'View: Toggle Maximize Editor Group'); // the panel alone, as wide as the window
      await page.waitForTimeout(600);
      assert.ok((await frame.locator('.plan-node, table.questions tbody tr, table#audit tbody tr').count()) > 0);
      assert.equal(
        await frame.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1'),
        true,
        `nothing overflows the ${name} panel`,
      );
      await shot(`dark-${name}`);
      await runCommand(page, 'View: Toggle Maximize Editor Group');
    }
    await showTab('predict_gpt-4_superhero.json');
    await shot('dark-prediction-json');
    await assertPanelsClean(page);
  });

  it('restores the panels after a reload', async () => {
    // "Developer: Reload Window", as a person reloads: the workbench saves its state (the panels' pages with theirs)
    // before it goes; a bare browser reload can leave before that state is written.
    const loadedAt = await page.evaluate<number>('performance.timeOrigin');
    await runExactCommand(page, 'Developer: Reload Window');
    const deadline = Date.now() + 60_000;
    while ((await page.evaluate<number>('performance.timeOrigin').catch(() => loadedAt)) === loadedAt) {
      assert.ok(Date.now() < deadline, 'the window reloads');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await showTab('Report: predict_gpt-4');
    const report = await waitForWebview(page, /Evaluation report[\s\S]*predict_gpt-4_superhero\.json[\s\S]*EX\s+85\.71/, 60_000);
    assert.match(report, /52 of 52 questions shown/);
    await showTab('Score: ');
    await waitForWebview(page, /Question 717[\s\S]*Soft-F1 pairs predicted row i/, 60_000);
    await shot('dark-restored-after-reload');
    await assertPanelsClean(page);
  });

  it('keeps the gold audit across the reload: its page, and the marks in the explorer', async () => {
    await showTab('Gold Audit: ');
    const frame = await waitForFrameWith(page, 'table#audit');
    await waitInFrame(frame, "document.querySelectorAll('a.vl-open').length === 52", 60_000);
    const { flagged } = await flaggedInExplorer(page, '738');
    await flagged.waitFor({ timeout: 30_000 });
    assert.match(await flagged.innerText(), /gold: \d+(\.\d)?× faster rewrite/);
    await shot('dark-audit-marks-after-reload');
  });

  it('judges a prediction with a chat model (an OpenAI-compatible loopback server): key, consent, verdict, flags in the explorer and the report', async () => {
    await clearNotifications(page);
    // The key goes to VS Code's secret storage through a password box.
    await runCommand(page, 'VES Lens: Set Judge API Key');
    const box = page.locator('.quick-input-widget input[type="password"]');
    await box.waitFor({ timeout: 10_000 });
    await box.fill('sk-e2e-test');
    await page.keyboard.press('Enter');
    await toast(page, "the Judge's API key is stored").waitFor({ timeout: 10_000 });
    await clearNotifications(page);
    // Its tab is open since the first steps (quick open may pick a recent file under load).
    await page.keyboard.press('Control+1');
    await page.locator('.tab', { hasText: 'predicted.sql' }).first().click();
    await page.locator('.tab.active', { hasText: 'predicted.sql' }).waitFor({ timeout: 10_000 });
    const lens = lenses(page, 'Judge').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    // First use of an endpoint: VES Lens says what it sends where, and asks.
    const consent = page.locator('.monaco-dialog-box', { hasText: 'Allow this endpoint?' });
    await consent.waitFor({ timeout: 20_000 });
    assert.match(
      await consent.innerText(),
      /sends the question, its evidence, both SQL queries, .* to http:\/\/127\.0\.0\.1:\d+\/v1 \(model judge-model\)/,
    );
    await shot('judge-consent');
    await consent.locator('.monaco-button', { hasText: 'Allow' }).click();
    const verdict = await waitForWebview(
      page,
      /Judge \(does the prediction answer the question\?[\s\S]*JUDGE\s+1\s+answers[\s\S]*Refuter upholds/i,
      60_000,
    );
    assert.match(verdict, /METHOD\s+rose\s+results match: the Refuter alone/i);
    assert.match(verdict, /the Refuter says the gold SQL looks wrong\s+the Refuter finds an ambiguous question/);
    assert.match(verdict, /MODEL\s+judge-model\s+1 request · 100 prompt \+ 20 completion tokens/i);
    assert.equal(chat.requests.length, 1);
    assert.equal(roleOf(chat.requests[0]), 'refuter');
    assert.equal(chat.requests[0].headers.authorization, 'Bearer sk-e2e-test', 'the key from the secret storage');
    await page.locator('.notification-toast', { hasText: 'judging question 717' }).waitFor({ state: 'detached', timeout: 30_000 });
    await showTab('Score: ');
    await runCommand(page, 'View: Toggle Maximize Editor Group');
    await page.waitForTimeout(600);
    await shot('dark-judge-verdict');
    await pickTheme(page, 'Light Modern');
    await page.waitForTimeout(800);
    await shot('judge-verdict-light');
    await runCommand(page, 'View: Toggle Maximize Editor Group');
    // The Refuter's flags for annotators: on the question in the explorer, and in the report's judge column.
    const tree = page.locator('.pane', { hasText: 'BIRD Explorer' });
    if (!(await tree.isVisible())) await page.locator('.activitybar .action-item a[aria-label^="VES Lens"]').first().click(); // a click on the open view would close it
    await expandRow(tree, 'superhero');
    await expandRow(tree, 'simple');
    const question = tree.locator('.monaco-list-row', { hasText: '717: ' }).first();
    await question.waitFor({ timeout: 20_000 });
    assert.match(await question.innerText(), /judge: gold flagged, ambiguous question/);
    await showTab('Report: predict_gpt-4');
    const report = await webviewFrameWith(page, 'table.questions', /predict_gpt-4_superhero\.json/);
    await waitInFrame(
      report,
      "document.querySelector('tr[data-question=\"717\"] td.judge-cell')?.innerText.includes('gold flagged') === true",
    );
    await shot('judge-flags-explorer-and-report');
    await assertPanelsClean(page);
  });
});
