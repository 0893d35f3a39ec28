import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/core/db/engines';
import { DatabaseFacts, DatabaseFactsCache, describeDatabase, parseCsv, readDescriptions, tablesNamed } from '../../src/core/judge/dbInfo';
import { judgePair, JudgePairInput } from '../../src/core/judge/judgePair';
import { sameResults } from '../../src/core/judge/resultEquality';
import { renderResult } from '../../src/core/judge/resultTable';
import { judgeAll } from '../../src/core/judge/runJudge';
import { runForJudge } from '../../src/core/judge/runQuery';
import { ChatModelError } from '../../src/core/llm/chatModel';
import { OpenAiChatModel } from '../../src/core/llm/openAiChat';
import { ReplyCache } from '../../src/core/llm/replyCache';
import { makeDatabase, REPO_ROOT, tempDir } from '../helpers';
import { FakeChatServer, proverReply, refuterReply, roleOf, ScriptedChatModel, ScriptedReply, startChatServer } from '../fakeChatServer';

const DB = path.join(REPO_ROOT, 'sample', 'superhero', 'superhero.sqlite');

const pair = (fields: Partial<JudgePairInput>): JudgePairInput => ({
  question: 'What is the name of the superhero with id 1?',
  evidence: 'id refers to superhero.id',
  dbId: 'superhero',
  dbPath: DB,
  predictedSql: 'SELECT superhero_name FROM superhero WHERE id = 1',
  goldSql: 'SELECT T1.superhero_name FROM superhero AS T1 WHERE T1.id = 1',
  ...fields,
});
/** Differ from the gold: more rows. */
const TALL = 'SELECT superhero_name FROM superhero WHERE height_cm > 200';
const TALL_GOLD = 'SELECT superhero_name FROM superhero WHERE height_cm >= 250';

const fast = { backoffMs: 5, maxBackoffMs: 10 };

