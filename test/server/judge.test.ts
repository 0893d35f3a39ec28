// The editor's Judge in the language server: the `openai` provider against a loopback chat completions server
// (in-process service), and the `vscode-lm` provider through the real server process, where this test plays the
// client that answers `vesLens/chatCompletion` as the extension does with vscode.lm. No network.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CancelledError, VesLensService } from '../../src/server/service';
import { ChatCompletionErrors, ChatCompletionParams, ChatCompletionRequest, JudgeParams, JudgeRequest } from '../../src/shared/protocol';
import { proverReply, refuterReply, roleOf, Script, startChatServer } from '../fakeChatServer';
import { REPO_ROOT, tempDir } from '../helpers';
import { ServerProcess } from './lspClient';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const dataset = {
  questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
  goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  dbRoot: SAMPLE,
};
// Question 717: "list all the superpowers of 3-D Man". The first returns gold's rows; the second other rows.
const SAME_ROWS =
  "SELECT sp.power_name FROM superpower sp WHERE sp.id IN (SELECT hp.power_id FROM hero_power hp JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name = '3-D Man')";
const OTHER_ROWS = 'SELECT power_name FROM superpower LIMIT 3';

const lensDocument = TextDocument.create('file:///ws/judge.sql', 'sql', 1, `SELECT 1;\n-- bird: 717\n${OTHER_ROWS};\n`);
const documents = { get: (uri: string) => (uri === lensDocument.uri ? lensDocument : undefined), all: () => [lensDocument] };

describe('Judge with an OpenAI-compatible endpoint (service in-process, loopback chat server)', () => {
  // The key as the client's SecretStorage gives it (sealed on the way in the real server).
  const service = new VesLensService({
    documents,
    log: () => {},
    docsRoot: '',
    secret: async (name) => (name === 'judgeApiKey' ? 'sk-test-secret' : undefined),
  });
  before(() => service.initialize({ dataset, trusted: true }));
  after(() => service.dispose());

  const judge = async (script: Script, sql: string, extra: Partial<JudgeParams> = {}) => {
    const chat = await startChatServer(script);
    try {
      const params: JudgeParams = {
        sql,
        questionId: 717,
        method: 'rose',
        model: { provider: 'openai', url: chat.url, model: 'judge-model' },
        ...extra,
      };
      const result = await service.judge(params);
      return { result, requests: chat.requests };
    } finally {
      await chat.close();
    }
  };

  it("passes a prediction with gold's rows when the Refuter upholds it; sends the key as a bearer token", async () => {
    const { result, requests } = await judge(() => ({ content: refuterReply(false) }), SAME_ROWS);
    assert.equal(result.judge.score, 1);
    assert.equal(result.judge.branch, 'results_match');
    assert.equal(result.judge.refuter?.overturn, false);
    assert.equal(result.judge.error, null);
    assert.deepEqual(result.judge.usage, { prompt_tokens: 100, completion_tokens: 20 });
    assert.equal(result.model, 'openai-compatible:judge-model');
    assert.equal(result.question.questionId, 717);
    assert.match(result.predSql, /^SELECT\n/);
    assert.equal(requests.length, 1);
    assert.equal(roleOf(requests[0]), 'refuter');
    assert.equal(requests[0].headers.authorization, 'Bearer sk-test-secret');
  });

  it('fails a prediction the Prover rejects, with its reason and expected answer; the Refuter is not asked', async () => {
    const { result, requests } = await judge(
      () => ({ content: proverReply(false, 'lists three powers of any hero, not those of 3-D Man') }),
      OTHER_ROWS,
    );
    assert.equal(result.judge.score, 0);
    assert.equal(result.judge.branch, 'results_differ');
    assert.equal(result.judge.prover?.verdict, false);
    assert.match(result.judge.prover?.reason ?? '', /not those of 3-D Man/);
    assert.equal(result.judge.prover?.expected_answer, 'a list of names');
    assert.deepEqual(requests.map(roleOf), ['prover']);
  });

  it("keeps the Refuter's gold-fault and ambiguity flags (they never change the score)", async () => {
    const { result } = await judge(
      (request) => ({
        content:
          roleOf(request) === 'prover' ? proverReply(true) : refuterReply(false, { gold_correct: false, ambiguity: 'ambiguous question' }),
      }),
      OTHER_ROWS,
    );
    assert.equal(result.judge.score, 1);
    assert.equal(result.judge.refuter?.gold_correct, false);
    assert.equal(result.judge.refuter?.ambiguity, 'ambiguous question');
  });

  it('a malformed reply, twice, is a judge_error with no score (never a silent 0)', async () => {
    const { result, requests } = await judge(() => ({ content: 'I think it is fine.' }), SAME_ROWS);
    assert.equal(result.judge.score, null);
    assert.match(result.judge.error ?? '', /^judge_error: .*after one retry/);
    assert.equal(requests.length, 2, 'one follow-up naming the problem');
  });

  it('a 429 is retried (Retry-After honoured), then the verdict counts', async () => {
    const { result, requests } = await judge(
      (_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '0' } } : { content: refuterReply(false) }),
      SAME_ROWS,
    );
    assert.equal(result.judge.score, 1);
    assert.equal(result.judge.calls, 1, 'a retried request is one call of the cascade');
    assert.equal(requests.length, 2);
  });

  it('replies are cached on disk: a re-judgement makes no request', async () => {
    const cacheDir = tempDir();
    const first = await judge(() => ({ content: refuterReply(false) }), SAME_ROWS, { cacheDir });
    assert.equal(first.requests.length, 1);
    const again = await judge(() => ({ content: 'never asked' }), SAME_ROWS, { cacheDir });
    assert.equal(again.requests.length, 0);
    assert.equal(again.result.judge.score, 1);
    assert.equal(again.result.judge.cached_calls, 1);
    const files = fs
      .readdirSync(cacheDir, { recursive: true })
      .map((f) => path.join(cacheDir, String(f)))
      .filter((f) => fs.statSync(f).isFile());
    assert.equal(files.length, 1);
    assert.doesNotMatch(fs.readFileSync(files[0], 'utf8'), /sk-test-secret/, 'the key is never cached');
  });

  it('a refused key stops the judgement with a message naming the command that fixes it', async () => {
    await assert.rejects(
      judge(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided' } } }), SAME_ROWS),
      (error: Error) => {
        assert.match(error.message, /the endpoint refused the key .*Set Judge API Key.*Incorrect API key/);
        assert.doesNotMatch(error.message, /sk-test-secret|\n\s+at /);
        return true;
      },
    );
  });

  it('offers a Judge lens beside Score against gold, only on a statement bound to a question; it judges the statement as the document has it', async () => {
    const lenses = (await service.codeLenses(lensDocument)).filter((l) => l.command?.command === 'vesLens.judge');
    const offset = lensDocument.getText().indexOf(OTHER_ROWS);
    assert.deepEqual(
      lenses.map((l) => [l.command!.title, l.command!.arguments]),
      [['$(law) Judge', [lensDocument.uri, offset, 717, 0]]],
    );
    const { result } = await judge(() => ({ content: proverReply(false) }), '', { sql: undefined, uri: lensDocument.uri, offset });
    assert.equal(result.predicted_sql, OTHER_ROWS);
    assert.equal(result.judge.score, 0);
  });

  it('Cancel stops a request the model is still thinking about, at once', async () => {
    const chat = await startChatServer(() => ({ hang: true }));
    try {
      const abort = new AbortController();
      const judging = service.judge(
        { sql: SAME_ROWS, questionId: 717, method: 'rose', model: { provider: 'openai', url: chat.url, model: 'judge-model' } },
        abort.signal,
      );
      while (chat.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const started = Date.now();
      abort.abort();
      await assert.rejects(judging, CancelledError);
      assert.ok(Date.now() - started < 5000, `cancelling took ${Date.now() - started} ms, the model never replies`);
    } finally {
      await chat.close();
    }
  });

  it('a setting that cannot work is named before any request', async () => {
    const base = { sql: SAME_ROWS, questionId: 717, method: 'rose' as const };
    await assert.rejects(
      service.judge({ ...base, model: { provider: 'openai', url: 'localhost:8080', model: 'm' } }),
      /vesLens\.judge\.url: expected the http\(s\) base URL/,
    );
    await assert.rejects(
      service.judge({ ...base, model: { provider: 'openai', url: 'http://127.0.0.1:9/v1', model: ' ' } }),
      /vesLens\.judge\.model: give the name/,
    );
    await assert.rejects(
      service.judge({ ...base, questionId: 999_999, model: { provider: 'openai', url: 'http://127.0.0.1:9/v1', model: 'm' } }),
      /no question 999999/,
    );
  });
});

