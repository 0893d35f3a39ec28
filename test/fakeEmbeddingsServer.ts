/**
 * A loopback server that speaks OpenAI's embeddings protocol (POST /v1/embeddings, the real request and
 * response JSON): a deterministic vector per text, or what a test's script answers instead (a 429, a 5xx, a
 * malformed body). It records each request with its Authorization header. Listens on 127.0.0.1 only.
 */
import * as http from 'node:http';
import { AddressInfo } from 'node:net';

/** A deterministic 8-dimensional vector per text (its bytes folded), as the fake model's "meaning". */
export function vectorFor(text: string): number[] {
  const v = new Array(8).fill(0);
  for (let i = 0; i < text.length; i++) v[i % 8] += text.charCodeAt(i) / 100;
  return v;
}

export interface EmbeddingsRequestBody {
  model: string;
  input: string[];
  encoding_format?: string;
}

export type EmbeddingsScript = (body: EmbeddingsRequestBody, res: http.ServerResponse) => void;

/** What OpenAI's /v1/embeddings answers: `data` (here in reverse order, as `index` allows), model, usage. */
export const answerEmbeddings: EmbeddingsScript = (body, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: vectorFor(text) })).reverse();
  res.end(
    JSON.stringify({
      object: 'list',
      data,
      model: body.model,
      usage: { prompt_tokens: body.input.length, total_tokens: body.input.length },
    }),
  );
};

export interface FakeEmbeddingsServer {
  /** The base URL to give as the endpoint: http://127.0.0.1:<port>/v1 */
  url: string;
  requests: { auth?: string; body: EmbeddingsRequestBody; url?: string }[];
  /** Answers for the next requests, in order; when empty, every request gets its vectors. */
  script: EmbeddingsScript[];
  close(): Promise<void>;
}

export async function startEmbeddingsServer(): Promise<FakeEmbeddingsServer> {
  const requests: FakeEmbeddingsServer['requests'] = [];
  const script: EmbeddingsScript[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ auth: req.headers.authorization, body, url: req.url });
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end('{"error":{"message":"not found"}}');
        return;
      }
      (script.shift() ?? answerEmbeddings)(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
