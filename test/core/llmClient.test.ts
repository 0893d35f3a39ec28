import { strict as assert } from 'node:assert';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { ChatModelError, withoutSystemRole } from '../../src/core/llm/chatModel';
import { booleanField, extractJsonObject } from '../../src/core/llm/jsonReply';
import { retryAfterMs } from '../../src/core/http/retry';
import { chatCompletionsUrl, OpenAiChatModel } from '../../src/core/llm/openAiChat';
import { FakeChatServer, startChatServer } from '../fakeChatServer';

const messages = [
  { role: 'system' as const, content: 'You answer in JSON.' },
  { role: 'user' as const, content: 'Is 2 > 1?' },
];

/** Short limits: a retry waits 5 ms, a hang ends after 150 ms. */
const fast = { backoffMs: 5, maxBackoffMs: 20 };

describe('OpenAI-compatible chat client against a loopback server', () => {
  const servers: FakeChatServer[] = [];
  const serve = async (...args: Parameters<typeof startChatServer>) => {
    const server = await startChatServer(...args);
    servers.push(server);
    return server;
  };
  after(async () => {
    for (const server of servers) await server.close();
  });

  it('sends the real request (path, model, messages, bearer key, no temperature) and reads content and usage', async () => {
    const server = await serve(() => ({ content: '{"answer": true}', usage: { prompt_tokens: 42, completion_tokens: 7 } }));
    const model = new OpenAiChatModel({ endpoint: `${server.url}/`, model: 'test-model', apiKey: 'sk-test', ...fast });
    const reply = await model.complete(messages);
    assert.equal(reply.text, '{"answer": true}');
    assert.deepEqual(reply.usage, { promptTokens: 42, completionTokens: 7 });
    const [request] = server.requests;
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers.authorization, 'Bearer sk-test');
    assert.equal(request.body.model, 'test-model');
    assert.deepEqual(request.body.messages, messages);
    assert.ok(!('temperature' in request.body), 'ROSE sends no temperature; neither do we unless asked');
    assert.equal(model.id, 'openai-compatible:test-model');
  });

  it('sends a temperature and extra fields when given, and no Authorization without a key', async () => {
    const server = await serve(() => ({ content: 'ok' }));
    await new OpenAiChatModel({ endpoint: server.url, model: 'm', temperature: 0, extraBody: { reasoning_effort: 'low' } }).complete(
      messages,
    );
    assert.equal(server.requests[0].body.temperature, 0);
    assert.equal(server.requests[0].body.reasoning_effort, 'low');
    assert.equal(server.requests[0].headers.authorization, undefined);
  });

  it('retries a 429 (Retry-After honoured) and then succeeds', async () => {
    const server = await serve((_, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'rate limited' } } } : { content: 'fine' },
    );
    const reply = await new OpenAiChatModel({ endpoint: server.url, model: 'm', ...fast }).complete(messages);
    assert.equal(reply.text, 'fine');
    assert.equal(server.requests.length, 2);
  });

  it('retries 5xx with backoff, then gives up with the status and the number of attempts', async () => {
    const waits: number[] = [];
    const server = await serve(() => ({ status: 503, body: { error: { message: 'overloaded' } } }));
    const model = new OpenAiChatModel({
      endpoint: server.url,
      model: 'm',
      maxRetries: 3,
      backoffMs: 10,
      maxBackoffMs: 25,
      sleep: async (ms) => void waits.push(ms),
    });
    await assert.rejects(model.complete(messages), (error: ChatModelError) => {
      assert.equal(error.kind, 'http');
      assert.equal(error.details.status, 503);
      assert.equal(error.fatal, false);
      assert.match(error.message, /503.*overloaded.*after 4 attempts/);
      return true;
    });
    assert.equal(server.requests.length, 4);
    assert.deepEqual(waits, [10, 20, 25], 'doubling, capped');
  });

  it('ends a hanging request at its timeout, retries it once, and reports a timeout (fast)', async () => {
    const server = await serve(() => ({ hang: true }));
    const started = performance.now();
    await assert.rejects(
      new OpenAiChatModel({ endpoint: server.url, model: 'm', timeoutMs: 150, maxRetries: 1, ...fast }).complete(messages),
      (error: ChatModelError) => {
        assert.equal(error.kind, 'timeout');
        assert.match(error.message, /no reply .* within 0\.1 s|within 0\.2 s/);
        return true;
      },
    );
    assert.equal(server.requests.length, 2);
    assert.ok(performance.now() - started < 2000);
  });

  it('does not retry a 401, 403 or 404: fatal, every request would fail alike', async () => {
    for (const status of [401, 403, 404]) {
      const server = await serve(() => ({ status, body: { error: { message: 'Incorrect API key provided' } } }));
      await assert.rejects(
        new OpenAiChatModel({ endpoint: server.url, model: 'm', ...fast }).complete(messages),
        (error: ChatModelError) => error.fatal && error.details.status === status,
      );
      assert.equal(server.requests.length, 1);
    }
  });

  it('a 400 is neither retried nor fatal: that request is wrong, not the setup', async () => {
    const server = await serve(() => ({ status: 400, body: { error: { message: 'context length exceeded' } } }));
    await assert.rejects(
      new OpenAiChatModel({ endpoint: server.url, model: 'm', ...fast }).complete(messages),
      (error: ChatModelError) => !error.fatal && !error.retryable && /context length/.test(error.message),
    );
    assert.equal(server.requests.length, 1);
  });

  it('a body that is no JSON, or has no message content, is a protocol error (retried)', async () => {
    const server = await serve((_, i) => (i === 0 ? { raw: '<html>bad gateway</html>' } : { raw: JSON.stringify({ choices: [] }) }));
    await assert.rejects(
      new OpenAiChatModel({ endpoint: server.url, model: 'm', maxRetries: 1, ...fast }).complete(messages),
      (error: ChatModelError) => error.kind === 'protocol' && /choices\[0\]/.test(error.message),
    );
    assert.equal(server.requests.length, 2);
  });

  it('a port where nothing listens is fatal (a wrong --endpoint)', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await assert.rejects(
      new OpenAiChatModel({ endpoint: `http://127.0.0.1:${port}/v1`, model: 'm', maxRetries: 1, ...fast }).complete(messages),
      (error: ChatModelError) => {
        assert.equal(error.kind, 'network');
        assert.ok(error.fatal);
        assert.match(error.message, /ECONNREFUSED/);
        return true;
      },
    );
  });

  it('is cancelled by its signal', async () => {
    const server = await serve(() => ({ hang: true }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(
      new OpenAiChatModel({ endpoint: server.url, model: 'm', timeoutMs: 10_000, ...fast }).complete(messages, {
        signal: controller.signal,
      }),
      (error: ChatModelError) => error.kind === 'cancelled',
    );
  });
});

