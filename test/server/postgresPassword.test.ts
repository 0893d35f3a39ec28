// The PostgreSQL password between client and the real language server process (over stdio): switching the engine
// in the settings makes the server connect and ask for the password of that URL (vesLens/secret with the URL as
// its scope), answered sealed with the session key; the server tells the client what runs the SQL now
// (vesLens/datasetChanged). A verbose trace of the whole conversation never shows the password, and the server
// asks for no password for another URL.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { Trace } from 'vscode-jsonrpc/node';
import { LocalCluster, localClusterMissing } from '../../src/core/db/postgres/localCluster';
import {
  DatasetChangedNotification,
  DatasetSummary,
  ReconnectRequest,
  ScoreRequest,
  SecretParams,
  SecretRequest,
  SettingsNotification,
} from '../../src/shared/protocol';
import { newSessionKey, sealSecret, SESSION_KEY_ENV } from '../../src/shared/sealedSecret';
import { DEFAULT_SETTINGS, passwordScope } from '../../src/shared/settings';
import { ServerProcess } from './lspClient';
import { passwordRole, SAMPLE, SAMPLE_QUESTIONS, startSuperheroCluster } from './postgresFixtures';

const PASSWORD = 'sealed-pg-password-2718';
const GOLD_717 =
  "SELECT T3.power_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'";

describe('the PostgreSQL password between client and server (a real server process)', { skip: localClusterMissing() }, () => {
  const sessionKey = newSessionKey();
  let cluster: LocalCluster;
  let url: string;
  let server: ServerProcess;
  const trace: string[] = [];
  const asked: SecretParams[] = [];
  const changes: DatasetSummary[] = [];

  before(async () => {
    cluster = startSuperheroCluster();
    url = passwordRole(cluster, 'scorer', PASSWORD);
    server = new ServerProcess({ [SESSION_KEY_ENV]: sessionKey.toString('base64') });
    await server.connection.trace(Trace.Verbose, { log: (message: string, data?: string) => trace.push(`${message}\n${data ?? ''}`) });
    server.connection.onRequest(SecretRequest, (params) => {
      asked.push(params);
      return params.name === 'postgresPassword' && params.scope === passwordScope(url) ? sealSecret(PASSWORD, sessionKey) : null;
    });
    server.connection.onNotification(DatasetChangedNotification, (summary) => changes.push(summary));
    await server.initialize({ dataset: { questionsFile: SAMPLE_QUESTIONS, dbRoot: SAMPLE }, trusted: true });
  });
  after(async () => {
    await server?.stop();
    cluster?.stop();
  });

  /** The next summary the server pushes after a settings change. */
  async function nextChange(seen: number): Promise<DatasetSummary> {
    const deadline = Date.now() + 20_000;
    while (changes.length <= seen) {
      if (Date.now() > deadline) throw new Error('the server sent no vesLens/datasetChanged');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return changes[seen];
  }

  it('starts on SQLite and asks for no password', () => {
    assert.deepEqual(asked, []);
  });

  it('switched to PostgreSQL, asks for the password of that URL only, connects, and tells the client', async () => {
    await server.connection.sendNotification(SettingsNotification, { ...DEFAULT_SETTINGS, engine: 'postgres', postgresUrl: url });
    const summary = await nextChange(0);
    assert.deepEqual(asked, [{ name: 'postgresPassword', scope: passwordScope(url) }]);
    assert.equal(summary.engineError, undefined);
    assert.match(summary.engine?.line ?? '', /^PostgreSQL 15\.\d+ .*\(server postgresql:\/\/scorer@localhost:\d+\/bird/);
    const result = await server.connection.sendRequest(ScoreRequest, { sql: GOLD_717, questionId: 717, phase: 'correctness' });
    assert.equal(result.outcome, 'correct', result.error ?? '');
    assert.match(result.engine, /^PostgreSQL 15/);
  });

  it('reconnects on request (a password set or cleared), asking again', async () => {
    const summary = await server.connection.sendRequest(ReconnectRequest);
    assert.equal(summary.engine?.engine, 'postgres');
    assert.equal(asked.length, 2);
  });

  it('a verbose trace shows the secret request and its sealed answer, never the password', () => {
    const log = trace.join('\n');
    assert.match(log, /vesLens\/secret/);
    assert.match(log, /"tag": "/);
    assert.ok(!log.includes(PASSWORD), 'the password is not in the trace');
  });
});
