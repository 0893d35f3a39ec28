// The gold audit request on the real language server (over stdio), on real mini-dev questions and the shared
// databases: ranked entries with their marks and the CLI's HTML page, faster correct predictions counted, and a
// cancel that keeps the gold audited so far.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { AuditGoldRequest, AuditProgressValue, VesLensErrorCodes } from '../../src/shared/protocol';
import { REPO_ROOT, tempDir } from '../helpers';
import { ServerProcess } from './lspClient';

const MINIDEV = path.resolve(REPO_ROOT, '..', 'shared', 'data', 'bird-minidev');
const skip = fs.existsSync(path.join(MINIDEV, 'databases', 'superhero', 'superhero.sqlite')) ? false : 'no shared mini-dev data';

/** A question file of some mini-dev v1 questions (their own SQL is the gold), in this order. */
function questionFile(ids: number[]): string {
  const all = JSON.parse(fs.readFileSync(path.join(MINIDEV, 'questions', 'mini_dev_sqlite.v1-2024.json'), 'utf8')) as {
    question_id: number;
  }[];
  const file = path.join(tempDir(), 'questions.json');
  fs.writeFileSync(
    file,
    JSON.stringify(
      ids.map((id) => all.find((q) => q.question_id === id)!),
      null,
      2,
    ),
  );
  return file;
}

describe('gold audit over LSP (shared mini-dev databases)', { skip }, () => {
  let server: ServerProcess;
  const progress = new Map<string, (value: AuditProgressValue) => void>();
  const dbRoot = path.join(MINIDEV, 'databases');
  // 738: its EXISTS gold has a verified 60× rewrite; 1362: an index makes it faster; 1471: its database is not shared (skipped).
  const questionsFile = questionFile([717, 738, 1362, 195, 1471]);
  before(async () => {
    server = new ServerProcess();
    await server.initialize({ dataset: { questionsFile, dbRoot }, trusted: true });
    // lspClient.ts swallows every $/progress; here each token's values go to its listener.
    server.connection.onNotification('$/progress', (params: { token: string; value: AuditProgressValue }) =>
      progress.get(params.token)?.(params.value),
    );
  });
  after(() => server.stop());

  it("ranks the gold worth another look, marks them, counts faster correct predictions, and renders the CLI's page", async () => {
    // A correct prediction of 738 that is much faster than its gold (the JOIN form of its EXISTS).
    const predictions = path.join(tempDir(), 'predict.json');
    fs.writeFileSync(
      predictions,
      JSON.stringify([
        {
          question_id: 738,
          predicted_sql:
            "SELECT DISTINCT T1.superhero_name FROM superhero AS T1 INNER JOIN hero_attribute AS T2 ON T1.id = T2.hero_id INNER JOIN attribute AS T3 ON T2.attribute_id = T3.id WHERE T3.attribute_name = 'Durability' AND T2.attribute_value < 50",
        },
      ]),
    );
    const steps: AuditProgressValue[] = [];
    const token = 'audit-1';
    progress.set(token, (value) => steps.push(value));
    const result = await server.connection.sendRequest(AuditGoldRequest, { predictionFiles: [predictions], progressToken: token });
    assert.equal(result.partial, false);
    assert.equal(result.total, 5);
    assert.deepEqual(
      result.audit.entries.map((e) => e.status),
      ['ok', 'ok', 'ok', 'ok', 'skipped'],
    );
    // 1471 is unrun, not clean: counted and shown as not audited (database missing).
    assert.equal(result.audit.entries[4].not_audited, 'database_missing');
    assert.deepEqual(result.audit.counts, { total: 5, audited: 4, not_audited: { database_missing: 1 } });
    assert.match(result.html, /5 gold SQL: 4 audited and 1 not audited \(database missing\)/);
    const ranked = result.audit.ranked.map((e) => String(e.question_id));
    assert.equal(ranked[0], '738', `ranked: ${ranked.join(', ')}`);
    assert.ok(ranked.includes('1362'), `ranked: ${ranked.join(', ')}`);
    for (let i = 1; i < result.audit.ranked.length; i++) assert.ok(result.audit.ranked[i - 1].score >= result.audit.ranked[i].score);
    const top = result.audit.ranked[0];
    assert.ok(
      top.rewrites.some((r) => r.rule === 'VL001' && r.status === 'faster' && r.gain!.low > 1),
      JSON.stringify(top.rewrites),
    );
    assert.equal(top.faster_predictions?.files, 1, 'the fast correct prediction is counted');
    assert.ok(top.plan && top.plan.work > top.plan.rule);
    // One mark per ranked gold, in rank order, with a short headline.
    assert.deepEqual(
      result.marks.map((m) => m.questionId),
      ranked,
    );
    assert.match(result.marks[0].headline, /^\d+(\.\d)?× faster rewrite$/);
    assert.equal(result.marks[0].reasons.length, top.reasons.length);
    assert.match(result.marks.find((m) => m.questionId === '1362')!.headline, /faster with an index|faster rewrite/);
    // The page `ves-lens audit --html` writes, naming the dataset's files by name (a panel has no folder to name
    // them from, and a page saved from it shows no folder of this machine).
    assert.match(result.html, /^<!DOCTYPE html>[\s\S]*<title>VES Lens gold audit<\/title>[\s\S]*id="q-1"/);
    assert.ok(result.html.includes(`questions ${path.basename(questionsFile)} · databases ${path.basename(dbRoot)}`));
    assert.ok(!result.html.includes(path.dirname(questionsFile)), 'no folder of this machine');
    // A step per question, with its id.
    assert.ok(
      steps.some((s) => /^2\/5: question 738 \(superhero\)$/.test(s.message)),
      steps.map((s) => s.message).join(' | '),
    );
    assert.ok(steps.some((s) => /^scoring predict\.json against the gold/.test(s.message)));
    assert.doesNotMatch(JSON.stringify(result.marks) + JSON.stringify(result.audit), /\u001b/);
  });

  it('refuses a prediction file that is no prediction file, naming it, before any slow work', async () => {
    const started = Date.now();
    await assert.rejects(
      server.connection.sendRequest(AuditGoldRequest, {
        predictionFiles: [path.join(MINIDEV, 'databases', 'superhero', 'superhero.sqlite')],
      }),
      (error: { code: number; message: string }) => {
        assert.equal(error.code, VesLensErrorCodes.badInput);
        assert.match(error.message, /superhero\.sqlite.*SQLite database/i);
        return true;
      },
    );
    assert.ok(Date.now() - started < 3000);
  });

  it('returns what it audited when cancelled, promptly', async () => {
    const source = new CancellationTokenSource();
    const token = 'audit-2';
    let cancelledAt = 0;
    progress.set(token, (value) => {
      // Cancel as the third gold starts: two are audited.
      if (value.done === 2 && !cancelledAt) {
        cancelledAt = Date.now();
        source.cancel();
      }
    });
    const result = await server.connection.sendRequest(AuditGoldRequest, { progressToken: token }, source.token);
    assert.ok(cancelledAt > 0, 'the third step came');
    assert.equal(result.partial, true);
    assert.equal(result.total, 5);
    const audited = result.audit.entries.map((e) => String(e.question_id));
    assert.ok(audited.length >= 2 && audited.length < 5, `audited: ${audited.join(', ')}`);
    assert.deepEqual(audited.slice(0, 2), ['717', '738']);
    assert.ok(
      result.marks.some((m) => m.questionId === '738'),
      'the finding of an audited gold is kept',
    );
    assert.ok(Date.now() - cancelledAt < 15_000, `cancel took ${Date.now() - cancelledAt} ms`);
  });
});
