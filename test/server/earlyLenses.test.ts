// Lenses of a prediction file before its hints are counted: a client that can refresh lenses (VS Code) gets Score,
// Judge and Explain at once, without waiting for the databases and the hints, then a refresh that adds the counts.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers';
import { ServerProcess } from './lspClient';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const dataset = {
  questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
  goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  dbRoot: SAMPLE,
};
type Lens = { command: { title: string } };
const titles = (lenses: Lens[]) => lenses.map((lens) => lens.command.title);

describe('code lenses before the hints are counted (a client that refreshes lenses)', () => {
  const server = new ServerProcess();
  let refreshes = 0;
  before(async () => {
    server.connection.onRequest('workspace/codeLens/refresh', () => {
      refreshes++;
      return null;
    });
    await server.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: { workspace: { codeLens: { refreshSupport: true } } },
      initializationOptions: { dataset, trusted: true },
    });
    await server.connection.sendNotification('initialized', {});
  });
  after(() => server.stop());

  it('answers with Score, Judge and Explain first, then refreshes with the Hints lenses', async () => {
    const uri = 'file:///tmp/ves-lens-test/early.json';
    const text = JSON.stringify({ '0': "SELECT id FROM superhero WHERE superhero_name LIKE 'Batman'\t----- bird -----\tsuperhero" });
    await server.open(uri, 'json', text);
    const ask = () => server.connection.sendRequest<Lens[]>('textDocument/codeLens', { textDocument: { uri } });
    const first = titles(await ask());
    assert.ok(
      first.some((t) => /Score against gold \(question 717\)/.test(t)),
      first.join(' | '),
    );
    assert.ok(first.some((t) => /Judge/.test(t)) && first.some((t) => /Explain/.test(t)), first.join(' | '));
    const deadline = Date.now() + 10_000;
    while (refreshes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(refreshes > 0, 'the server asks the client to refresh its lenses once the hints are counted');
    const complete = titles(await ask());
    assert.ok(
      complete.some((t) => /Hints \(1\)/.test(t)),
      complete.join(' | '),
    );
    assert.deepEqual(
      complete.filter((t) => !/Hints/.test(t)),
      first.filter((t) => !/Hints/.test(t)),
      'the same lenses, with the counts added',
    );
    // Edited, the document's lenses wait for the new counts: its Hints lens never blinks away.
    const edited = text.replace('Batman', 'Robin');
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: edited }],
    });
    const afterEdit = titles(await ask());
    assert.ok(
      afterEdit.some((t) => /Hints \(1\)/.test(t)),
      afterEdit.join(' | '),
    );
  });

  it('gives a list file keyed "pred" (a field eval reads) its lenses too', async () => {
    const uri = 'file:///tmp/ves-lens-test/pred-keyed.json';
    const text = JSON.stringify([{ question_id: 717, pred: "SELECT id FROM superhero WHERE superhero_name LIKE 'Batman'" }]);
    await server.open(uri, 'json', text);
    const lenses = titles(await server.connection.sendRequest<Lens[]>('textDocument/codeLens', { textDocument: { uri } }));
    assert.ok(
      lenses.some((t) => /Score against gold \(question 717\)/.test(t)),
      lenses.join(' | '),
    );
  });
});
