// Runs inside VS Code's extension host (code-server here, desktop VS Code through @vscode/test-electron):
// the extension's behaviour through the public vscode API. Results go to VES_LENS_EXTENSION_TEST_RESULTS
// (a browser-hosted workbench has no exit code to report through), and run() rejects on any failure.
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { ScoreParams, ScoreRequest, ScoreResult } from '../../src/shared/protocol';
import { startEmbeddingsServer } from '../fakeEmbeddingsServer';

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
  const dataset = {
    questionsFile: path.join(workspace(), 'mini_dev_superhero.json'),
    goldFile: path.join(workspace(), 'mini_dev_superhero_gold.sql'),
    dbRoot: workspace(),
  };
  await vscode.commands.executeCommand('vesLens.attachDataset', dataset);
});

test('publishes rewrite hints as diagnostics with the rule id', async () => {
  const editor = await open('hints.sql');
  const diagnostics = await until('VL006 diagnostic', () =>
    vscode.languages.getDiagnostics(editor.document.uri).find((d) => ruleOf(d) === 'VL006'),
  );
  assert.equal(editor.document.getText(diagnostics.range), "LIKE 'Batman'");
  assert.equal(diagnostics.source, 'VES Lens');
});

test('offers the verified rewrite and the ignore comment as quick fixes', async () => {
  const editor = await open('hints.sql');
  const diagnostic = vscode.languages.getDiagnostics(editor.document.uri).find((d) => ruleOf(d) === 'VL006')!;
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    'vscode.executeCodeActionProvider',
    editor.document.uri,
    diagnostic.range,
  );
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
  assert.ok(
    titles.some((t) => /Score against gold \(question 717\)/.test(t)),
    titles.join(' | '),
  );
  assert.ok(titles.some((t) => /Explain/.test(t)));
});

