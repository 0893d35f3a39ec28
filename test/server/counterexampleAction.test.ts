// "Look for a database where they differ" through the real language server (dist/server.js over stdio) on the
// shared BIRD data, with GPT-4's official mini-dev predictions: question 1392 (student_club, "the top source of
// funds in September 2019"), EX-correct on the real database, where the gold orders by source and the prediction
// by SUM(amount); `ves-lens eval --counterexamples` finds a witness for it. Every claim the server makes is
// re-checked outside VES Lens with Python's own sqlite3: the witness separates the pair, the real database does not,
// and the rows the page marks are the ones the other result lacks. Also: a pair proved equivalent (no search, no
// file), a pair not EX-correct, a search with none found, a cancelled search, and Score's EX-fragile note.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { LSPErrorCodes } from 'vscode-languageserver-protocol';
import { CounterexampleRequest, CounterexampleResult, ScoreRequest } from '../../src/shared/protocol';
import { BIRD_DATA, birdDataMissing, sha256, tempDir } from '../helpers';
import { ServerProcess } from './lspClient';

const dataset = {
  questionsFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
  goldFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
  dbRoot: path.join(BIRD_DATA, 'databases'),
};
const GPT4 = path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');
const STUDENT_CLUB = path.join(BIRD_DATA, 'databases', 'student_club', 'student_club.sqlite');

/** GPT-4's prediction for a question, by its position in the question file (the official file's key). */
function prediction(index: number): string {
  const entries = JSON.parse(fs.readFileSync(GPT4, 'utf8')) as Record<string, string>;
  return entries[String(index)].split('\t----- bird -----\t')[0];
}
function gold(index: number): string {
  return fs.readFileSync(dataset.goldFile, 'utf8').split('\n')[index].split('\t')[0];
}

