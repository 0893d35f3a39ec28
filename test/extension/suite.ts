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

/** A diagnostic's rule id (with a codeDescription, VS Code gives the code as { value, target }). */
const ruleOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

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
  const diagnostics = await until('VL006 diagnostic', () => vscode.languages.getDiagnostics(editor.document.uri).find((d) => ruleOf(d) === 'VL006'));
  assert.equal(editor.document.getText(diagnostics.range), "LIKE 'Batman'");
  assert.equal(diagnostics.source, 'VES Lens');
});

test('offers the verified rewrite and the ignore comment as quick fixes', async () => {
  const editor = await open('hints.sql');
  const diagnostic = vscode.languages.getDiagnostics(editor.document.uri).find((d) => ruleOf(d) === 'VL006')!;
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
  const diagnostic = vscode.languages.getDiagnostics((await open('hints.sql')).document.uri).find((d) => ruleOf(d) === 'VL006');
  const target = typeof diagnostic?.code === 'object' ? diagnostic.code.target.toString() : '';
  assert.match(target, /docs\/rules\/VL006\.md$/, 'the rule id links to its doc');
  const titles = lenses.map((l) => l.command?.title ?? '');
  assert.ok(titles.some((t) => /Score against gold \(question 717\)/.test(t)), titles.join(' | '));
  assert.ok(titles.some((t) => /Explain/.test(t)));
});

test('code lenses switch off with vesLens.codeLens.enabled', async () => {
  const editor = await open('predicted.sql');
  const config = vscode.workspace.getConfiguration('vesLens');
  await config.update('codeLens.enabled', false, vscode.ConfigurationTarget.Workspace);
  try {
    // The server takes the setting as it changes: the lenses go without a reload.
    await until('no lenses', async () => (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri)).length === 0);
  } finally {
    await config.update('codeLens.enabled', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

test('a question opens as one read-only document, the same on every click, gold formatted', async () => {
  const question = { index: 0, questionId: 717, dbId: 'superhero', difficulty: 'simple', question: 'Please list all the superpowers of 3-D Man.', evidence: '', gold: '' };
  await vscode.commands.executeCommand('vesLens.openQuestion', question);
  const first = vscode.window.activeTextEditor!.document;
  await vscode.commands.executeCommand('vesLens.openQuestion', question);
  const second = vscode.window.activeTextEditor!.document;
  assert.equal(first.uri.scheme, 'ves-lens-question');
  assert.equal(first, second, 'one document per question');
  assert.equal(first.isUntitled, false);
  assert.equal(first.isDirty, false);
  assert.equal(first.languageId, 'sql');
  assert.match(first.getText(), /^-- bird: 717\n[\s\S]*SELECT\n  T3\.power_name\nFROM/);
  const untitled = vscode.workspace.textDocuments.filter((d) => d.isUntitled);
  assert.equal(untitled.length, 0, 'no Untitled editor was opened');
});

test('settings take effect without a reload: a rule switched off leaves the Problems panel', async () => {
  const editor = await open('hints.sql');
  await until('VL006 diagnostic', () => vscode.languages.getDiagnostics(editor.document.uri).find((d) => ruleOf(d) === 'VL006'));
  const config = vscode.workspace.getConfiguration('vesLens');
  await config.update('rules', { VL006: 'off' }, vscode.ConfigurationTarget.Workspace);
  try {
    await until('VL006 gone', () => !vscode.languages.getDiagnostics(editor.document.uri).some((d) => ruleOf(d) === 'VL006'));
  } finally {
    await config.update('rules', undefined, vscode.ConfigurationTarget.Workspace);
  }
  await until('VL006 back', () => vscode.languages.getDiagnostics(editor.document.uri).some((d) => ruleOf(d) === 'VL006'));
});

test('every command is registered, the log command included', async () => {
  const commands = await vscode.commands.getCommands(true);
  for (const id of ['vesLens.attachDataset', 'vesLens.evaluatePredictionFile', 'vesLens.explainGold', 'vesLens.timeGold', 'vesLens.showOutput', 'vesLens.restartServer', 'vesLens.applyAllRewrites']) {
    assert.ok(commands.includes(id), id);
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
