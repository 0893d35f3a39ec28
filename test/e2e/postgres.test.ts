// The extension on PostgreSQL in the real VS Code (code-server + Chromium), as a person uses it (issue 18): a
// throwaway PostgreSQL 15 cluster holding the superhero database as `ves-lens load` builds it, reached as a role
// that must give a password; the workspace's settings say vesLens.engine postgres and the server's URL (no
// password). Attaching the sample with mini-dev's official PostgreSQL gold says the password is missing; it is
// typed into the password box of "Set PostgreSQL Password"; then a PostgreSQL statement is scored, explained and
// hinted (its quick fix verified on the server), the question's document shows the PostgreSQL gold, and every
// panel is drawn again in the dark theme. The password never reaches a panel, the status bar or the log.
// Screenshots in test-results/e2e-postgres/.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, beforeEach, describe, it as itStep } from 'node:test';
import { BrowserContext, Page } from 'playwright-core';
import { LocalCluster, localClusterMissing } from '../../src/core/db/postgres/localCluster';
import { birdDataMissing, REPO_ROOT, tempDir } from '../helpers';
import { passwordRole, SAMPLE, startSuperheroCluster, superheroPostgresGold } from '../server/postgresFixtures';
import { editorMissing, RunningCodeServer, startCodeServer } from './codeServer';
import {
  assertPanelsClean,
  clearNotifications,
  launchChromium,
  lenses,
  openFile,
  pickTheme,
  runCommand,
  toast,
  waitForWebview,
  waitInFrame,
  webviewFrameWith,
  webviewText,
} from './workbench';

const SHOTS = `${process.env.VES_LENS_E2E_SHOTS ?? path.join(REPO_ROOT, 'test-results', 'e2e')}-postgres`;
const PASSWORD = 'typed-into-the-box-1414';

// Question 717 (the superpowers of 3-D Man) in PostgreSQL's own SQL (= ANY over an array, ILIKE): SQLite cannot run it.
const SCORE_SQL =
  "-- bird: 717\nSELECT sp.power_name\nFROM superpower sp\nWHERE sp.id = ANY (ARRAY(SELECT hp.power_id FROM hero_power hp JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name ILIKE '3-d man'));\n";
const HINT_SQL = "-- db: superhero\nSELECT id, full_name FROM superhero WHERE superhero_name LIKE 'Batman';\n";

const skip = editorMissing() || localClusterMissing() || birdDataMissing();

