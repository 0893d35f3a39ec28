// Runs inside VS Code's extension host (code-server here, desktop VS Code through @vscode/test-electron):
// the extension's behaviour through the public vscode API. Results go to VES_LENS_EXTENSION_TEST_RESULTS
// (a browser-hosted workbench has no exit code to report through), and run() rejects on any failure.
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

const tests: [string, () => Promise<void>][] = [];
const test = (name: string, body: () => Promise<void>) => tests.push([name, body]);

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const open = async (name: string) => vscode.window.showTextDocument(await vscode.workspace.openTextDocument(path.join(workspace(), name)));

test('activates on a .sql file', async () => {
  await open('hints.sql');
  const extension = vscode.extensions.getExtension('ves-lens.ves-lens');
  assert.ok(extension, 'extension ves-lens.ves-lens is installed');
  await until('activation', () => extension.isActive);
});

test('attaches the workspace sample as a dataset', async () => {
  const dataset = { questionsFile: path.join(workspace(), 'mini_dev_superhero.json'), goldFile: path.join(workspace(), 'mini_dev_superhero_gold.sql'), dbRoot: workspace() };
  await vscode.commands.executeCommand('vesLens.attachDataset', dataset);
});

test('publishes rewrite hints as diagnostics with the rule id', async () => {
  const editor = await open('hints.sql');
  const diagnostics = await until('VL006 diagnostic', () => vscode.languages.getDiagnostics(editor.document.uri).find((d) => d.code === 'VL006'));
  assert.equal(editor.document.getText(diagnostics.range), "LIKE 'Batman'");
  assert.equal(diagnostics.source, 'VES Lens');
});

test('offers the verified rewrite and the ignore comment as quick fixes', async () => {
  const editor = await open('hints.sql');
  const diagnostic = vscode.languages.getDiagnostics(editor.document.uri).find((d) => d.code === 'VL006')!;
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', editor.document.uri, diagnostic.range);
  const titles = actions.map((a) => a.title);
  assert.ok(titles.includes('Verify and apply the VL006 rewrite'), titles.join(' | '));
  assert.ok(titles.includes('Ignore VL006 for this statement'), titles.join(' | '));
});

test('shows Score against gold, Explain and Hints code lenses', async () => {
  const editor = await open('predicted.sql');
  const lenses = await until('code lenses', async () => {
    const found = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
    return found.some((l) => /Score against gold/.test(l.command?.title ?? '')) ? found : undefined;
  });
  const titles = lenses.map((l) => l.command?.title ?? '');
  assert.ok(titles.some((t) => /Score against gold \(question 717\)/.test(t)), titles.join(' | '));
  assert.ok(titles.some((t) => /Explain/.test(t)));
});

test('code lenses switch off with vesLens.codeLens.enabled', async () => {
  const editor = await open('predicted.sql');
  const config = vscode.workspace.getConfiguration('vesLens');
  await config.update('codeLens.enabled', false, vscode.ConfigurationTarget.Workspace);
  try {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
    assert.equal(lenses.length, 0);
  } finally {
    await config.update('codeLens.enabled', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

test('hovers a table with its row count', async () => {
  const editor = await open('hints.sql');
  const offset = editor.document.getText().indexOf('FROM superhero') + 7;
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, editor.document.positionAt(offset));
  const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
  assert.match(text, /superhero\*\*: 750 rows/);
});

export async function run(): Promise<void> {
  const results: { name: string; ok: boolean; error?: string }[] = [];
  for (const [name, body] of tests) {
    try {
      await body();
      results.push({ name, ok: true });
    } catch (error) {
      results.push({ name, ok: false, error: String((error as Error)?.stack ?? error) });
    }
  }
  const target = process.env.VES_LENS_EXTENSION_TEST_RESULTS;
  if (target) fs.writeFileSync(target, JSON.stringify(results, null, 2));
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`${failed.length} extension test(s) failed: ${failed.map((f) => f.name).join(', ')}`);
}
