// "Find a faster equivalent" in the real VS Code (code-server + Chromium), as a person uses it: the lens on a slow
// statement of the superhero sample (a correlated COUNT per hero), the search's notification, the Optimize panel
// with its diff, proof status and speed-up, light and dark, then Apply, which puts the rewrite in the document.
// Screenshots go to test-results/e2e-optimize/ (VES_LENS_E2E_SHOTS: another folder).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT } from '../helpers';
import { editorMissing, RunningCodeServer, sampleWorkspace, startCodeServer } from './codeServer';
import {
  assertPanelsClean,
  launchChromium,
  lenses,
  openFile,
  pickTheme,
  runCommand,
  toast,
  waitForWebview,
  webviewFrameWith,
} from './workbench';

const SHOTS = process.env.VES_LENS_E2E_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'e2e-optimize');
const VSIX = path.join(REPO_ROOT, 'ves-lens.vsix');
const SLOW_SQL =
  '-- db: superhero\nSELECT s.superhero_name FROM superhero s WHERE (SELECT COUNT(*) FROM hero_power hp WHERE hp.hero_id = s.id) > 30;\n';

describe('Find a faster equivalent in the real VS Code (code-server + Chromium)', { skip: editorMissing(), timeout: 600_000 }, () => {
  let server: RunningCodeServer;
  let browser: BrowserContext;
  let page: Page;
  let step = 0;
  const shot = async (name: string) => page.screenshot({ path: path.join(SHOTS, `${String(++step).padStart(2, '0')}-${name}.png`) });

  before(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    if (!process.env.npm_lifecycle_event) {
      const pack = spawnSync('npm', ['run', 'package'], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(pack.status, 0, pack.stderr);
    }
    const workspace = sampleWorkspace({ 'slow.sql': SLOW_SQL });
    server = await startCodeServer({
      workspace,
      vsix: VSIX,
      env: { FORCE_COLOR: '1', CI: 'true' },
      settings: { 'workbench.colorTheme': 'Default Light Modern', 'vesLens.optimize.counterexampleSeconds': 3 },
    });
    browser = await launchChromium();
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('finds the VL021 rewrite from the lens, shows it diffed with its proof and speed-up (light and dark), and applies it', async () => {
    await openFile(page, 'slow.sql');
    const offer = toast(page, 'this workspace has a BIRD dataset');
    await offer.waitFor({ timeout: 60_000 });
    await offer.locator('.monaco-button', { hasText: /^Attach$/ }).click();
    await page.locator('.statusbar-item', { hasText: 'mini_dev_superhero.json' }).waitFor({ timeout: 30_000 });

    const lens = lenses(page, 'Find a faster equivalent').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    await toast(page, 'looking for a faster equivalent of slow.sql').waitFor({ timeout: 20_000 });
    await shot('optimize-searching');
    const text = await waitForWebview(page, /^Faster equivalent · slow\.sql, line 2[\s\S]*SPEED-UP AT ×1/i, 120_000);
    assert.match(text, /database superhero · SQLite 3\.\d+\.\d+ · decided at ×1/);
    assert.match(text, /PROOF\s+by rule/i);
    assert.match(text, /PATTERNS\s+VL021/i);
    assert.match(text, /The rewrite against the original \d+ lines? out, \d+ lines? in/);
    assert.doesNotMatch(text, /undefined|NaN|\u001b|\[object/);
    const frame = await webviewFrameWith(page, 'pre.sql-diff');
    assert.ok((await frame.locator('.diff-added').count()) > 0);
    // The panel alone, as wide as the window.
    await page.locator('.tab', { hasText: 'Faster: slow.sql' }).first().click();
    await page.mouse.move(700, 995);
    await runCommand(page, 'View: Toggle Maximize Editor Group');
    await page.waitForTimeout(600);
    await shot('optimize-panel-light');
    await pickTheme(page, 'Dark Modern');
    await page.waitForTimeout(600);
    await shot('optimize-panel-dark');
    await runCommand(page, 'View: Toggle Maximize Editor Group');
    await assertPanelsClean(page);

    await frame.locator('#apply').click();
    await page.locator('.tab', { hasText: 'slow.sql' }).first().click();
    await page.locator('.view-lines', { hasText: 'LEFT JOIN' }).first().waitFor({ timeout: 20_000 });
    const editorText = await page.locator('.view-lines').first().innerText();
    assert.match(editorText.replace(/\s+/g, ' '), /-- db: superhero SELECT s\.superhero_name FROM superhero s LEFT JOIN \(SELECT/);
    await shot('optimize-applied');
  });
});
