// The editor walk on the fallback (issue 31): the packaged .vsix with its native SQLite module taken out, as a
// user has it where node-sqlite3 was built for another platform, installed into the real VS Code (code-server +
// Chromium). SQLite runs as WebAssembly; the status bar says so and why; scoring, plans and a whole prediction file
// give what they give on native SQLite. A bounded part of ui.test.ts's walk (the rest needs no SQLite of its own).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, tempDir } from '../helpers';
import { editorMissing, RunningCodeServer, sampleWorkspace, startCodeServer } from './codeServer';
import { assertPanelsClean, launchChromium, lenses, openFile, runCommand, toast, waitForWebview, webviewFrameWith } from './workbench';

const SHOTS = process.env.VES_LENS_E2E_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'e2e-wasm');
const SCORE_SQL =
  "-- bird: 717\nSELECT sp.power_name FROM superpower sp WHERE sp.id IN (SELECT hp.power_id FROM hero_power hp JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name = '3-D Man');\n";
const PLAN_SQL = "-- db: superhero\nSELECT id FROM superhero WHERE superhero_name LIKE 'Batman';\n";

const skip = editorMissing();

describe('VES Lens on SQLite as WebAssembly in the real VS Code (the .vsix without its native module)', { skip, timeout: 600_000 }, () => {
  let server: RunningCodeServer;
  let browser: BrowserContext;
  let page: Page;
  let step = 0;
  const shot = async (name: string) => page.screenshot({ path: path.join(SHOTS, `${String(++step).padStart(2, '0')}-${name}.png`) });

  before(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    // npm test packages first; run alone, the test packages what is checked out.
    if (!process.env.npm_lifecycle_event) {
      const pack = spawnSync('npm', ['run', 'package'], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(pack.status, 0, pack.stderr);
    }
    // The same files but the native module's binary (as the universal .vsix, scripts/release/buildTarget.sh).
    const dir = tempDir('ves-lens-vsix-');
    const ignore = path.join(dir, '.vscodeignore');
    const rules = fs.readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8').split('\n');
    fs.writeFileSync(ignore, rules.filter((rule) => !rule.endsWith('vscode-sqlite3.node')).join('\n'));
    const vsix = path.join(dir, 'ves-lens-no-native.vsix');
    const pack = spawnSync('npx', ['vsce', 'package', '--no-rewrite-relative-links', '--ignoreFile', ignore, '--out', vsix], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    assert.equal(pack.status, 0, pack.stderr);
    const listing = spawnSync('npx', ['vsce', 'ls', '--ignoreFile', ignore], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout;
    assert.doesNotMatch(listing, /vscode-sqlite3\.node/);
    assert.match(listing, /dist\/sqlite3\.wasm/);
    assert.match(listing, /node_modules\/@vscode\/sqlite3\/lib\//);
    const workspace = sampleWorkspace({ 'predicted.sql': SCORE_SQL, 'plan.sql': PLAN_SQL });
    // No scaled copies: writing them needs node-sqlite3 (install.md), and ×100 takes minutes.
    // VES_LENS_SQLITE unset: the fallback is chosen because the module does not load, not because it was asked for.
    server = await startCodeServer({ workspace, vsix, env: { VES_LENS_SQLITE: '' }, settings: { 'vesLens.scales': [] } });
    browser = await launchChromium();
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("attaches the dataset; the status bar says SQLite runs as WebAssembly, its tooltip the loader's reason", async () => {
    await openFile(page, 'predicted.sql'); // activates the extension
    const offer = toast(page, 'this workspace has a BIRD dataset');
    await offer.waitFor({ timeout: 60_000 });
    await offer.locator('.monaco-button', { hasText: /^Attach$/ }).click();
    const status = page.locator('.statusbar-item', { hasText: 'mini_dev_superhero.json' });
    await status.waitFor({ timeout: 60_000 });
    assert.match(await status.innerText(), /52 q · 1\/1 db · SQLite 3\.\d+\.\d+ WebAssembly/);
    await status.hover();
    const tooltip = page.locator('.workbench-hover, .monaco-hover', { hasText: 'VES Lens dataset' }).first();
    await tooltip.waitFor({ timeout: 10_000 });
    const reason = await tooltip.innerText();
    assert.match(reason, /SQL runs on SQLite 3\.\d+\.\d+/);
    assert.match(reason, /SQLite runs as WebAssembly here: timings by VES Lens's own clock are WebAssembly's/);
    assert.match(reason, /does not load here: Cannot find module .*vscode-sqlite3\.node/);
    await shot('status-bar-webassembly');
    await page.mouse.move(700, 400);
  });

  it('scores a prediction: correct, EX 1, Soft-F1 1, timed, both results and plans', async () => {
    await page.locator('.tab', { hasText: 'predicted.sql' }).first().click();
    const lens = lenses(page, 'Score against gold').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    const first = await waitForWebview(page, /Question 717[\s\S]*outcome\s+correct[\s\S]*EX\s+1/i);
    assert.match(first, /Soft-F1\s+1\.000/i);
    const timed = await waitForWebview(
      page,
      /VES time ratio\s+first row, as the VES script times it\s+[\d.]+×\s+estimated interval [\d.]+–[\d.]+× \(95 %, \d+ blocks of this run\)/i,
      180_000,
    );
    assert.match(timed, /Results\s+gold · 1 column · 4 rows\s+power_name\s+Agility[\s\S]*prediction · 1 column · 4 rows\s+power_name/);
    assert.match(timed, /Plans\s+the plans differ: rule cost \d+ \(gold\) vs \d+ \(prediction\)/);
    const panel = await webviewFrameWith(page, '#rerun');
    assert.ok((await panel.locator('.plan-compare .plan-node').count()) >= 6, 'a card per plan step (EXPLAIN QUERY PLAN)');
    await assertPanelsClean(page);
    await shot('score-panel');
  });

  it('explains a plan on the WebAssembly build', async () => {
    await openFile(page, 'plan.sql');
    const lens = lenses(page, 'Explain').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    const text = await waitForWebview(page, /^Query plan · plan\.sql, line 2/);
    assert.match(text, /database superhero · SQLite 3\.\d+\.\d+ \(WebAssembly\) · follows edits to the statement/);
    assert.match(text, /SCAN\s+superhero/);
    await shot('plan-panel');
  });

  it("evaluates the sample's prediction file: the same EX as on native SQLite (40 of 52, 76.92)", async () => {
    await openFile(page, 'predict_gpt-4_superhero.json');
    await runCommand(page, 'VES Lens: Evaluate a Prediction File');
    const report = await waitForWebview(
      page,
      /Evaluation report[\s\S]*count\s+14\s+26\s+12\s+52[\s\S]*EX\s+85\.71\s+80\.77\s+58\.33\s+76\.92/,
      300_000,
    );
    assert.match(report, /52 of 52 questions shown/);
    const frame = await webviewFrameWith(page, 'table.questions', /predict_gpt-4_superhero\.json/);
    await frame.locator('#search').fill('dual');
    assert.match(
      await frame.locator('table.questions tbody tr').first().innerText(),
      /744\s+superhero\s+challenging\s+prediction error[\s\S]*no such table: dual/,
    );
    await shot('report');
  });
});