describe('judgePair: the cascade as ROSE runs it, against a loopback chat server', () => {
  let server: FakeChatServer;
  let replies: (request: FakeChatServer['requests'][number]) => ScriptedReply;
  before(async () => {
    server = await startChatServer((request) => replies(request));
  });
  after(() => server.close());
  const model = () => new OpenAiChatModel({ endpoint: server.url, model: 'judge-test', timeoutMs: 2000, ...fast });
  const since = () => {
    const start = server.requests.length;
    return () => server.requests.slice(start);
  };

  it('matching results go to the Refuter alone (no results, no Prover): upheld scores 1', async () => {
    replies = (r) => ({ content: roleOf(r) === 'refuter' ? refuterReply(false) : 'unexpected' });
    const seen = since();
    const outcome = await judgePair(pair({}), { model: model() });
    assert.equal(outcome.score, 1);
    assert.equal(outcome.branch, 'results_match');
    assert.equal(outcome.prover, null);
    assert.deepEqual(outcome.refuter, { overturn: false, judgement: 'equivalent to the gold', ambiguity: 'na', gold_correct: true });
    assert.equal(outcome.error, null);
    assert.deepEqual(seen().map(roleOf), ['refuter']);
    const user = seen()[0].body.messages[1].content;
    assert.match(user, /default stance is to UPHOLD/);
    assert.match(user, /###### Gold SQL\n```sql\nSELECT T1\.superhero_name/);
    assert.doesNotMatch(user, /###### Result of the/);
    assert.doesNotMatch(user, /###### Prover's reasoning/);
    assert.deepEqual(outcome.usage, { prompt_tokens: 100, completion_tokens: 20 });
    assert.equal(outcome.calls, 1);
  });

  it('matching results overturned by the Refuter score 0', async () => {
    replies = () => ({ content: refuterReply(true) });
    const outcome = await judgePair(pair({}), { model: model() });
    assert.equal(outcome.score, 0);
    assert.equal(outcome.refuter?.overturn, true);
  });

  it('differing results go to the Prover; a Prover that fails the SQL ends it at 0 without the Refuter', async () => {
    replies = (r) => ({ content: roleOf(r) === 'prover' ? proverReply(false, 'no height anchor') : refuterReply(false) });
    const seen = since();
    const outcome = await judgePair(pair({ predictedSql: TALL, goldSql: TALL_GOLD }), { model: model() });
    assert.equal(outcome.score, 0);
    assert.equal(outcome.branch, 'results_differ');
    assert.equal(outcome.prover?.verdict, false);
    assert.equal(outcome.prover?.reason, 'no height anchor');
    assert.equal(outcome.refuter, null);
    assert.deepEqual(seen().map(roleOf), ['prover']);
    const user = seen()[0].body.messages[1].content;
    assert.doesNotMatch(user, /height_cm >= 250/, 'the Prover never sees the gold');
    assert.match(user, /###### Result of the predicted SQL\n\| superhero_name \|/);
    assert.match(user, /Total: \d+ rows; the first 20 are shown\./, 'the first 20 rows and the total row count');
  });

  it("a Prover pass goes to the Refuter with both results and the Prover's reason", async () => {
    replies = (r) => ({
      content:
        roleOf(r) === 'prover'
          ? proverReply(true, 'tall means over 200 cm')
          : refuterReply(false, { gold_correct: false, ambiguity: 'ambiguous question' }),
    });
    const seen = since();
    const outcome = await judgePair(pair({ predictedSql: TALL, goldSql: TALL_GOLD }), { model: model() });
    assert.equal(outcome.score, 1);
    assert.deepEqual(seen().map(roleOf), ['prover', 'refuter']);
    const user = seen()[1].body.messages[1].content;
    for (const section of [
      'Question',
      'Evidence',
      'Database',
      'Predicted SQL',
      'Result of the predicted SQL',
      'Gold SQL',
      'Result of the gold SQL',
      "Prover's reasoning",
    ]) {
      assert.match(user, new RegExp(`###### ${section}\\n`), section);
    }
    assert.ok(user.indexOf('###### Predicted SQL') < user.indexOf('###### Gold SQL'));
    assert.match(user, /###### Prover's reasoning\ntall means over 200 cm/);
    assert.equal(outcome.refuter?.gold_correct, false, 'the gold-fault flag is kept for annotators');
    assert.equal(outcome.refuter?.ambiguity, 'ambiguous question');
    assert.ok(outcome.pred_rows! > outcome.gold_rows!);
    // Overturned: 0.
    replies = (r) => ({ content: roleOf(r) === 'prover' ? proverReply(true) : refuterReply(true) });
    assert.equal((await judgePair(pair({ predictedSql: TALL, goldSql: TALL_GOLD }), { model: model() })).score, 0);
  });

  it('a failing prediction scores 0 without a call', async () => {
    const seen = since();
    for (const predictedSql of ['SELECT * FROM dual', 'DELETE FROM superhero', '', undefined]) {
      const outcome = await judgePair(pair({ predictedSql }), { model: model() });
      assert.equal(outcome.score, 0, String(predictedSql));
      assert.equal(outcome.calls, 0);
      assert.ok(outcome.branch === 'prediction_failed' || outcome.branch === 'no_prediction');
    }
    assert.equal(seen().length, 0);
  });

  it('a failing gold leaves the Prover alone (ROSE crashes there)', async () => {
    replies = () => ({ content: proverReply(true) });
    const outcome = await judgePair(pair({ goldSql: 'SELECT nope FROM superhero' }), { model: model() });
    assert.equal(outcome.branch, 'gold_failed');
    assert.equal(outcome.score, 1);
    assert.match(outcome.notes.join(' '), /gold failed: no such column: nope/);
  });

  it('a malformed reply gets one retry naming the parse error; a second malformed one is a judge_error, not a 0', async () => {
    let n = 0;
    replies = () => ({ content: n++ === 0 ? 'The prediction looks right to me.' : refuterReply(false) });
    const seen = since();
    const repaired = await judgePair(pair({}), { model: model() });
    assert.equal(repaired.score, 1);
    assert.equal(repaired.calls, 2);
    const retry = seen()[1].body.messages;
    assert.equal(retry.length, 4);
    assert.equal(retry[2].role, 'assistant');
    assert.match(retry[3].content, /could not be used: no JSON object in the reply/);

    replies = () => ({ content: '```json\n{"judgement": "fine", "verdict": false}\n```' });
    const failed = await judgePair(pair({}), { model: model() });
    assert.equal(failed.score, null);
    assert.match(
      failed.error ?? '',
      /^judge_error: the JSON object has no boolean "overturn" \(it has only the keys "judgement", "verdict"\); after one retry/,
    );
  });

  it('a 429 then success is retried inside the judgement; a hang becomes a model_error quickly', async () => {
    let n = 0;
    replies = () => (n++ === 0 ? { status: 429, headers: { 'retry-after': '0' } } : { content: refuterReply(false) });
    assert.equal((await judgePair(pair({}), { model: model() })).score, 1);

    replies = () => ({ hang: true });
    const started = performance.now();
    const hung = await judgePair(pair({}), {
      model: new OpenAiChatModel({ endpoint: server.url, model: 'judge-test', timeoutMs: 100, maxRetries: 1, ...fast }),
    });
    assert.equal(hung.score, null);
    assert.match(hung.error ?? '', /^model_error: no reply .* \(after 2 attempts\)/);
    assert.ok(performance.now() - started < 3000);
  });

  it('caches usable replies on disk by (model, prompt): a re-run makes no request', async () => {
    const cache = new ReplyCache(tempDir());
    replies = (r) => ({ content: roleOf(r) === 'prover' ? proverReply(true) : refuterReply(false) });
    const seen = since();
    const first = await judgePair(pair({ predictedSql: TALL, goldSql: TALL_GOLD }), { model: model(), cache });
    assert.equal(seen().length, 2);
    const again = await judgePair(pair({ predictedSql: TALL, goldSql: TALL_GOLD }), { model: model(), cache });
    assert.equal(seen().length, 2, 'no new request');
    assert.equal(again.score, first.score);
    assert.deepEqual(again.prover, first.prover);
    assert.equal(again.cached_calls, 2);
    assert.deepEqual(again.usage, { prompt_tokens: 0, completion_tokens: 0 });
    // Another model is another key.
    await judgePair(pair({ predictedSql: TALL, goldSql: TALL_GOLD }), {
      model: new OpenAiChatModel({ endpoint: server.url, model: 'other', ...fast }),
      cache,
    });
    assert.equal(seen().length, 4);
  });

  it('does not cache a reply that could not be used', async () => {
    const cache = new ReplyCache(tempDir());
    replies = () => ({ content: 'no json' });
    const seen = since();
    await judgePair(pair({}), { model: model(), cache });
    await judgePair(pair({}), { model: model(), cache });
    assert.equal(seen().length, 4, 'asked again (with its retry) each time');
  });

  it('prover-only runs the Prover on every pair that runs, without the gold; flex makes one call', async () => {
    replies = (r) => ({
      content: roleOf(r) === 'prover' ? proverReply(true) : roleOf(r) === 'flex' ? '{"reason": "same", "correct": false}' : 'unexpected',
    });
    let seen = since();
    const proverOnly = await judgePair(pair({}), { model: model(), method: 'prover-only' });
    assert.equal(proverOnly.branch, 'prover_only');
    assert.equal(proverOnly.score, 1);
    assert.equal(proverOnly.gold_rows, null);
    assert.deepEqual(seen().map(roleOf), ['prover']);
    seen = since();
    const flex = await judgePair(pair({ predictedSql: TALL, goldSql: TALL_GOLD }), { model: model(), method: 'flex' });
    assert.equal(flex.score, 0);
    assert.deepEqual(flex.flex, { correct: false, reason: 'same' });
    assert.deepEqual(seen().map(roleOf), ['flex']);
    assert.match(seen()[0].body.messages[1].content, /have different execution results/);
  });

  it('judgeAll keeps input order, runs N at a time, and stops on a fatal error', async () => {
    let inFlight = 0;
    let most = 0;
    const model = new ScriptedChatModel(() => refuterReply(false));
    const slow = {
      id: model.id,
      complete: async (m: Parameters<typeof model.complete>[0]) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return model.complete(m);
      },
    };
    const inputs = [pair({}), pair({ predictedSql: 'SELECT * FROM dual' }), pair({}), pair({}), pair({})];
    const outcomes = await judgeAll(inputs, { model: slow, concurrency: 2 });
    assert.deepEqual(
      outcomes.map((o) => o.score),
      [1, 0, 1, 1, 1],
    );
    assert.ok(most <= 2);

    replies = () => ({ status: 401, body: { error: { message: 'Incorrect API key' } } });
    await assert.rejects(
      judgeAll(inputs, { model: new OpenAiChatModel({ endpoint: server.url, model: 'm', ...fast }), concurrency: 2 }),
      (e: ChatModelError) => e.fatal && e.details.status === 401,
    );
  });
});

describe('the database part of a prompt', () => {
  it('lists the tables the SQL names (sorted), their columns with keys and sample values', async () => {
    const db = await openDatabase(DB);
    try {
      const text = await describeDatabase(db, new DatabaseFacts('superhero', DB), [
        'SELECT T1.superhero_name FROM superhero AS T1 JOIN colour AS T2 ON T1.eye_colour_id = T2.id',
      ]);
      assert.match(text, /^Database superhero \(SQLite\)\. The tables the SQL names:\nTable colour \(\d+ rows\)/);
      assert.ok(text.indexOf('Table colour') < text.indexOf('Table superhero'));
      assert.match(text, /- id INTEGER PRIMARY KEY; e\.g\. 1, 2, 3/);
      assert.match(text, /- eye_colour_id INTEGER REFERENCES colour\(id\); e\.g\. /);
      assert.match(text, /- superhero_name TEXT; e\.g\. '3-D Man', 'A-Bomb', 'Abe Sapien'/);
      assert.doesNotMatch(text, /Table hero_power/);
      assert.match(
        text,
        /All tables: alignment, attribute, colour, gender, hero_attribute, hero_power, publisher, race, superhero, superpower\./,
      );
    } finally {
      await db.close();
    }
  });

  it('finds tables by FROM/JOIN, not by substring (ROSE matches `order` in ORDER BY)', () => {
    assert.deepEqual(tablesNamed('SELECT a FROM card ORDER BY card_id', ['card', 'order', 'cards']), ['card']);
    assert.deepEqual(tablesNamed('SELECT x FROM `order` o JOIN (SELECT * FROM client) c', ['order', 'client']).sort(), ['client', 'order']);
  });

  it("adds BIRD's column descriptions when the dataset ships database_description/*.csv", async () => {
    const dir = tempDir();
    const file = await makeDatabase(
      path.join(dir, 'shop', 'shop.sqlite'),
      "CREATE TABLE item (id INTEGER PRIMARY KEY, kind TEXT); INSERT INTO item VALUES (1, 'A'), (2, 'B');",
    );
    fs.mkdirSync(path.join(dir, 'shop', 'database_description'));
    fs.writeFileSync(
      path.join(dir, 'shop', 'database_description', 'item.csv'),
      Buffer.concat([
        Buffer.from('\ufeff'),
        Buffer.from(
          'original_column_name,column_name,column_description,data_format,value_description\nid,,item id,integer,\nkind,kind,"kind of item, coded",text,"A: apple\nB: banana"\n',
        ),
      ]),
    );
    assert.deepEqual(parseCsv('a,"b ""c""",d\n1,2,3'), [
      ['a', 'b "c"', 'd'],
      ['1', '2', '3'],
    ]);
    assert.equal(readDescriptions(path.join(dir, 'shop'), 'item').get('kind')?.values, 'A: apple B: banana');
    const db = await openDatabase(file);
    try {
      const text = await describeDatabase(db, new DatabaseFactsCache().get('shop', file), ['SELECT kind FROM item']);
      assert.match(text, /- kind TEXT; e\.g\. 'A', 'B'; meaning: kind of item, coded; values: A: apple B: banana/);
      assert.match(text, /- id INTEGER PRIMARY KEY; e\.g\. 1, 2; meaning: item id/);
    } finally {
      await db.close();
    }
  });
});

describe('results as the judge sees and compares them', () => {
  const r = (rows: (number | string | null)[][], columnCount = rows[0]?.length ?? 1) => ({ columnCount, rows });

  it('match: same rows as a multiset, in any row or column order, 1 == 1.0', () => {
    assert.ok(
      sameResults(
        r([
          [1, 'a'],
          [2, 'b'],
        ]),
        r([
          [2, 'b'],
          [1, 'a'],
        ]),
      ),
    );
    assert.ok(
      sameResults(
        r([
          ['a', 1],
          ['b', 2],
        ]),
        r([
          [1, 'a'],
          [2, 'b'],
        ]),
      ),
      'columns in another order',
    );
    assert.ok(sameResults(r([[1], [1.0]]), r([[1], [1]])));
    assert.ok(sameResults(r([], 2), r([], 2)));
  });

  it('differ: cardinality (a missing DISTINCT), shape, and what XOR hashing would confuse', () => {
    assert.ok(!sameResults(r([['a'], ['a']]), r([['a']])), 'duplicates count (BIRD EX would say equal)');
    assert.ok(!sameResults(r([[1, 2]]), r([[1]])));
    assert.ok(!sameResults(r([], 1), r([], 2)));
    assert.ok(
      !sameResults(
        r([
          ['a', 'b'],
          ['a', 'b'],
        ]),
        r([
          ['c', 'd'],
          ['c', 'd'],
        ]),
      ),
      "identical cells cancel in ROSE's XOR",
    );
    assert.ok(
      !sameResults(
        r([
          [1, 2],
          [2, 1],
        ]),
        r([
          [1, 1],
          [2, 2],
        ]),
      ),
      'same column values, other rows',
    );
    assert.ok(!sameResults(r([['1']]), r([[1]])), "text '1' is not the number 1");
  });

  it('shows the first 20 rows and the total, values as SQLite returns them', () => {
    const text = renderResult({
      columns: ['n', 'name'],
      rowCount: 25,
      head: Array.from({ length: 25 }, (_, i) => [i + 0.5, i === 0 ? null : i === 1 ? '' : `x|${'y'.repeat(70)}`]),
    });
    const lines = text.split('\n');
    assert.equal(lines[0], '| n | name |');
    assert.equal(lines.length, 2 + 20 + 1);
    assert.equal(lines[2], '| 0.5 | NULL |');
    assert.equal(lines[3], "| 1.5 | '' |");
    assert.match(lines[4], /^\| 2\.5 \| x\\\|y+… \(73 characters\) \|$/);
    assert.equal(lines.at(-1), 'Total: 25 rows; the first 20 are shown.');
    assert.equal(
      renderResult({ columns: ['a'], rowCount: 0, head: [] })
        .split('\n')
        .at(-1),
      'Total: 0 rows (the result is empty).',
    );
  });

  it('reads column names, also for an empty result and repeated names', async () => {
    const db = await openDatabase(DB);
    try {
      const run = await runForJudge(db, 'SELECT id, id, superhero_name AS name FROM superhero WHERE 0;', { timeoutMs: 5000, maxRows: 100 });
      assert.equal(run.status, 'ok');
      assert.deepEqual(run.status === 'ok' && run.result.columns, ['id', 'id', 'name']);
      const numbered = await runForJudge(db, 'SELECT 1, 2', { timeoutMs: 5000, maxRows: 100 });
      assert.deepEqual(numbered.status === 'ok' && numbered.result.columns, ['column 1', 'column 2']);
    } finally {
      await db.close();
    }
  });
});
