import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BrowserContext, chromium, Frame, Page } from 'playwright-core';
import { REPO_ROOT, tempDir } from '../helpers';
import { CHROMIUM, editorMissing, RunningCodeServer, sampleWorkspace, startCodeServer } from './codeServer';

const SHOTS = path.join(REPO_ROOT, 'test-results', 'e2e');
const VSIX = path.join(REPO_ROOT, 'ves-lens.vsix');

// Mini-dev question 717 (superhero: "list all the superpowers of 3-D Man"), answered correctly with a
// correlated IN; and a LIKE without wildcard for the quick fix.
const SCORE_SQL = "-- bird: 717\nSELECT sp.power_name FROM superpower sp WHERE sp.id IN (SELECT hp.power_id FROM hero_power hp JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name = '3-D Man');\n";
const HINT_SQL = "-- db: superhero\nSELECT id FROM superhero WHERE superhero_name LIKE 'Batman';\n";

/** The text of every webview frame (VS Code nests each panel's page two iframes deep). */
async function webviewText(page: Page): Promise<string[]> {
  const texts: string[] = [];
  for (const frame of page.frames()) {
    const text = await frame.evaluate<string>("document.getElementById('app')?.innerText ?? ''").catch(() => '');
    if (text) texts.push(text);
  }
  return texts;
}

async function waitForWebview(page: Page, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = (await webviewText(page)).find((t) => pattern.test(t));
    if (match) return match;
    await page.waitForTimeout(500);
  }
  throw new Error(`no webview showed ${pattern}; saw: ${(await webviewText(page)).join('\n---\n').slice(0, 2000)}`);
}

/** The webview frame whose page shows an element (VS Code nests each panel's page two iframes deep). */
async function webviewFrameWith(page: Page, selector: string): Promise<Frame> {
  for (const frame of page.frames()) {
    if (await frame.locator(selector).count().catch(() => 0)) return frame;
  }
  throw new Error(`no webview has ${selector}`);
}

