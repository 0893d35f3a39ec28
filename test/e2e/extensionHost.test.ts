import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { REPO_ROOT, tempDir } from '../helpers';
import { CHROMIUM, editorMissing, sampleWorkspace, startCodeServer } from './codeServer';

const SUITE = path.join(REPO_ROOT, 'out', 'test', 'extension', 'suite.js');

describe('extension tests inside the real extension host of code-server', { skip: editorMissing(), timeout: 300_000 }, () => {
  it('runs test/extension/suite.ts with the extension loaded from this checkout', async () => {
    const build = spawnSync(process.execPath, [path.join(REPO_ROOT, 'esbuild.js'), '--extension-tests'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, build.stderr);
    const results = path.join(tempDir(), 'results.json');
    // The files the suite opens; the desktop launcher (scripts/test-desktop.mjs) writes the same ones.
    const workspace = sampleWorkspace(
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'extension', 'workspaceFiles.json'), 'utf8')),
    );
    const server = await startCodeServer({ workspace, env: { VES_LENS_EXTENSION_TEST_RESULTS: results } });
    const browser = await chromium.launchPersistentContext(tempDir('ves-lens-chromium-'), {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      // What @vscode/test-electron does on the desktop: a development extension plus a tests entry, as a payload.
      const remote = (file: string) => `vscode-remote://127.0.0.1:${server.port}${file}`;
      const payload = JSON.stringify([
        ['extensionDevelopmentPath', remote(REPO_ROOT)],
        ['extensionTestsPath', remote(SUITE)],
      ]);
      const page = browser.pages()[0] ?? (await browser.newPage());
      await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`);
      const deadline = Date.now() + 180_000;
      while (!fs.existsSync(results) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
      assert.ok(fs.existsSync(results), 'the suite reported back from the extension host');
      const outcome: { name: string; ok: boolean; error?: string }[] = JSON.parse(fs.readFileSync(results, 'utf8'));
      assert.ok(outcome.length >= 7);
      assert.deepEqual(
        outcome.filter((r) => !r.ok),
        [],
      );
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