test('code lenses switch off with vesLens.codeLens.enabled', async () => {
  const editor = await open('predicted.sql');
  const config = vscode.workspace.getConfiguration('vesLens');
  await config.update('codeLens.enabled', false, vscode.ConfigurationTarget.Workspace);
  try {
    // The server takes the setting as it changes: the lenses go without a reload.
    await until(
      'no lenses',
      async () =>
        (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri)).length === 0,
    );
  } finally {
    await config.update('codeLens.enabled', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

test('a question opens as one read-only document, the same on every click, gold formatted', async () => {
  const question = {
    index: 0,
    questionId: 717,
    dbId: 'superhero',
    difficulty: 'simple',
    question: 'Please list all the superpowers of 3-D Man.',
    evidence: '',
    gold: '',
  };
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

test('timing a gold alone opens its own Timing panel: the Plan panel keeps the plan it shows', async () => {
  const gold =
    "SELECT T3.power_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'";
  const question = {
    index: 0,
    questionId: 717,
    dbId: 'superhero',
    difficulty: 'simple',
    question: 'Please list all the superpowers of 3-D Man.',
    evidence: '',
    gold,
  };
  const tabs = () => vscode.window.tabGroups.all.flatMap((group) => group.tabs.map((tab) => tab.label));
  await vscode.commands.executeCommand('vesLens.explainGold', question);
  await until('the Plan panel', () => tabs().includes('Plan: gold of question 717'));
  await vscode.commands.executeCommand('vesLens.timeGold', question);
  await until('the Timing panel', () => tabs().includes('Time: gold of question 717'));
  assert.ok(tabs().includes('Plan: gold of question 717'), `the plan stays beside the timing: ${tabs().join(' | ')}`);
});

test('every command is registered, the log command included', async () => {
  const commands = await vscode.commands.getCommands(true);
  for (const id of [
    'vesLens.attachDataset',
    'vesLens.evaluatePredictionFile',
    'vesLens.compareReports',
    'vesLens.explainGold',
    'vesLens.timeGold',
    'vesLens.showOutput',
    'vesLens.restartServer',
    'vesLens.applyAllRewrites',
    'vesLens.judge',
    'vesLens.setJudgeApiKey',
    'vesLens.clearJudgeApiKey',
  ]) {
    assert.ok(commands.includes(id), id);
  }
});

test('hovers a table with its row count', async () => {
  const editor = await open('hints.sql');
  const offset = editor.document.getText().indexOf('FROM superhero') + 7;
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
    'vscode.executeHoverProvider',
    editor.document.uri,
    editor.document.positionAt(offset),
  );
  const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
  assert.match(text, /superhero\*\*: 750 rows/);
});

// ---- the Judge with a chat model of VS Code's language-model API ----------------------------------------
// VS Code 1.90–1.100 has no stable API to register a chat model provider, so these hand the extension stand-in
// models through its exported seam (useChatModelsForTests, src/extension/languageModels.ts); the LanguageModel*
// classes and errors are VS Code's own. The last test uses the real vscode.lm, which has no model here.

type JudgeApi = {
  useChatModelsForTests(
    models: { selectChatModels(selector?: vscode.LanguageModelChatSelector): Thenable<vscode.LanguageModelChat[]> } | undefined,
  ): void;
};
type JudgeOutcome = {
  result?: {
    judge: {
      score: number | null;
      usage: { prompt_tokens: number; completion_tokens: number };
      refuter: { gold_correct: boolean | null } | null;
    };
    model: string;
  };
  error?: string;
};

/** A message's text: a string in VS Code 1.90's types, a list of parts (LanguageModelTextPart) in later versions. */
const textOf = (message: vscode.LanguageModelChatMessage): string => {
  const content = message.content as unknown;
  return typeof content === 'string'
    ? content
    : (content as { value?: unknown }[]).map((part) => (typeof part.value === 'string' ? part.value : '')).join('');
};

/** A chat model answering from a script, streaming its reply in pieces, as a vscode.lm model does. */
function fakeChatModel(answer: (messages: vscode.LanguageModelChatMessage[]) => string | Error, family = 'fake') {
  const seen: vscode.LanguageModelChatMessage[][] = [];
  const model = {
    id: `${family}-model-1`,
    name: 'Fake Model',
    vendor: 'ves-lens-test',
    family,
    version: '1',
    maxInputTokens: 100_000,
    sendRequest: async (messages: vscode.LanguageModelChatMessage[]) => {
      seen.push(messages);
      const reply = answer(messages);
      if (reply instanceof Error) throw reply;
      return {
        text: (async function* () {
          for (let i = 0; i < reply.length; i += 7) yield reply.slice(i, i + 7);
        })(),
      };
    },
    countTokens: async (text: string | vscode.LanguageModelChatMessage) =>
      Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4),
  } as unknown as vscode.LanguageModelChat;
  return { model, seen };
}

async function judgeLens(): Promise<JudgeOutcome> {
  const editor = await open('predicted.sql');
  const lens = await until('the Judge lens', async () =>
    (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri)).find(
      (l) => l.command?.command === 'vesLens.judge',
    ),
  );
  assert.equal(lens.command!.title, '$(law) Judge');
  return vscode.commands.executeCommand<JudgeOutcome>('vesLens.judge', ...(lens.command!.arguments ?? []));
}

const judgeApi = () => vscode.extensions.getExtension('ves-lens.ves-lens')!.exports as JudgeApi;
const refuterUpholds = JSON.stringify({
  judgement: 'equivalent to the gold',
  overturn: false,
  ambiguity: 'ambiguous question',
  gold_correct: false,
});

test('Judge asks the vscode.lm model the settings select, with the system prompt folded into the first user message', async () => {
  const { model, seen } = fakeChatModel(() => '```json\n' + refuterUpholds + '\n```');
  const selectors: (vscode.LanguageModelChatSelector | undefined)[] = [];
  judgeApi().useChatModelsForTests({ selectChatModels: async (selector) => (selectors.push(selector), [model]) });
  const config = vscode.workspace.getConfiguration('vesLens');
  await config.update('judge.vendor', 'ves-lens-test', vscode.ConfigurationTarget.Workspace);
  try {
    const outcome = await judgeLens();
    assert.equal(outcome.error, undefined, outcome.error);
    assert.equal(outcome.result!.judge.score, 1, 'results match and the Refuter upholds');
    assert.equal(outcome.result!.model, 'vscode-lm:ves-lens-test/fake');
    assert.equal(outcome.result!.judge.refuter!.gold_correct, false, 'the gold-fault flag reaches the editor');
    assert.ok(outcome.result!.judge.usage.prompt_tokens > 100, "tokens counted with the model's own tokenizer");
    assert.deepEqual(selectors.at(-1), { vendor: 'ves-lens-test' });
    const messages = seen.at(-1)!;
    assert.equal(messages.length, 1);
    assert.equal(messages[0].role, vscode.LanguageModelChatMessageRole.User);
    assert.match(textOf(messages[0]), /^You are the Refuter[\s\S]*\n\n/, 'the system prompt heads the first user message');
    // The reply is cached in the extension's storage: judging the same prediction again asks nothing.
    const again = await judgeLens();
    assert.equal(again.result!.judge.score, 1);
    assert.equal(seen.length, 1, 'no second request');
  } finally {
    await config.update('judge.vendor', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

test('Judge says clearly when VES Lens may not use the model (LanguageModelError.NoPermissions), without a stack', async () => {
  const { model } = fakeChatModel(() => vscode.LanguageModelError.NoPermissions('consent declined'), 'fake-denied');
  judgeApi().useChatModelsForTests({ selectChatModels: async () => [model] });
  const outcome = await judgeLens();
  assert.equal(outcome.result, undefined);
  assert.match(outcome.error ?? '', /^VES Lens may not use Fake Model: the request was not allowed .*"vesLens\.judge\.provider": "openai"/);
  assert.doesNotMatch(outcome.error ?? '', /\n\s+at /);
});

test('Judge with no chat model in VS Code (the real vscode.lm here) says so and points at the openai settings', async () => {
  judgeApi().useChatModelsForTests(undefined);
  const outcome = await judgeLens();
  assert.equal(outcome.result, undefined);
  assert.match(
    outcome.error ?? '',
    /^no chat model is available in VS Code: .*set "vesLens\.judge\.provider" to "openai" with vesLens\.judge\.url and vesLens\.judge\.model/,
  );
});

// ---- SQLMorph's techniques: the embeddings key from SecretStorage to the endpoint ----------------------------
// A loopback /v1/embeddings server in this extension host; the key goes into the extension's real SecretStorage
// (as "Set Embeddings API Key" stores it: its password box cannot be typed into from here), the settings through
// the configuration API, and the score through the running language client.

type TechniquesApi = {
  client(): Promise<{ sendRequest(method: string, params: ScoreParams): Promise<ScoreResult> }>;
  storeSecretForTests?(name: 'embeddingsApiKey', value: string): Thenable<void>;
};

test("the embeddings API key goes from SecretStorage to the endpoint's Authorization header; the settings are live; Clear removes it", async () => {
  const KEY = 'sk-from-secret-storage-2718';
  const api = vscode.extensions.getExtension('ves-lens.ves-lens')!.exports as TechniquesApi;
  assert.ok(api.storeSecretForTests, 'an extension test run can store a key');
  const commands = await vscode.commands.getCommands(true);
  assert.ok(commands.includes('vesLens.setEmbeddingsApiKey') && commands.includes('vesLens.clearEmbeddingsApiKey'));
  const endpoint = await startEmbeddingsServer();
  const config = vscode.workspace.getConfiguration('vesLens');
  const JOIN =
    "FROM superhero AS T1 JOIN hero_power AS T2 ON T1.id = T2.hero_id JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'";
  // By the method's name: this bundle's message types are not the extension's (a type from another bundle is refused).
  const score = async (sql: string) =>
    (await api.client()).sendRequest(ScoreRequest.method, { sql, questionId: 717, phase: 'correctness' });
  try {
    await api.storeSecretForTests!('embeddingsApiKey', KEY);
    await config.update('embeddings.provider', 'openai', vscode.ConfigurationTarget.Workspace);
    await config.update('embeddings.url', endpoint.url, vscode.ConfigurationTarget.Workspace);
    await config.update('embeddings.model', 'fake-embedding', vscode.ConfigurationTarget.Workspace);
    // The settings reach the server as they change (no reload): the next scores embed with them.
    const result = await until('a score with the new embedding settings', async () => {
      const scored = await score(`SELECT T3.power_name, T3.id ${JOIN}`);
      return scored.techniques?.embeddings?.provider === 'openai' ? scored : undefined;
    });
    assert.ok(endpoint.requests.length > 0, 'the endpoint was asked');
    assert.deepEqual([...new Set(endpoint.requests.map((r) => r.auth))], [`Bearer ${KEY}`]);
    assert.ok(endpoint.requests.every((r) => r.body.model === 'fake-embedding'));
    const semantic = result.techniques!.techniques.find((t) => t.name === 'semantic_column_and_partial_cell')!;
    assert.ok(!('error' in semantic.score), JSON.stringify(semantic.score));
    assert.equal(semantic.columns?.length, 1, 'the one gold column paired with one of the two predicted ones');

    // "Clear Embeddings API Key", the real command: the next request carries no key.
    await vscode.commands.executeCommand('vesLens.clearEmbeddingsApiKey');
    endpoint.requests.length = 0;
    await score(`SELECT T3.power_name AS power, T3.id AS power_id ${JOIN}`); // other names: texts the cache does not hold
    assert.ok(endpoint.requests.length > 0);
    assert.deepEqual([...new Set(endpoint.requests.map((r) => r.auth))], [undefined]);
  } finally {
    await vscode.commands.executeCommand('vesLens.clearEmbeddingsApiKey');
    for (const key of ['embeddings.provider', 'embeddings.url', 'embeddings.model'])
      await config.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    await endpoint.close();
  }
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
