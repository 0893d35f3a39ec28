// A lens request made while a large prediction file is being analysed (its hints counted on the real BIRD
// databases) is answered in the meantime, not after the whole file: the analysis lets requests in as it goes.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing } from '../helpers';
import { ServerProcess } from './lspClient';

type Lens = { command: { title: string } };
const titles = (lenses: Lens[]) => lenses.map((lens) => lens.command.title);

describe('code lenses while the hints are being counted', { skip: birdDataMissing() }, () => {
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
      initializationOptions: {
        dataset: {
          questionsFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
          goldFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
          dbRoot: path.join(BIRD_DATA, 'databases'),
        },
        trusted: true,
      },
    });
    await server.connection.sendNotification('initialized', {});
  });
  after(() => server.stop());

  it('answers a second lens request before the analysis of 2,000 entries ends', async () => {
    // The GPT-4 mini-dev predictions four times over: entries past 499 name no question (Explain only) but are analysed.
    const file = path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');
    const entries = Object.values(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>);
    const text = JSON.stringify(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [String(i), entries[i % entries.length]])));
    const uri = 'file:///tmp/ves-lens-test/predict_2000.json';
    await server.open(uri, 'json', text);
    const ask = () => server.connection.sendRequest<Lens[]>('textDocument/codeLens', { textDocument: { uri } });
    // The first request starts the analysis; the second arrives while it runs.
    const first = titles(await ask());
    const second = titles(await ask());
    const refreshesAtSecond = refreshes;
    assert.equal(refreshesAtSecond, 0, 'the second answer came before the analysis ended (and its refresh)');
    assert.ok(
      second.some((t) => /Score against gold \(question \d+\)/.test(t)),
      second.slice(0, 8).join(' | '),
    );
    assert.ok(!second.some((t) => /Hints/.test(t)), 'no counts yet');
    assert.deepEqual(second, first);
    const deadline = Date.now() + 60_000;
    while (refreshes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(refreshes > 0, 'the client is asked to refresh once the hints are counted');
    const complete = titles(await ask());
    assert.ok(
      complete.some((t) => /Hints \(\d+\)/.test(t)),
      'the counts come with the refresh',
    );
  });
});