/** Both queries run by Python's sqlite3 on a file opened read-only: their results as sets of rows (as EX compares them). */
function pythonResults(file: string, ...sql: string[]): { sets: Set<string>[]; rows: unknown[][][] } {
  const script = [
    'import json, sqlite3, sys',
    "db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)",
    'print(json.dumps([[list(r) for r in db.execute(q).fetchall()] for q in sys.argv[2:]]))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, file, ...sql], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const rows = JSON.parse(run.stdout) as unknown[][][];
  return { rows, sets: rows.map((result) => new Set(result.map((row) => JSON.stringify(row)))) };
}
const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((row) => b.has(row));

describe('"Look for a database where they differ" (language server over stdio, shared BIRD data)', { skip: birdDataMissing() }, () => {
  let server: ServerProcess;
  const storageDir = tempDir('ves-lens-storage-');
  const progress: string[] = [];
  let realDatabaseHash: string;

  before(async () => {
    realDatabaseHash = sha256(STUDENT_CLUB);
    server = new ServerProcess();
    await server.initialize({ dataset, trusted: true, storageDir });
  });
  after(() => server.stop());

  const lookFor = (
    sql: string,
    questionId: number,
    extra: { budgetSeconds?: number; progressToken?: string } = {},
    token?: CancellationTokenSource,
  ) => server.connection.sendRequest(CounterexampleRequest, { sql, questionId, ...extra }, token?.token) as Promise<CounterexampleResult>;

  it('finds a witness for question 1392 that separates the pair when Python re-runs both on it, and shows both results side by side', async () => {
    const predicted = prediction(59);
    const goldSql = gold(59);
    // EX-correct on the real database, by Python's own reckoning.
    const real = pythonResults(STUDENT_CLUB, goldSql, predicted);
    assert.ok(sameSet(real.sets[0], real.sets[1]), 'the pair agrees on the real database');

    // The step messages the server reports for the request's token (lspClient.ts otherwise drops every $/progress).
    const token = 'cx-1392';
    const steps = server.connection.onNotification('$/progress', (params: { token: string; value: { message: string } }) => {
      if (params.token === token) progress.push(params.value.message);
    });
    const result = await lookFor(predicted, 1392, { progressToken: token });
    steps.dispose();
    assert.equal(result.status, 'found', JSON.stringify(result.search));
    assert.equal(result.outcome, 'correct');
    assert.equal(result.equivalence?.verdict, 'agrees_on_this_data');
    assert.equal(result.question.questionId, 1392);
    assert.ok(result.search && result.search.variations_tried >= 1);
    assert.ok(
      progress.some((m) => /variations of the tables read/.test(m)),
      progress.join(' | '),
    );

    const witness = result.witness!;
    // Written under the extension's storage, never beside the real database, which is unchanged.
    assert.equal(path.dirname(witness.database), path.join(storageDir, 'counterexamples'));
    assert.ok(fs.existsSync(witness.database));
    assert.equal(sha256(STUDENT_CLUB), realDatabaseHash);
    assert.deepEqual(
      fs.readdirSync(path.dirname(STUDENT_CLUB)).filter((f) => f.endsWith('.sqlite')),
      ['student_club.sqlite'],
    );

    // The witness separates them outside VES Lens.
    const onWitness = pythonResults(witness.database, goldSql, predicted);
    assert.ok(!sameSet(onWitness.sets[0], onWitness.sets[1]), `both return ${JSON.stringify(onWitness.rows)} on the witness`);

    // Side by side: each result as Python reads it, its rows the other lacks marked.
    for (const [side, mine, other] of [
      [witness.gold, onWitness.rows[0], onWitness.sets[1]],
      [witness.prediction, onWitness.rows[1], onWitness.sets[0]],
    ] as const) {
      assert.deepEqual(side.columns, ['source']);
      assert.equal(side.rowCount, mine.length);
      assert.deepEqual(side.rows, mine.slice(0, side.rows.length));
      assert.deepEqual(
        side.differs,
        side.rows.map((row) => !other.has(JSON.stringify(row))),
      );
      assert.equal(side.differingCount, mine.filter((row) => !other.has(JSON.stringify(row))).length);
      assert.ok(side.differingCount > 0);
    }
    // The witness's tables: only what the queries read, with the row counts the file holds.
    assert.deepEqual(
      witness.tables.map((t) => t.name),
      ['income'],
    );
    const counts = pythonResults(witness.database, 'SELECT count(*) FROM income', 'SELECT * FROM income LIMIT 5');
    assert.equal(witness.tables[0].rowCount, counts.rows[0][0][0]);
    assert.deepEqual(witness.tables[0].rows, counts.rows[1]);
    assert.ok(witness.tables[0].columns.includes('amount'));
    assert.match(witness.how, /shrunk to \d+ rows?/);
  });

  it('says "provably equivalent" with the reason, searches nothing and writes nothing, for a pair equal up to aliases', async () => {
    const before = fs.readdirSync(path.join(storageDir, 'counterexamples')).length;
    // Question 1362's gold (SELECT COUNT(city) FROM zip_code WHERE county = ... AND state = ...) with an alias and
    // its conditions the other way round: not the same SQLite program, the same query by the normal form.
    assert.match(gold(48), /^SELECT COUNT\(city\) FROM zip_code WHERE county = 'Orange County' AND state = 'Virginia'$/);
    const aliased = "SELECT COUNT(z.city) FROM zip_code AS z WHERE z.state = 'Virginia' AND z.county = 'Orange County'";
    const result = await lookFor(aliased, 1362);
    assert.equal(result.status, 'equivalent');
    assert.equal(result.equivalence?.verdict, 'equivalent');
    assert.match(result.equivalence!.reason, /alias/);
    assert.equal(result.search, null);
    assert.equal(result.witness, null);
    assert.equal(fs.readdirSync(path.join(storageDir, 'counterexamples')).length, before);
  });

  it('looks for nothing when the pair is not EX-correct on the real database', async () => {
    const result = await lookFor("SELECT 'Dues'", 1392);
    assert.equal(result.status, 'not_correct');
    assert.equal(result.outcome, 'mismatch');
    assert.equal(result.search, null);
  });

  it('says how much it searched when no variation separates the pair (question 1352)', async () => {
    const result = await lookFor(prediction(43), 1352);
    assert.equal(result.status, 'none_found', JSON.stringify(result));
    assert.equal(result.witness, null);
    assert.ok(result.search!.variations_tried > 10);
    assert.match(result.search!.note ?? '', /variations of .*member/);
  });

  it('answers a cancelled search at once, and the next search still finds its witness', async () => {
    // Question 730 (superhero): EXISTS against joins; the CLI spends its whole 3 s budget on it without a witness.
    const cancel = new CancellationTokenSource();
    const started = performance.now();
    const searching = lookFor(prediction(251), 730, { budgetSeconds: 4 }, cancel);
    await new Promise((resolve) => setTimeout(resolve, 800));
    cancel.cancel();
    await assert.rejects(searching, (error: { code?: number }) => error.code === LSPErrorCodes.RequestCancelled);
    assert.ok(performance.now() - started < 2500, `answered ${Math.round(performance.now() - started)} ms after it started`);
    const next = await lookFor(prediction(59), 1392);
    assert.equal(next.status, 'found');
  });

  it("Score says where EX's mismatch is fragile (float digits, by how much) and offers the search only for a correct pair", async () => {
    // Question 743 (superhero): the percentage differs from the gold's in the last float digits only.
    const fragile = await server.connection.sendRequest(ScoreRequest, { sql: prediction(259), questionId: 743, phase: 'correctness' });
    assert.equal(fragile.outcome, 'mismatch');
    assert.equal(fragile.ex_fragile?.kind, 'float_digits');
    assert.ok(fragile.ex_fragile!.max_abs_difference! > 0 && fragile.ex_fragile!.max_relative_difference! < 1e-9);
    assert.equal(fragile.counterexampleSeconds, undefined);
    const correct = await server.connection.sendRequest(ScoreRequest, { sql: prediction(59), questionId: 1392, phase: 'correctness' });
    assert.equal(correct.outcome, 'correct');
    assert.equal(correct.ex_fragile, undefined);
    assert.ok(correct.counterexampleSeconds! > 0);
  });
});

describe('where the editor writes counterexample databases without a storage folder', () => {
  it('a folder of its own under the temp folder (mkdtemp, this user only), the same for the whole server', async () => {
    const { witnessFolder } = await import('../../src/server/score/counterexampleAction');
    const folder = witnessFolder(undefined);
    assert.equal(path.dirname(folder), os.tmpdir());
    assert.notEqual(folder, path.join(os.tmpdir(), 'ves-lens-counterexamples'), 'no fixed name another user could take first');
    assert.match(path.basename(folder), /^ves-lens-counterexamples-\w{6}$/);
    assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    assert.equal(witnessFolder(undefined), folder);
    fs.rmSync(folder, { recursive: true, force: true });
  });
});