describe('VES Lens on PostgreSQL in the real VS Code (code-server + Chromium)', { skip, timeout: 600_000 }, () => {
  let cluster: LocalCluster;
  let url: string;
  let server: RunningCodeServer;
  let browser: BrowserContext;
  let page: Page;
  let step = 0;

  const shot = async (name: string) => page.screenshot({ path: path.join(SHOTS, `${String(++step).padStart(2, '0')}-${name}.png`) });
  const showTab = async (prefix: string) => {
    await page.locator('.tab', { hasText: prefix }).first().click();
    await page.mouse.move(700, 995);
    await page.waitForTimeout(300);
  };
  /** Nothing on screen, in a panel or in the status bar shows the password. */
  const assertNoPassword = async () => {
    const texts = [...(await webviewText(page)), await page.locator('.statusbar').innerText()];
    assert.ok(!texts.join('\n').includes(PASSWORD), 'the password is shown somewhere');
  };

  before(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    let vsix = path.join(REPO_ROOT, 'ves-lens.vsix');
    // npm test packages first; run alone, the test packages what is checked out (beside, not over, the walk's .vsix).
    if (!process.env.npm_lifecycle_event) {
      vsix = path.join(tempDir('ves-lens-vsix-'), 'ves-lens.vsix');
      const build = spawnSync(process.execPath, ['esbuild.js', '--production'], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(build.status, 0, build.stderr);
      const pack = spawnSync('npx', ['vsce', 'package', '--no-rewrite-relative-links', '--out', vsix], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      });
      assert.equal(pack.status, 0, pack.stderr);
    }
    cluster = startSuperheroCluster();
    url = passwordRole(cluster, 'annotator', PASSWORD);
    // mini-dev's PostgreSQL release: its question file and gold side by side (paired by name), superhero's SQLite file as the database folder.
    const workspace = tempDir('ves-lens-pg-workspace-');
    fs.copyFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), path.join(workspace, 'mini_dev_superhero_postgresql.json'));
    superheroPostgresGold(workspace);
    fs.mkdirSync(path.join(workspace, 'superhero'));
    fs.copyFileSync(path.join(SAMPLE, 'superhero', 'superhero.sqlite'), path.join(workspace, 'superhero', 'superhero.sqlite'));
    fs.writeFileSync(path.join(workspace, 'predicted.sql'), SCORE_SQL);
    fs.writeFileSync(path.join(workspace, 'hints.sql'), HINT_SQL);
    // The dataset's connection, in the workspace's settings: the URL without its password.
    fs.mkdirSync(path.join(workspace, '.vscode'));
    fs.writeFileSync(
      path.join(workspace, '.vscode', 'settings.json'),
      JSON.stringify({ 'vesLens.engine': 'postgres', 'vesLens.postgres.url': url }, null, 2),
    );
    server = await startCodeServer({
      workspace,
      vsix,
      env: { FORCE_COLOR: '1', CI: 'true' },
      settings: { 'workbench.colorTheme': 'Default Light Modern' },
    });
    browser = await launchChromium();
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  });

  const it = (name: string, body: () => Promise<void>) =>
    itStep(name, async () => {
      try {
        await body();
      } catch (error) {
        await page
          ?.screenshot({
            path: path.join(SHOTS, `${String(step).padStart(2, '0')}-FAILED-${name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}.png`),
          })
          .catch(() => undefined);
        throw error;
      }
    });

  beforeEach(async () => {
    await page?.keyboard.press('Escape');
    await page?.keyboard.press('Escape');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    cluster?.stop();
  });

  it('attaches the PostgreSQL gold; the server asks for a password, typed into a password box, and the status bar names the server', async () => {
    await openFile(page, 'predicted.sql');
    const offer = toast(page, 'this workspace has a BIRD dataset');
    await offer.waitFor({ timeout: 60_000 });
    assert.match(await offer.innerText(), /mini_dev_superhero_postgresql\.json/);
    await offer.locator('.monaco-button', { hasText: 'Attach' }).click();
    const problem = toast(page, 'its SQL cannot run');
    await problem.waitFor({ timeout: 30_000 });
    assert.match(
      await problem.innerText(),
      /the dataset is attached, but its SQL cannot run: PostgreSQL at postgresql:\/\/annotator@localhost:\d+\/bird\S* asks for a password, and none is stored for this URL/,
    );
    assert.match(await page.locator('.statusbar-item', { hasText: 'database engine unavailable' }).first().innerText(), /52 q/);
    await page.waitForTimeout(400); // the toast has slid in
    await shot('pg-password-missing');
    await problem.locator('.monaco-button', { hasText: 'Set PostgreSQL Password' }).click();
    const box = page.locator('.quick-input-widget input');
    await box.waitFor();
    assert.equal(await box.getAttribute('type'), 'password', 'the password is typed into a password box');
    assert.match(await page.locator('.quick-input-widget').innerText(), /The password for postgresql:\/\/annotator@localhost/);
    await box.fill(PASSWORD);
    await shot('pg-password-box');
    await page.keyboard.press('Enter');
    const connected = toast(page, 'the PostgreSQL password for');
    await connected.waitFor({ timeout: 30_000 });
    assert.match(await connected.innerText(), /stored in VS Code's secret storage; the dataset's SQL runs on PostgreSQL 15\.\d+/);
    const status = page.locator('.statusbar-item', { hasText: 'mini_dev_superhero_postgresql.json' });
    await status.filter({ hasText: 'PostgreSQL 15' }).first().waitFor({ timeout: 30_000 });
    assert.match(await status.first().innerText(), /52 q · 1\/1 db · PostgreSQL 15\.\d+$/);
    await page.waitForTimeout(400);
    await shot('pg-connected');
    await assertNoPassword();
    await clearNotifications(page);
  });

  it("scores a PostgreSQL statement against the PostgreSQL gold: EX, timing and both PostgreSQL plans, on the server's engine", async () => {
    await page.locator('.tab', { hasText: 'predicted.sql' }).first().click();
    const lens = lenses(page, 'Score against gold').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    const timed = await waitForWebview(page, /Question 717[\s\S]*outcome\s+correct[\s\S]*R-VES reward\s+[\d.]+/i, 120_000);
    assert.match(timed, /EX\s+1/);
    assert.match(
      timed,
      /SQL\s+gold\s+SELECT\s+T3\.power_name[\s\S]*prediction\s+SELECT\s+sp\.power_name\s+FROM\s+superpower sp\s+WHERE\s+sp\.id = ANY/,
    );
    assert.match(timed, /Results\s+gold · 1 column · 4 rows\s+power_name[\s\S]*prediction · 1 column · 4 rows/);
    assert.match(timed, /PostgreSQL 15\.\d+ .*\(server postgresql:\/\/annotator@localhost:\d+\/bird\S*, one-database layout\) · \d+ ms/);
    const panel = await webviewFrameWith(page, '#rerun');
    assert.ok((await panel.locator('.plan-compare .plan-node').count()) >= 2, 'a card per step of both PostgreSQL plans');
    await assertPanelsClean(page);
    await assertNoPassword();
    await shot('pg-score-panel');
    await panel.evaluate("document.querySelector('.plan-compare').scrollIntoView({ block: 'center' })");
    await page.waitForTimeout(300);
    await shot('pg-score-plans');
    await panel.evaluate('window.scrollTo(0, 0)');
  });

  it('explains a statement on the server: the Plan panel names PostgreSQL and draws its plan', async () => {
    await openFile(page, 'hints.sql');
    const lens = lenses(page, 'Explain').first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    const text = await waitForWebview(page, /^Query plan · hints\.sql, line 2/);
    assert.match(text, /database superhero · PostgreSQL 15\.\d+/);
    const panel = await webviewFrameWith(page, '.plan-tree');
    assert.ok((await panel.locator('.plan-node').count()) >= 1);
    await assertNoPassword();
    await shot('pg-plan-panel');
  });

  it("hints a statement and verifies the quick fix's rewrite on the server", async () => {
    await page.locator('.tab', { hasText: 'hints.sql' }).first().click();
    // VL006 is a note (issue 34), drawn as a hint, which F8 does not visit: the cursor goes into its range.
    await page.locator('.squiggly-hint, .squiggly-info, .squiggly-warning').first().waitFor({ state: 'attached', timeout: 30_000 });
    await page.locator('.view-lines .view-line', { hasText: "LIKE 'Batman'" }).first().click();
    await page.keyboard.press('End');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft'); // inside 'Batman', within the hint's range
    await shot('pg-hint-diagnostic');
    await page.keyboard.press('Control+.');
    const fix = page
      .locator('.action-widget .monaco-list-row, .context-view .action-item', { hasText: 'Verify and apply the VL006 rewrite' })
      .first();
    await fix.waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    const applied = page.locator('.view-lines', { hasText: "superhero_name = 'Batman'" });
    const anyway = toast(page, 'Apply anyway');
    await Promise.race([applied.waitFor({ timeout: 60_000 }), anyway.waitFor({ timeout: 60_000 })]);
    if (await anyway.isVisible()) {
      assert.match(
        await anyway.innerText(),
        // A timed pair may also be a first claim that a repeat did not confirm (verify.ts).
        /VL006 rewrite not applied: same rows; (same work|no measurable difference|the rewrite is slower|no difference that survives a repeat)/,
      );
      await shot('pg-rewrite-measured');
      await anyway.locator('.monaco-button', { hasText: 'Apply anyway' }).click();
    }
    await applied.waitFor({ timeout: 60_000 });
    await shot('pg-rewrite-applied');
    await clearNotifications(page);
  });

  it("opens a question's read-only document with the PostgreSQL gold", async () => {
    const tree = page.locator('.pane', { hasText: 'BIRD Explorer' }).first();
    if (!(await tree.isVisible())) await page.locator('.activitybar .action-item a[aria-label^="VES Lens"]').first().click();
    for (const label of ['superhero', 'simple']) {
      const row = tree.locator('.monaco-list-row', { hasText: label }).first();
      await row.waitFor({ timeout: 20_000 });
      if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
    }
    // Question 791: its PostgreSQL gold guards the division with NULLIF (the SQLite gold does not).
    await tree.locator('.monaco-list-row', { hasText: '791: ' }).first().click();
    const gold = page.locator('.view-lines', { hasText: 'Gold SQL (mini_dev_superhero_postgresql_gold.sql)' });
    await gold.waitFor({ timeout: 20_000 });
    assert.match(await page.locator('.editor-group-container.active .view-lines').innerText(), /NULLIF\(COUNT\(id\),\s0\)/);
    await shot('pg-question-document');
  });

  it('draws the Score and Plan panels in the dark theme; the log names the server, never the password', async () => {
    await pickTheme(page, 'Dark Modern');
    for (const [tab, selector, name] of [
      ['Score: ', '.plan-compare', 'score'],
      ['Plan: ', '.plan-tree', 'plan'],
    ] as const) {
      await showTab(tab);
      const frame = await webviewFrameWith(page, selector);
      await waitInFrame(frame, "document.body.classList.contains('vscode-dark')");
      await runCommand(page, 'View: Toggle Maximize Editor Group');
      await page.waitForTimeout(600);
      await shot(`pg-dark-${name}`);
      await runCommand(page, 'View: Toggle Maximize Editor Group');
    }
    await runCommand(page, 'VES Lens: Show the Log');
    const output = page.locator('.part.panel .view-lines');
    await output.filter({ hasText: 'PostgreSQL 15' }).first().waitFor({ timeout: 20_000 });
    assert.ok(!(await output.first().innerText()).includes(PASSWORD), 'the password is not in the log');
    await shot('pg-dark-log');
    await runCommand(page, 'View: Hide Panel');
    await assertPanelsClean(page);
    await assertNoPassword();
  });
});
