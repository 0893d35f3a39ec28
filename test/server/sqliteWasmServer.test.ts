// The language server where node-sqlite3's binary is missing (issue 31): it starts, runs SQLite as WebAssembly,
// says so and why in the dataset summary the status bar shows, and scores a statement as on native SQLite.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DatasetSummaryRequest, ScoreRequest } from '../../src/shared/protocol';
import { REPO_ROOT } from '../helpers';
import { installWithoutNativeSqlite } from '../nativeMissing';
import { ServerProcess } from './lspClient';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const dataset = {
  questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
  goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  dbRoot: SAMPLE,
};
const GOLD_717 =
  "SELECT T2.power_name FROM hero_power AS T1 INNER JOIN superpower AS T2 ON T1.power_id = T2.id INNER JOIN superhero AS T3 ON T3.id = T1.hero_id WHERE T3.superhero_name = '3-D Man'";

describe('language server without the native SQLite module (a real process)', () => {
  let server: ServerProcess;
  before(async () => {
    server = new ServerProcess({ VES_LENS_SQLITE: '' }, installWithoutNativeSqlite());
    await server.initialize({ dataset, trusted: true });
  });
  after(() => server.stop());

  it('attaches the dataset on SQLite as WebAssembly and says why', async () => {
    const summary = await server.connection.sendRequest(DatasetSummaryRequest);
    assert.equal(summary.questionCount, 52);
    assert.equal(summary.engineError, undefined);
    assert.match(summary.engine?.line ?? '', /^SQLite 3\.\d+\.\d+ \(WebAssembly\)$/);
    assert.match(summary.engine?.note ?? '', /@vscode\/sqlite3\) does not load here: Cannot find module/);
  });

  it('scores a statement against gold', async () => {
    const result = await server.connection.sendRequest(ScoreRequest, { sql: GOLD_717, questionId: 717, phase: 'correctness' });
    assert.equal(result.outcome, 'correct', result.error ?? '');
    assert.equal(result.ex, 1);
  });
});

describe('language server when no SQLite loads at all (VES_LENS_SQLITE=native, no native module)', () => {
  let server: ServerProcess;
  before(async () => {
    server = new ServerProcess({ VES_LENS_SQLITE: 'native' }, installWithoutNativeSqlite());
    await server.initialize({ dataset, trusted: true });
  });
  after(() => server.stop());

  it('stays up with the dataset attached, and says why its SQL cannot run', async () => {
    const summary = await server.connection.sendRequest(DatasetSummaryRequest);
    assert.equal(summary.questionCount, 52);
    assert.match(summary.engineError ?? '', /Cannot find module .*vscode-sqlite3\.node/);
  });

  it('a score says why instead of failing the server', async () => {
    const result = await server.connection.sendRequest(ScoreRequest, { sql: GOLD_717, questionId: 717, phase: 'correctness' }).then(
      (r) => JSON.stringify(r),
      (error: Error) => error.message,
    );
    assert.match(result, /vscode-sqlite3\.node/);
    const summary = await server.connection.sendRequest(DatasetSummaryRequest);
    assert.equal(summary.questionCount, 52, 'the server still answers');
  });
});