describe('Judge with a vscode.lm model through the client (real server process)', () => {
  let server: ServerProcess;
  let answer: (params: ChatCompletionParams) => unknown;
  const seen: ChatCompletionParams[] = [];
  const model = { provider: 'vscode-lm' as const, vendor: 'test-vendor', family: 'test-family', id: 'test-model-1', name: 'Test Model' };

  before(async () => {
    server = new ServerProcess();
    server.connection.onRequest(ChatCompletionRequest, async (params) => {
      seen.push(params);
      return answer(params) as never;
    });
    await server.initialize({ dataset, trusted: true });
  });
  after(() => server.stop());

  it('asks the client for each completion, with the model it chose, and judges from its text', async () => {
    answer = () => ({ text: refuterReply(true), usage: { promptTokens: 900, completionTokens: 40 } });
    const result = await server.connection.sendRequest(JudgeRequest, { sql: SAME_ROWS, questionId: 717, method: 'rose', model });
    assert.equal(result.judge.score, 0, 'overturned');
    assert.equal(result.model, 'vscode-lm:test-vendor/test-family');
    assert.deepEqual(result.judge.usage, { prompt_tokens: 900, completion_tokens: 40 });
    assert.equal(seen.at(-1)?.modelId, 'test-model-1');
    const [first] = seen.at(-1)!.messages;
    assert.equal(first.role, 'user', 'vscode.lm has no system role: the server folds it into the first user message');
    assert.match(first.content, /^You are the Refuter[\s\S]*\n\n/, 'the system prompt heads it');
    assert.ok(
      seen.every((params) => params.messages.every((m) => (m.role as string) !== 'system')),
      'no system message is sent',
    );
  });

  it("no model or no consent stops the judgement with the client's message, as the request's error", async () => {
    answer = () => new ResponseError(ChatCompletionErrors.unavailable, 'no permission to use Test Model: allow VES Lens to use it');
    await assert.rejects(
      server.connection.sendRequest(JudgeRequest, { sql: SAME_ROWS, questionId: 717, method: 'rose', model }),
      (error: ResponseError<unknown>) => {
        assert.equal(error.message, 'no permission to use Test Model: allow VES Lens to use it');
        return true;
      },
    );
  });

  it('a request that fails once is a model_error for the pair, not a crash', async () => {
    answer = () => new ResponseError(ChatCompletionErrors.failed, 'the response stream broke');
    const result = await server.connection.sendRequest(JudgeRequest, { sql: SAME_ROWS, questionId: 717, method: 'rose', model });
    assert.equal(result.judge.score, null);
    assert.match(result.judge.error ?? '', /^model_error: Test Model: the response stream broke/);
  });
});
