import { EmbeddingError, EmbeddingProvider } from './provider';
import { abortableDelay, retryAfterMs } from '../http/retry';
import { requestSignal, ServiceGuard, ServiceGuardOptions } from '../http/serviceGuard';
import { isApiJson } from '../http/apiJson';

export const DEFAULT_EMBEDDINGS_URL = 'https://api.openai.com/v1';
/** SQLMorph's model in every experiment. */
export const DEFAULT_EMBEDDINGS_MODEL = 'text-embedding-3-small';

export interface OpenAiEmbeddingsOptions {
  /** Base URL of the API: `POST {baseUrl}/embeddings` (OpenAI, ollama, vLLM, LM Studio...). */
  baseUrl?: string;
  model?: string;
  /** Sent as `Authorization: Bearer ...`; never logged, never part of an error message. */
  apiKey?: string;
  /** Most texts in one request (OpenAI allows 2048). */
  batchSize?: number;
  /** Most characters in one request (OpenAI allows about 300,000 tokens). */
  batchCharacters?: number;
  /** Attempts after the first, on 429, 5xx and network failures. */
  retries?: number;
  /** First back-off; doubles each retry (a Retry-After header wins), at most 30 s. */
  retryBaseMs?: number;
  /** Time limit for one request. */
  requestTimeoutMs?: number;
  /** Where the key is set, said with a 401 (the CLI: an environment variable; the editor: a command). */
  keyHint?: string;
  /**
   * Give the endpoint up for the whole run (http/serviceGuard.ts: a ServiceUnavailable, which no technique
   * catches) after a few transport failures or non-API answers in a row, or once the deadline passes. Without
   * it (the editor), each call fails alone with an EmbeddingError.
   */
  failFast?: ServiceGuardOptions;
}

const RETRYABLE = (status: number) => status === 429 || status === 408 || status >= 500;

/** What the server said went wrong, from OpenAI's `{"error": {"message"}}` or the body's first line. */
function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body);
    const message = parsed?.error?.message ?? parsed?.error ?? parsed?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON
  }
  const line = body.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A vector from `"embedding": [numbers]` or a base64 string of little-endian float32s. */
function vectorOf(value: unknown): Float32Array | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
    return Float32Array.from(value as number[]);
  }
  if (typeof value === 'string' && value.length > 0) {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
    const copy = new Uint8Array(bytes);
    return new Float32Array(copy.buffer, 0, copy.length / 4);
  }
  return undefined;
}

/**
 * An OpenAI-compatible `/v1/embeddings` client: texts go in batches (SQLMorph sends one request per text; the
 * vectors are the same), `encoding_format: "float"` is asked explicitly (servers differ in their default),
 * 429 and 5xx answers are retried with back-off, anything else fails with the server's own message.
 */
export class OpenAiEmbeddings implements EmbeddingProvider {
  readonly id: string;
  private readonly url: string;
  private readonly model: string;
  private readonly guard: ServiceGuard | undefined;

  constructor(private readonly options: OpenAiEmbeddingsOptions = {}) {
    const base = (options.baseUrl ?? DEFAULT_EMBEDDINGS_URL).replace(/\/+$/, '');
    this.url = `${base}/embeddings`;
    this.model = options.model ?? DEFAULT_EMBEDDINGS_MODEL;
    this.id = `openai-compatible:${this.model}@${base}`;
    this.guard = options.failFast ? new ServiceGuard(this.url, { what: 'the embeddings endpoint', ...options.failFast }) : undefined;
  }

  /** A failure that counts toward giving the endpoint up: the ServiceUnavailable once it is given up, else undefined. */
  private serviceFailure(message: string) {
    return this.guard?.failed(message);
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const batchSize = this.options.batchSize ?? 256;
    const batchCharacters = this.options.batchCharacters ?? 200_000;
    let batch: string[] = [];
    let characters = 0;
    for (const text of texts) {
      if (batch.length && (batch.length >= batchSize || characters + text.length > batchCharacters)) {
        out.push(...(await this.request(batch, signal)));
        batch = [];
        characters = 0;
      }
      batch.push(text);
      characters += text.length;
    }
    if (batch.length) out.push(...(await this.request(batch, signal)));
    return out;
  }

  private async request(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const retries = this.options.retries ?? 5;
    const base = this.options.retryBaseMs ?? 500;
    const body = JSON.stringify({ model: this.model, input, encoding_format: 'float' });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    for (let attempt = 0; ; attempt++) {
      let status: number;
      let text: string;
      let suggestedWaitMs: number | undefined;
      const limitMs = this.guard?.beforeRequest(this.options.requestTimeoutMs ?? 120_000) ?? this.options.requestTimeoutMs ?? 120_000;
      try {
        // The time limit covers the whole answer: a server that never answers or trickles bytes ends on time.
        const timeout = AbortSignal.timeout(limitMs);
        const response = await fetch(this.url, {
          method: 'POST',
          headers,
          body,
          signal: requestSignal(signal, timeout, this.guard?.signal),
        });
        status = response.status;
        text = await response.text();
        suggestedWaitMs = retryAfterMs(response.headers);
      } catch (error) {
        if (this.guard?.unavailable) throw this.guard.unavailable;
        if (signal?.aborted) throw error;
        const timedOut = (error as Error).name === 'TimeoutError';
        const cause = timedOut
          ? `no complete answer within ${(limitMs / 1000).toFixed(1)} s`
          : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
        const unavailable = this.serviceFailure(`cannot reach ${this.url}: ${cause}`);
        if (unavailable) throw unavailable;
        if (attempt >= retries)
          throw new EmbeddingError(`the embeddings endpoint ${this.url} cannot be reached: ${cause} (after ${attempt + 1} attempts)`);
        await abortableDelay(Math.min(base * 2 ** attempt, 30_000), signal);
        continue;
      }
      if (!isApiJson(text)) {
        const unavailable = this.serviceFailure(`${this.url} answered ${status} with no API JSON: ${serverMessage(text)}`);
        if (unavailable) throw unavailable;
      } else this.guard?.succeeded();
      if (status >= 200 && status < 300) return this.parse(text, input.length);
      if (RETRYABLE(status) && attempt < retries) {
        await abortableDelay(Math.min(suggestedWaitMs ?? base * 2 ** attempt, 30_000), signal);
        continue;
      }
      const what =
        status === 401
          ? ` (is the API key set? ${this.options.keyHint ?? 'it is read from the environment variable the options name'})`
          : '';
      throw new EmbeddingError(
        `the embeddings endpoint ${this.url} answered ${status}${what}: ${serverMessage(text)}${RETRYABLE(status) ? ` (after ${attempt + 1} attempts)` : ''}`,
      );
    }
  }

  private parse(text: string, count: number): Float32Array[] {
    const bad = (why: string) =>
      new EmbeddingError(`the embeddings endpoint ${this.url} answered with something that is not an embeddings response (${why})`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw bad(`not JSON: ${JSON.stringify(text.slice(0, 80))}`);
    }
    const data = (parsed as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw bad('no "data" list');
    if (data.length !== count) throw bad(`${data.length} embeddings for ${count} texts`);
    const vectors: Float32Array[] = new Array(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = item?.index === undefined ? position : item.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index])
        throw bad(`item ${position} has index ${JSON.stringify(index)}`);
      const vector = vectorOf(item?.embedding);
      if (!vector) throw bad(`item ${position} has no vector of numbers`);
      vectors[index] = vector;
    });
    if (vectors.some((v) => v.length !== vectors[0].length)) throw bad('vectors of different lengths');
    return vectors;
  }
}
