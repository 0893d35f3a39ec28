// The embeddings API key on its way from the client to the real language server process (over stdio, as any LSP
// client speaks to it): the server asks for it (vesLens/secret) only when a semantic technique needs it, the
// client answers it sealed with the session key it put in the server's environment, and the key reaches the
// endpoint's Authorization header. A verbose trace of the whole conversation (what `vesLens.trace.server` would
// log) never shows it.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Trace } from 'vscode-jsonrpc/node';
import { ScoreRequest, SecretRequest, SettingsNotification } from '../../src/shared/protocol';
import { newSessionKey, sealSecret, SESSION_KEY_ENV, unsealSecret } from '../../src/shared/sealedSecret';
import { DEFAULT_SETTINGS } from '../../src/shared/settings';
import { FakeEmbeddingsServer, startEmbeddingsServer } from '../fakeEmbeddingsServer';
import { REPO_ROOT, tempDir } from '../helpers';
import { ServerProcess } from './lspClient';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const dataset = {
  questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
  goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  dbRoot: SAMPLE,
};
// Question 717 (the superpowers of 3-D Man), answered with the power's id added: a mismatch, so the semantic techniques embed.
const PREDICTION =
  "SELECT T3.power_name, T3.id FROM superhero AS T1 JOIN hero_power AS T2 ON T1.id = T2.hero_id JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'";
const KEY = 'sk-sealed-in-transit-31415';

describe('the embeddings API key between client and server (a real server process)', () => {
  const sessionKey = newSessionKey();
  let server: ServerProcess;
  let endpoint: FakeEmbeddingsServer;
  const trace: string[] = [];
  const asked: string[] = [];

  before(async () => {
    endpoint = await startEmbeddingsServer();
    server = new ServerProcess({ [SESSION_KEY_ENV]: sessionKey.toString('base64') });
    // What a verbose LSP trace logs: every message's parameters and results.
    await server.connection.trace(Trace.Verbose, { log: (message: string, data?: string) => trace.push(`${message}\n${data ?? ''}`) });
    server.connection.onRequest(SecretRequest, ({ name }) => {
      asked.push(name);
      return sealSecret(KEY, sessionKey);
    });
    await server.initialize({ dataset, trusted: true, storageDir: tempDir('ves-lens-storage-') });
  });
  after(async () => {
    await server.stop();
    await endpoint.close();
  });

  it("asks for the key only when a semantic technique embeds, and sends it as the endpoint's bearer token", async () => {
    const first = await server.connection.sendRequest(ScoreRequest, { sql: PREDICTION, questionId: 717, phase: 'correctness' });
    assert.deepEqual(asked, [], 'no provider: no key asked for');
    assert.deepEqual(first.techniques?.techniques.find((t) => t.name === 'semantic_column_and_exact_cell')?.score, {
      error: 'no embedding provider',
    });

    await server.connection.sendNotification(SettingsNotification, {
      ...DEFAULT_SETTINGS,
      embeddingsProvider: 'openai',
      embeddingsUrl: endpoint.url,
      embeddingsModel: 'fake',
    });
    const result = await server.connection.sendRequest(ScoreRequest, { sql: PREDICTION, questionId: 717, phase: 'correctness' });
    assert.deepEqual(asked, ['embeddingsApiKey']);
    assert.ok(endpoint.requests.length > 0);
    assert.deepEqual(new Set(endpoint.requests.map((r) => r.auth)), new Set([`Bearer ${KEY}`]));
    const semantic = result.techniques?.techniques.find((t) => t.name === 'semantic_column_and_partial_cell');
    assert.ok(semantic && !('error' in semantic.score), JSON.stringify(semantic?.score));
  });

  it('a verbose trace shows the secret request, never the key', () => {
    const log = trace.join('\n');
    assert.match(log, /vesLens\/secret/);
    assert.match(log, /"tag": "/, 'the trace holds the sealed answer');
    assert.ok(!log.includes(KEY), 'the key is not in the trace');
  });

  it('a sealed key opens only with its session key, and not once changed', () => {
    const sealed = sealSecret(KEY, sessionKey);
    assert.equal(unsealSecret(sealed, sessionKey), KEY);
    assert.throws(() => unsealSecret(sealed, newSessionKey()));
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[0] ^= 1;
    assert.throws(() => unsealSecret({ ...sealed, data: bytes.toString('base64') }, sessionKey));
  });
});
