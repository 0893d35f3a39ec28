/**
 * A loopback server that speaks OpenAI's chat completions protocol (POST /v1/chat/completions, the real request
 * and response JSON), answering from a script per test: a verdict, malformed text, a 429, a 5xx, or nothing at
 * all (a hang). No test needs a network: it listens on 127.0.0.1, on a port the system picks.
 */
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import type { ChatMessage, ChatModel, ChatReply } from '../src/core/llm/chatModel';

export interface ChatRequestSeen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: { model: string; messages: ChatMessage[]; [key: string]: unknown };
}

export type ScriptedReply =
  | { content: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { raw: string }
  | { hang: true };

export type Script = (request: ChatRequestSeen, index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface FakeChatServer {
  /** The base URL to give as --endpoint: http://127.0.0.1:<port>/v1 */
  url: string;
  requests: ChatRequestSeen[];
  close(): Promise<void>;
}

/** The JSON body an OpenAI-compatible server sends for one completion. */
export function completionBody(model: string, content: string, usage = { prompt_tokens: 100, completion_tokens: 20 }) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export async function startChatServer(script: Script): Promise<FakeChatServer> {
  const requests: ChatRequestSeen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let body: ChatRequestSeen['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end(JSON.stringify({ error: { message: 'body is not JSON' } }));
        return;
      }
      const seen = { path: req.url, headers: req.headers, body };
      requests.push(seen);
      const reply = await script(seen, requests.length - 1);
      if ('hang' in reply) return; // never answers; the client's timeout must end it
      if ('raw' in reply) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(reply.raw);
        return;
      }
      if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) })
          .end(JSON.stringify(reply.body ?? { error: { message: `status ${reply.status}` } }));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(completionBody(body.model, reply.content, reply.usage)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Which role a request is for, read from its system prompt. */
export function roleOf(request: { body: { messages: ChatMessage[] } } | readonly ChatMessage[]): 'prover' | 'refuter' | 'flex' | 'other' {
  const messages = Array.isArray(request) ? request : (request as { body: { messages: ChatMessage[] } }).body.messages;
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  if (system.startsWith('You are the Prover')) return 'prover';
  if (system.startsWith('You are the Refuter')) return 'refuter';
  if (/reference \(gold\) SQL/.test(system)) return 'flex';
  return 'other';
}

export const proverReply = (verdict: boolean, reason = 'the query filters on the anchor the question states') =>
  '```json\n' + JSON.stringify({ expected_answer: 'a list of names', sql_description: 'selects the names', reason, verdict }) + '\n```';
export const refuterReply = (overturn: boolean, extra: { gold_correct?: boolean; ambiguity?: string } = {}) =>
  JSON.stringify({
    judgement: overturn ? 'the prediction drops an anchor' : 'equivalent to the gold',
    overturn,
    ambiguity: extra.ambiguity ?? 'na',
    gold_correct: extra.gold_correct ?? true,
  });

/** An in-memory ChatModel answering from a script: the same interface a vscode.lm adapter implements. */
export class ScriptedChatModel implements ChatModel {
  readonly calls: ChatMessage[][] = [];
  constructor(
    private readonly answer: (messages: readonly ChatMessage[], index: number) => string,
    readonly id = 'fake:scripted',
  ) {}

  async complete(messages: readonly ChatMessage[]): Promise<ChatReply> {
    this.calls.push([...messages]);
    return { text: this.answer(messages, this.calls.length - 1), usage: { promptTokens: 10, completionTokens: 5 } };
  }
}