describe('chat helpers', () => {
  it('builds the chat completions URL from a base URL or takes a full one', () => {
    assert.equal(chatCompletionsUrl('https://api.openai.com/v1'), 'https://api.openai.com/v1/chat/completions');
    assert.equal(chatCompletionsUrl('http://localhost:11434/v1/'), 'http://localhost:11434/v1/chat/completions');
    assert.equal(chatCompletionsUrl('http://x/v1/chat/completions'), 'http://x/v1/chat/completions');
  });

  it('reads retry-after-ms, or Retry-After in seconds or as a date', () => {
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '2' })), 250);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000), 6_000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(retryAfterMs(new Headers()), undefined);
  });

  it('folds the system message into the first user message for APIs without a system role', () => {
    assert.deepEqual(withoutSystemRole(messages), [{ role: 'user', content: 'You answer in JSON.\n\nIs 2 > 1?' }]);
  });
});

describe('JSON in a model reply', () => {
  const value = (text: string) => {
    const result = extractJsonObject(text);
    assert.ok(result.ok, `expected JSON in ${JSON.stringify(text)}: ${!result.ok && result.error}`);
    return result.value;
  };

  it('takes a fenced block, with or without a language, closed or not', () => {
    assert.deepEqual(value('Here:\n```json\n{"verdict": true}\n```\nDone.'), { verdict: true });
    assert.deepEqual(value('```\n{"verdict": false}\n```'), { verdict: false });
    assert.deepEqual(value('```json\n{"verdict": false, "reason": "x"}'), { verdict: false, reason: 'x' });
  });

  it('takes bare JSON, JSON amid prose, and drops <think> blocks', () => {
    assert.deepEqual(value('{"a": 1}'), { a: 1 });
    assert.deepEqual(value('I think {this} matters. Answer: {"verdict": true, "reason": "has {braces}"}'), {
      verdict: true,
      reason: 'has {braces}',
    });
    assert.deepEqual(value('<think>maybe {"verdict": false}</think>\n{"verdict": true}'), { verdict: true });
  });

  it('says why when there is no JSON object', () => {
    for (const text of ['', 'The query is correct.', '[true]', '{"verdict": tru']) {
      const result = extractJsonObject(text);
      assert.equal(result.ok, false, text);
    }
  });

  it('accepts a boolean, or exactly "true"/"false", and nothing else (no Python truthiness)', () => {
    assert.equal(booleanField({ v: true }, 'v'), true);
    assert.equal(booleanField({ v: 'False' }, 'v'), false);
    assert.equal(booleanField({ v: 'no' }, 'v'), undefined);
    assert.equal(booleanField({ v: 1 }, 'v'), undefined);
    assert.equal(booleanField({}, 'v'), undefined);
  });
});