/** Polls an expression in a webview frame (its CSP forbids the eval that frame.waitForFunction uses). */
async function waitInFrame(frame: Frame, expression: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await frame.evaluate<boolean>(expression).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`webview never satisfied ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor();
}

const skip = editorMissing();

describe('VES Lens in the real VS Code (code-server + Chromium)', { skip, timeout: 600_000 }, () => {
  let server: RunningCodeServer;
  let browser: BrowserContext;
  let page: Page;
  let step = 0;

  const shot = async (name: string) => page.screenshot({ path: path.join(SHOTS, `${String(++step).padStart(2, '0')}-${name}.png`) });

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    // npm test packages first; run alone, the test packages what is checked out, never a stale .vsix.
    if (!process.env.npm_lifecycle_event) {
      const pack = spawnSync('npm', ['run', 'package'], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(pack.status, 0, pack.stderr);
    }
    const workspace = sampleWorkspace({ 'predicted.sql': SCORE_SQL, 'hints.sql': HINT_SQL });
    // Scales: the Score panel also re-times the pair on ×10 and ×100 copies of the database and draws the curve.
    server = await startCodeServer({ workspace, vsix: VSIX, settings: { 'vesLens.scales': [1, 10, 100] } });
    browser = await chromium.launchPersistentContext(tempDir('ves-lens-chromium-'), {
      executablePath: CHROMIUM,
      viewport: { width: 1600, height: 1000 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  });

  // A failed step must not leave a menu or quick input open over the next one.
  beforeEach(async () => {
    await page?.keyboard.press('Escape');
    await page?.keyboard.press('Escape');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('attaches the dataset detected in the workspace; the status bar shows it and the SQLite version', async () => {
    await openFile(page, 'predicted.sql'); // activates the extension (onLanguage:sql)
    await page.locator('.statusbar-item', { hasText: 'SQLite' }).first().waitFor({ timeout: 60_000 });
    await runCommand(page, 'VES Lens: Attach a BIRD Dataset');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'mini_dev_superhero.json' }).first().waitFor({ timeout: 30_000 });
    await shot('attach-dataset-pick');
    await page.keyboard.press('Enter');
    const status = page.locator('.statusbar-item', { hasText: 'mini_dev_superhero.json' });
    await status.waitFor({ timeout: 30_000 });
    assert.match(await status.innerText(), /52 q · 1\/1 db · SQLite 3\.\d+/);
    await shot('dataset-attached');
  });

  it('clicks "Score against gold" on a real prediction and sees the result in the Score panel', async () => {
    const lens = page.locator('.codelens-decoration a', { hasText: 'Score against gold' }).first();
    await lens.waitFor({ timeout: 30_000 });
    await shot('code-lenses');
    await lens.click();
    // Card labels are upper-cased by the theme's CSS, so innerText reads them so.
    const first = await waitForWebview(page, /Question 717[\s\S]*outcome\s+correct[\s\S]*EX\s+1/i);
    assert.match(first, /Soft-F1\s+1\.000/i);
    const timed = await waitForWebview(page, /time ratio \(VES, first row\)\s+[\d.]+×\s+a repeat run: [\d.]+–[\d.]+× \(95 %\)\s+\d+ blocks · \d+ runs/i, 90_000);
    assert.match(timed, /R-VES ratio \(all rows\)\s+[\d.]+×\s+a repeat run: [\d.]+–[\d.]+× \(95 %\)\s+\d+ blocks · \d+ runs/i);
    assert.match(timed, /R-VES reward\s+(1\.25|1|0\.75|0\.5|0\.25)\s+bucket /i);
    assert.match(timed, /Timing\s+timed quantity[\s\S]*first row \(VES\): median gold [\d.]+ ms, prediction [\d.]+ ms/);
    assert.match(timed, /Ratio as the data grows\s+prediction (and gold grow alike|scales better than gold|scales worse than gold): [\d.]+× at ×1, [\d.]+× at ×100/);
    assert.match(timed, /Plans[\s\S]*QUERY PLAN[\s\S]*QUERY PLAN/);
    assert.doesNotMatch(timed, /\u001b|\[\d+m/, 'no terminal escape codes');
    assert.doesNotMatch(timed, /\{"|"\s*:/, 'no raw JSON');
    const panel = await webviewFrameWith(page, '#rerun');
    assert.equal(await panel.locator('canvas').count(), 2, 'the timing samples and the ratio-vs-scale curve');
    await shot('score-panel');
    await panel.evaluate("document.querySelector('.scale-chart').scrollIntoView({ block: 'center' })");
    await page.waitForTimeout(300);
    await shot('score-panel-scale');
    await panel.evaluate('window.scrollTo(0, 0)');
  });

  it('"Re-run with more iterations" keeps the old numbers visible while it runs, then shows the new ones', async () => {
    const panel = await webviewFrameWith(page, '#rerun');
    const cardsBefore = await panel.locator('.cards').innerText();
    const ratioBefore = cardsBefore.match(/time ratio \(VES, first row\)\s+([\d.]+×\s+a repeat run: [\d.]+–[\d.]+×)/i)?.[1];
    assert.ok(ratioBefore, cardsBefore);
    await panel.locator('#rerun').click();
    const during = await waitForWebview(page, /re-running with more iterations…/, 10_000);
    assert.ok(during.includes(ratioBefore), `the previous numbers stay on screen while it runs:\n${during.slice(0, 1500)}`);
    assert.match(during, /Re-run with more iterations\s+Cancel\s+re-running with more iterations… \d+ s\s+the numbers shown are from the previous run/);
    assert.equal(await panel.locator('#rerun[disabled]').count(), 1, 'the button is disabled while it runs');
    assert.equal(await panel.locator('.actions vscode-progress-ring').count(), 1);
    await shot('score-rerunning');
    // The new result says what the interval was before the re-run.
    const after = await waitForWebview(page, /time ratio \(VES, first row\)\s+[\d.]+×\s+a repeat run: [\d.]+–[\d.]+× \(95 %\)\s+\d+ blocks · \d+ runs\s+.*\s+before: [\d.]+× \([\d.]+–[\d.]+×\)/i, 120_000);
    assert.doesNotMatch(after, /re-running/);
    assert.match(after, /R-VES ratio \(all rows\)\s+[\d.]+×\s+a repeat run: [\d.]+–[\d.]+×/i);
    assert.doesNotMatch(after, /\u001b/);
    assert.equal(await panel.locator('#rerun:not([disabled])').count(), 1);
    await shot('score-rerun-done');
    // The same panel in a dark theme (the charts redraw in the theme's colours), then back to the light default.
    const pickTheme = async (name: string) => {
      // Not runCommand: "Preferences: Browse Color Themes in Marketplace" also matches and may come first.
      await page.keyboard.press('F1');
      await page.locator('.quick-input-widget input').fill('>Preferences: Color Theme');
      await page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: /^Preferences: Color Theme$/ }) }).first().click();
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Light Modern' }).first().waitFor(); // the theme list is up
      await page.locator('.quick-input-widget input').fill(name);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
      await page.keyboard.press('Enter');
    };
    await pickTheme('Dark Modern');
    await waitInFrame(panel, "document.body.classList.contains('vscode-dark')");
    await page.waitForTimeout(500);
    await shot('score-panel-dark');
    await pickTheme('Light Modern');
    await waitInFrame(panel, "document.body.classList.contains('vscode-light')");
    // Clicking in the panel moved the focus to its editor group: give it back to the editor, as before this step.
    await page.locator('.tab', { hasText: 'predicted.sql' }).first().click();
  });

  it('applies a hint\'s rewrite through its quick fix, verified on the database', async () => {
    await openFile(page, 'hints.sql');
    await page.locator('.squiggly-info, .squiggly-warning').first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('F8'); // go to the problem
    await shot('hint-diagnostic');
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row, .context-view .action-item', { hasText: 'Verify and apply the VL006 rewrite' }).first();
    await fix.waitFor({ timeout: 15_000 });
    await shot('quick-fix-menu');
    await page.keyboard.press('Enter'); // the preferred fix is the focused first entry
    // Same rows either way; applied at once only if measured faster, else the measurement and "Apply anyway".
    const applied = page.locator('.view-lines', { hasText: "superhero_name = 'Batman'" });
    const anyway = page.locator('.notification-toast', { hasText: 'Apply anyway' }).first();
    await Promise.race([applied.waitFor({ timeout: 60_000 }), anyway.waitFor({ timeout: 60_000 })]);
    if (await anyway.isVisible()) {
      await shot('rewrite-not-faster');
      assert.match(await anyway.innerText(), /VL006 rewrite not applied: same rows; (no measurable difference|the rewrite is slower)[^]*a repeat run/);
      await anyway.locator('.monaco-button', { hasText: 'Apply anyway' }).click();
    }
    await applied.waitFor({ timeout: 60_000 });
    await shot('rewrite-applied');
    await page.locator('.notifications-toasts, .notification-toast', { hasText: 'VL006 rewrite applied' }).first().waitFor({ timeout: 10_000 });
  });

  it('evaluates a whole prediction file into the report panel', async () => {
    await openFile(page, 'predict_gpt-4_superhero.json'); // the command evaluates the prediction file in the editor
    await runCommand(page, 'VES Lens: Evaluate a Prediction File');
    const report = await waitForWebview(page, /Evaluation report[\s\S]*count\s+14\s+26\s+12\s+52[\s\S]*EX\s+85\.71\s+80\.77\s+58\.33\s+76\.92/, 180_000);
    assert.match(report, /Questions \(click or press Enter/);
    await shot('evaluation-report');
  });

  it('browses the BIRD explorer: database → difficulty → question, which opens its text and gold SQL', async () => {
    await page.locator('.activitybar .action-item a[aria-label^="VES Lens"]').first().click();
    const tree = page.locator('.pane', { hasText: 'BIRD Explorer' });
    await tree.locator('.monaco-list-row', { hasText: 'superhero' }).first().click();
    await tree.locator('.monaco-list-row', { hasText: 'simple' }).first().click();
    await tree.locator('.monaco-list-row', { hasText: '717: Please list all the superpowers of 3-D Man.' }).first().click();
    await page.locator('.view-lines', { hasText: '-- bird: 717' }).first().waitFor({ timeout: 20_000 });
    await page.locator('.view-lines', { hasText: "WHERE T1.superhero_name = '3-D Man'" }).first().waitFor();
    await shot('bird-explorer');
  });

  it('opens the annotated plan from the "Explain" code lens', async () => {
    await page.locator('.tab', { hasText: 'hints.sql' }).first().click(); // open since the quick-fix step
    const lens = page.locator('.codelens-decoration a', { hasText: 'Explain' }).first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    const text = await waitForWebview(page, /Query plan[\s\S]*QUERY PLAN/);
    assert.match(text, /SCAN superhero/);
    assert.match(text, /superhero_name = 'Batman'/, 'the plan of the statement as edited, not as it was when the lens was drawn');
    assert.match(text, /rule cost/);
    await shot('plan-panel');
  });
});
