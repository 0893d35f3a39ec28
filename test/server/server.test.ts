import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { LSPErrorCodes } from 'vscode-languageserver-protocol';
import {
  DatasetSummaryRequest,
  EvaluateFileRequest,
  ScoreRequest,
  SettingsNotification,
  VerifyHintRequest,
} from '../../src/shared/protocol';
import { DEFAULT_SETTINGS } from '../../src/shared/settings';
import { REPO_ROOT } from '../helpers';
import { ServerProcess } from './lspClient';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const dataset = {
  questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
  goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  dbRoot: SAMPLE,
};
// Sample question 0 is mini-dev question 717 (superhero): the .sql test binds to it with `-- bird: 717`.
const EXISTS_SQL =
  '-- bird: 717\nSELECT T1.superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 WHERE T2.hero_id = T1.id AND T2.power_id = 18);\n';

describe('language server over stdio (a real process)', () => {
  let server: ServerProcess;
  before(async () => {
    server = new ServerProcess();
    const result = (await server.initialize({ dataset, trusted: true })) as { capabilities: Record<string, unknown> };
    assert.ok(result.capabilities.codeLensProvider && result.capabilities.codeActionProvider && result.capabilities.hoverProvider);
  });
  after(() => server.stop());

  it('summarises the attached dataset with the SQLite version', async () => {
    const summary = await server.connection.sendRequest(DatasetSummaryRequest);
    assert.equal(summary.questionCount, 52);
    assert.match(summary.sqlite, /^3\.\d+/);
    assert.deepEqual(summary.databases, [
      { dbId: 'superhero', questions: 52, present: true, file: path.join(dataset.dbRoot, 'superhero', 'superhero.sqlite') },
    ]);
  });

  it('publishes rewrite hints as diagnostics, with exact ranges, for a .sql document', async () => {
    const uri = 'file:///tmp/ves-lens-test/a.sql';
    await server.open(uri, 'sql', EXISTS_SQL);
    const diagnostics = await server.diagnosticsFor(uri, 1);
    const vl001 = diagnostics.find((d) => d.code === 'VL001');
    assert.ok(vl001, JSON.stringify(diagnostics));
    assert.deepEqual(vl001.range.start, { line: 1, character: EXISTS_SQL.split('\n')[1].indexOf('EXISTS') });
  });

  it('warns of a subquery column SQLite reads from the outer query (VL011), and shows a note-level rule quietly', async () => {
    const uri = 'file:///tmp/ves-lens-test/outer.sql';
    const sql =
      "-- bird: 717\nSELECT COUNT(DISTINCT s.id) FROM superhero s JOIN hero_attribute ha ON s.id = ha.hero_id JOIN attribute a ON ha.attribute_id = a.id WHERE ha.attribute_value = (SELECT MAX(attribute_value) FROM hero_attribute WHERE attribute_name = 'Strength') AND s.id IN (SELECT T.id FROM superhero T WHERE T.full_name LIKE 'Bruce');\n";
    await server.open(uri, 'sql', sql);
    const diagnostics = await server.diagnosticsFor(uri, 1);
    const vl011 = diagnostics.find((d) => d.code === 'VL011');
    assert.ok(vl011, JSON.stringify(diagnostics));
    assert.equal(vl011.severity, 2, 'a warning');
    assert.deepEqual(vl011.range.start, { line: 1, character: sql.split('\n')[1].indexOf('attribute_name') });
    assert.match(vl011.message, /`attribute_name` is not a column of `hero_attribute`; SQLite reads it from the outer query/);
    assert.equal(diagnostics.find((d) => d.code === 'VL006')?.severity, 4, 'VL006 is a note: hint level');
  });

  it('maps diagnostics inside BIRD prediction JSON strings through their escapes', async () => {
    const uri = 'file:///tmp/ves-lens-test/predict.json';
    const text = JSON.stringify(
      { '0': 'SELECT id\nFROM superhero WHERE superhero_name LIKE "x" OR superhero_name LIKE \'Batman\'\t----- bird -----\tsuperhero' },
      null,
      2,
    );
    await server.open(uri, 'json', text);
    const diagnostics = await server.diagnosticsFor(uri, 1);
    const like = diagnostics.find((d) => d.code === 'VL006');
    assert.ok(like, JSON.stringify(diagnostics));
    const line = text.split('\n')[like.range.start.line];
    assert.equal(line.slice(like.range.start.character, like.range.end.character), "LIKE 'Batman'");
  });

  it('offers code lenses: Score against gold, Explain, Hints (n)', async () => {
    const lenses = await server.connection.sendRequest<{ command: { title: string; arguments: unknown[] } }[]>('textDocument/codeLens', {
      textDocument: { uri: 'file:///tmp/ves-lens-test/a.sql' },
    });
    const titles = lenses.map((l) => l.command.title);
    assert.ok(
      titles.some((t) => /Score against gold \(question 717\)/.test(t)),
      titles.join(' | '),
    );
    assert.ok(titles.some((t) => /Explain/.test(t)));
    assert.ok(titles.some((t) => /Hints \(1\)/.test(t)));
  });

  it('offers a quick fix that verifies the rewrite on the database before applying it', async () => {
    const uri = 'file:///tmp/ves-lens-test/a.sql';
    const [diagnostic] = (await server.diagnosticsFor(uri, 1)).filter((d) => d.code === 'VL001');
    const actions = await server.connection.sendRequest<{ title: string; command?: { arguments: unknown[] } }[]>(
      'textDocument/codeAction',
      { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } },
    );
    const apply = actions.find((a) => /Verify and apply/.test(a.title));
    assert.ok(apply?.command);
    const verdict = await server.connection.sendRequest(VerifyHintRequest, apply.command.arguments[0] as never);
    assert.ok(['faster', 'slower', 'no-difference'].includes(verdict.status), verdict.message);
    assert.equal(verdict.recommended, verdict.status === 'faster', 'only a rewrite measured faster is applied without asking');
    assert.ok(verdict.edit && /INNER JOIN \(SELECT DISTINCT T2\.hero_id AS vl_key/.test(verdict.edit.text));
    assert.ok(actions.some((a) => /Ignore VL001 for this statement/.test(a.title)));
  });

  it('hovers a table with its row count and indexes', async () => {
    const hover = await server.connection.sendRequest<{ contents: { value: string } }>('textDocument/hover', {
      textDocument: { uri: 'file:///tmp/ves-lens-test/a.sql' },
      position: { line: 1, character: EXISTS_SQL.split('\n')[1].indexOf('FROM superhero') + 7 },
    });
    assert.match(hover.contents.value, /\*\*superhero\*\*: 750 rows/);
  });

  it('scores against gold: correctness first, then timing with an interval, and both plans', async () => {
    const sql =
      'SELECT DISTINCT T1.superhero_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T2.hero_id = T1.id WHERE T2.power_id = 18';
    const first = await server.connection.sendRequest(ScoreRequest, { sql, questionId: 717, phase: 'correctness' });
    assert.equal(first.question.questionId, 717);
    assert.ok(first.goldPlan.nodes.length > 0 && first.predPlan.nodes.length > 0);
    // The server runs with FORCE_COLOR=1 (lspClient.ts): no terminal formatting reaches the JSON.
    assert.doesNotMatch(JSON.stringify(first), /\u001b/);
    if (first.ex === 1) {
      const full = await server.connection.sendRequest(ScoreRequest, { sql, questionId: 717, phase: 'full' });
      const ves = full.timings.ves;
      assert.ok(ves && ves.low <= ves.ratio && ves.ratio <= ves.high);
      assert.equal(ves.goldSamples.length, ves.predSamples.length);
    } else {
      assert.equal(first.timings.ves, undefined);
      assert.ok(first.difference);
    }
  });

  it('cancels a runaway prediction: the request ends promptly as cancelled', async () => {
    const source = new CancellationTokenSource();
    const started = Date.now();
    const pending = server.connection.sendRequest(
      ScoreRequest,
      { sql: 'SELECT count(*) FROM hero_power a, hero_power b, hero_power c', questionId: 717, phase: 'correctness' },
      source.token,
    );
    setTimeout(() => source.cancel(), 500);
    await assert.rejects(pending, (error: { code?: number }) => error.code === LSPErrorCodes.RequestCancelled);
    assert.ok(Date.now() - started < 15_000, `cancelled after ${Date.now() - started} ms, the runaway never ends`);
    // and the server still answers
    const summary = await server.connection.sendRequest(DatasetSummaryRequest);
    assert.equal(summary.questionCount, 52);
  });

  it('takes settings as they change: a shorter time limit applies to the next request', async () => {
    await server.connection.sendNotification(SettingsNotification, { ...DEFAULT_SETTINGS, timeoutSeconds: 0.5 });
    const started = Date.now();
    const result = await server.connection.sendRequest(ScoreRequest, {
      sql: 'SELECT count(*) FROM hero_power a, hero_power b, hero_power c',
      questionId: 717,
      phase: 'correctness',
    });
    assert.equal(result.outcome, 'timeout');
    assert.ok(Date.now() - started < 5000);
    await server.connection.sendNotification(SettingsNotification, { ...DEFAULT_SETTINGS });
  });

  it('evaluates a prediction file with the per-difficulty summary', async () => {
    const result = await server.connection.sendRequest(EvaluateFileRequest, {
      predictionsFile: path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      metrics: ['ex', 'f1'],
    });
    const total = result.summary.groups.find((g) => g.group === 'total')!;
    assert.equal(total.count, 52);
    assert.equal(total.scores.ex!.toFixed(2), '76.92', 'the same EX as the CLI on the same files');
    assert.ok(result.questions.every((q) => typeof q.predicted_sql === 'string'));
  });
});

describe('language server in an untrusted workspace', () => {
  let server: ServerProcess;
  before(async () => {
    server = new ServerProcess();
    await server.initialize({ dataset, trusted: false });
  });
  after(() => server.stop());

  it('still shows hints but runs no SQL', async () => {
    const uri = 'file:///tmp/ves-lens-test/u.sql';
    await server.open(uri, 'sql', "SELECT id FROM superhero WHERE superhero_name LIKE 'Batman'");
    const diagnostics = await server.diagnosticsFor(uri, 1);
    assert.ok(diagnostics.some((d) => d.code === 'VL006'));
    await assert.rejects(server.connection.sendRequest(ScoreRequest, { sql: 'SELECT 1', questionId: 717 }), /trusted workspaces/);
  });
});
