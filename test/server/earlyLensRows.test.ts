// The first lenses of a 500-entry prediction file (the GPT-4 mini-dev file, on the real BIRD databases): a client
// that refreshes lenses (VS Code) gets the first statements' lenses at once, then every statement's with the
// hint counts; a client that cannot refresh gets every statement's lenses in its one answer.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { EARLY_LENS_STATEMENTS } from '../../src/server/hints/hintsProvider';
import { BIRD_DATA, birdDataMissing } from '../helpers';
import { ServerProcess } from './lspClient';

const PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');
const DATASET = {
  questionsFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
  goldFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
  dbRoot: path.join(BIRD_DATA, 'databases'),
};
type Lens = { range: { start: { line: number } }; command: { title: string; arguments: unknown[] } };
/** The lines that have a lens: statement k of the file is on line k + 1 (one entry a line after the opening brace). */
const lensLines = (lenses: Lens[]) => [...new Set(lenses.map((lens) => lens.range.start.line))].sort((a, b) => a - b);
const withoutHints = (lenses: Lens[]) => lenses.filter((lens) => !/Hints/.test(lens.command.title));

async function startServer(refreshSupport: boolean, onRefresh: () => void): Promise<ServerProcess> {
  const server = new ServerProcess();
  server.connection.onRequest('workspace/codeLens/refresh', () => {
    onRefresh();
    return null;
  });
  await server.connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: { workspace: { codeLens: { refreshSupport } } },
    initializationOptions: { dataset: DATASET, trusted: true },
  });
  await server.connection.sendNotification('initialized', {});
  return server;
}

describe('the first lenses of a 500-entry file', { skip: birdDataMissing() }, () => {
  const servers: ServerProcess[] = [];
  const text = birdDataMissing() ? '' : fs.readFileSync(PREDICTIONS, 'utf8');
  const uri = 'file:///tmp/ves-lens-test/predict_gpt-4.json';
  const ask = (server: ServerProcess) => server.connection.sendRequest<Lens[]>('textDocument/codeLens', { textDocument: { uri } });
  after(() => Promise.all(servers.map((server) => server.stop())));

  it('a client that refreshes lenses gets the first statements at once, then all 500 with the hint counts', async () => {
    let refreshes = 0;
    const server = await startServer(true, () => refreshes++);
    servers.push(server);
    await server.open(uri, 'json', text);
    const early = await ask(server);
    assert.equal(refreshes, 0, 'answered before the hints were counted');
    const statementLines = Array.from({ length: EARLY_LENS_STATEMENTS }, (_, k) => k + 1);
    assert.deepEqual(lensLines(early), statementLines, 'one row of lenses for each of the first statements, no more');
    assert.ok(
      statementLines.every((line) =>
        early.some((lens) => lens.range.start.line === line && /Score against gold \(question \d+\)/.test(lens.command.title)),
      ),
      'each of them with its Score lens',
    );
    const deadline = Date.now() + 60_000;
    while (refreshes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(refreshes > 0, 'the client is asked to refresh once the hints are counted');
    const complete = await ask(server);
    assert.deepEqual(
      lensLines(complete),
      Array.from({ length: 500 }, (_, k) => k + 1),
    );
    assert.ok(
      complete.some((lens) => /Hints \(\d+\)/.test(lens.command.title)),
      'the counts come with the refresh',
    );
    assert.deepEqual(
      withoutHints(complete).filter((lens) => lens.range.start.line <= EARLY_LENS_STATEMENTS),
      withoutHints(early),
      'the first statements keep the same lenses',
    );
  });

  it('a file analysed before its first lens request still gets the first statements first, then the rest', async () => {
    // As VS Code opens a file it asks for lenses late (its debounce), often once the diagnostics are out: laying out
    // 500 rows of lenses before drawing any cost it ~0.35 s more than 100 (issue 33).
    let refreshes = 0;
    const server = await startServer(true, () => refreshes++);
    servers.push(server);
    await server.open(uri, 'json', text);
    await server.diagnosticsFor(uri, undefined, 60_000);
    const first = await ask(server);
    assert.deepEqual(
      lensLines(first),
      Array.from({ length: EARLY_LENS_STATEMENTS }, (_, k) => k + 1),
    );
    assert.ok(
      first.some((lens) => /Hints \(\d+\)/.test(lens.command.title)),
      'counted already, so with their counts',
    );
    const deadline = Date.now() + 10_000;
    while (refreshes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(refreshes, 1, 'asked to refresh right after');
    const complete = await ask(server);
    assert.equal(lensLines(complete).length, 500);
    assert.deepEqual(complete.slice(0, first.length), first, 'the first statements keep the same lenses');
    assert.equal(refreshes, 1, 'and only once');
  });

  it('a client that cannot refresh lenses gets every statement in its one answer', async () => {
    const server = await startServer(false, () => assert.fail('a client without refresh support is never asked to refresh'));
    servers.push(server);
    await server.open(uri, 'json', text);
    const lenses = await ask(server);
    assert.equal(lensLines(lenses).length, 500);
    assert.ok(lenses.some((lens) => /Hints \(\d+\)/.test(lens.command.title)));
  });
});
