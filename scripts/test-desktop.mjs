// The same extension suite in desktop VS Code, through @vscode/test-electron. It downloads VS Code, so it
// runs where that is possible (not on these CI machines: see docs/architecture.md (Tests)); here the suite
// runs in code-server's extension host instead (test/e2e/extensionHost.test.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runTests } from '@vscode/test-electron';

const root = resolve(import.meta.dirname, '..');
execFileSync(process.execPath, [join(root, 'esbuild.js'), '--extension-tests'], { stdio: 'inherit' });
const workspace = mkdtempSync(join(tmpdir(), 'ves-lens-desktop-'));
cpSync(join(root, 'sample'), workspace, { recursive: true });
for (const [name, text] of Object.entries(JSON.parse(readFileSync(join(root, 'test', 'extension', 'workspaceFiles.json'), 'utf8'))))
  writeFileSync(join(workspace, name), text);
await runTests({
  extensionDevelopmentPath: root,
  extensionTestsPath: join(root, 'out', 'test', 'extension', 'suite.js'),
  launchArgs: [workspace, '--disable-extensions'],
});
