import { ChatMessage, ChatModel, ChatModelError, ChatReply, ChatRequestOptions } from './chatModel';
import { abortableDelay, retryAfterMs } from '../http/retry';
import { ServiceGuard, ServiceGuardOptions, ServiceUnavailable } from '../http/serviceGuard';
import { isApiJson } from '../http/apiJson';

export interface OpenAiChatOptions {
  /** Base URL of an OpenAI-compatible API (`https://api.openai.com/v1`, `http://localhost:11434/v1`); a URL ending in /chat/completions is used as it is. */
  endpoint: string;
  model: string;
  /** Sent as `Authorization: Bearer <key>`; local servers need none. */
  apiKey?: string;
  /** Limit for one request, in ms (default 300 s: reasoning models think long). */
  timeoutMs?: number;
  /** Further attempts after a 429, a 5xx, a timeout or a dropped connection (default 4). */
  maxRetries?: number;
  /** First wait before a retry, doubled each time up to maxBackoffMs (default 1 s, at most 30 s); a Retry-After header wins. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Sent only when given: ROSE sends none (its reasoning backbones reject it). */
  temperature?: number;
  /** Other request fields (e.g. `reasoning_effort`), merged into the body. */
  extraBody?: Record<string, unknown>;
  /**
   * When to give the endpoint up (http/serviceGuard.ts): after a few transport failures or non-API answers in a
   * row (default 3), or once the whole run's deadline passes (default: none); every request then fails fatal.
   */
  failFast?: Omit<ServiceGuardOptions, 'what'>;
  /** Injected for tests; Node 20's global fetch by default. */
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DEFAULT_CHAT_TIMEOUT_MS = 300_000;
export const DEFAULT_CHAT_RETRIES = 4;

/** `POST {endpoint}/chat/completions`, the URL every OpenAI-compatible server answers. */
export function chatCompletionsUrl(endpoint: string): string {
  const base = endpoint.trim().replace(/\/+$/, '');
  return /\/chat\/completions$/.test(base) ? base : `${base}/chat/completions`;
}

/** A wait before a retry; a cancel ends it at once as the client's own `cancelled` error. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableDelay(ms, signal).catch(() => {
    throw new ChatModelError('cancelled', 'cancelled');
  });
}

/** The text of choices[0].message.content: a string, or (some servers) a list of text parts. */
function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (content === null) return '';
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return undefined;
}

/** What an error body says (`{"error": {"message": ...}}` in OpenAI's shape), short. */
function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body);
    const message = parsed?.error?.message ?? parsed?.message ?? parsed?.error;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return body.trim().slice(0, 300);
}

/** Failures no retry cures: no server there, no such host, or a port Node's fetch refuses to use (e.g. 6000). */
const CONNECTION_REFUSED = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|bad port/;

/** The run gave the endpoint up (too many failures in a row, or its deadline): fatal, as a wrong endpoint is. */
function givenUp(error: ServiceUnavailable): ChatModelError {
  return new ChatModelError(error.message, 'network', { fatal: true });
}

/**
 * A chat model behind an OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM, ollama, LM Studio).
 * Node's fetch, no SDK: the protocol is one POST. Retries 429 and 5xx with exponential backoff (honouring
 * Retry-After), a timeout per request, and says which failures no retry can cure (fatal).
 */
export class OpenAiChatModel implements ChatModel {
  readonly id: string;
  private readonly url: string;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly guard: ServiceGuard;

  constructor(private readonly options: OpenAiChatOptions) {
    this.url = chatCompletionsUrl(options.endpoint);
    this.id = `openai-compatible:${options.model}`;
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? abortableSleep;
    this.guard = new ServiceGuard(this.url, { ...options.failFast, what: 'the chat endpoint' });
  }

  /** Ends the deadline's timer: the run is over. */
  close(): void {
    this.guard.close();
  }

  async complete(messages: readonly ChatMessage[], request: ChatRequestOptions = {}): Promise<ChatReply> {
    const retries = this.options.maxRetries ?? DEFAULT_CHAT_RETRIES;
    const firstWait = this.options.backoffMs ?? 1000;
    const longestWait = this.options.maxBackoffMs ?? 30_000;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(messages, request.signal);
      } catch (error) {
        const failure = error instanceof ChatModelError ? error : new ChatModelError(String(error), 'network', { retryable: true });
        if (!failure.retryable || attempt >= retries || request.signal?.aborted) {
          if (attempt > 0 && failure.kind !== 'cancelled') failure.message = `${failure.message} (after ${attempt + 1} attempts)`;
          throw failure;
        }
        const suggested = (failure as ChatModelError & { retryAfterMs?: number }).retryAfterMs;
        const wait = Math.min(longestWait, suggested ?? firstWait * 2 ** attempt);
        // Waiting ends when the endpoint is given up (another request's failure, the deadline): said as that.
        try {
          await this.sleep(wait, AbortSignal.any([request.signal, this.guard.signal].filter((s): s is AbortSignal => s !== undefined)));
        } catch (error) {
          if (this.guard.unavailable) throw givenUp(this.guard.unavailable);
          throw error;
        }
        if (this.guard.unavailable) throw givenUp(this.guard.unavailable);
      }
    }
  }

  private async once(messages: readonly ChatMessage[], signal?: AbortSignal): Promise<ChatReply> {
    let timeoutMs: number;
    try {
      // The whole request (headers and body: a server that trickles bytes too) within the time left.
      timeoutMs = this.guard.beforeRequest(this.options.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof ServiceUnavailable) throw givenUp(error);
      throw error;
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.guard.signal.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    // A transport failure or a non-API answer counts toward giving the endpoint up; the failure that does so is fatal.
    const serviceFailure = (failure: ChatModelError): ChatModelError => {
      const unavailable = this.guard.failed(failure.message);
      return unavailable ? givenUp(unavailable) : failure;
    };
    const body: Record<string, unknown> = {
      model: this.options.model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (this.options.temperature !== undefined) body.temperature = this.options.temperature;
    Object.assign(body, this.options.extraBody ?? {});
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    try {
      let response: Response;
      let text: string;
      try {
        response = await this.fetchImpl(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal });
        text = await response.text();
      } catch (error) {
        if (this.guard.unavailable) throw givenUp(this.guard.unavailable);
        if (timedOut)
          throw serviceFailure(
            new ChatModelError(`no reply from ${this.url} within ${(timeoutMs / 1000).toFixed(1)} s`, 'timeout', { retryable: true }),
          );
        if (signal?.aborted) throw new ChatModelError('cancelled', 'cancelled');
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const reason = cause?.code ?? cause?.message ?? (error as Error).message;
        const refused = CONNECTION_REFUSED.test(String(reason));
        throw serviceFailure(new ChatModelError(`cannot reach ${this.url}: ${reason}`, 'network', { retryable: true, fatal: refused }));
      }
      if (!isApiJson(text)) {
        const what = response.ok
          ? 'with no JSON'
          : `${response.status}${response.statusText ? ` ${response.statusText}` : ''}, not in the API's JSON`;
        throw serviceFailure(
          new ChatModelError(`${this.url} answered ${what}: ${text.trim().slice(0, 200)}`, response.ok ? 'protocol' : 'http', {
            status: response.ok ? undefined : response.status,
            retryable: true,
            fatal: response.status === 404,
          }),
        );
      }
      // The API answered (an error in its JSON is still an answer): the endpoint works.
      this.guard.succeeded();
      if (!response.ok) {
        const status = response.status;
        const retryable = status === 429 || status === 408 || status >= 500;
        const fatal = status === 401 || status === 403 || status === 404;
        const failure = new ChatModelError(
          `${this.url} answered ${status}${response.statusText ? ` ${response.statusText}` : ''}: ${errorDetail(text)}`,
          'http',
          { status, retryable, fatal },
        );
        Object.assign(failure, { retryAfterMs: retryAfterMs(response.headers) });
        throw failure;
      }
      const parsed: unknown = JSON.parse(text);
      const choice = (parsed as { choices?: { message?: { content?: unknown } }[] }).choices?.[0];
      const content = messageText(choice?.message?.content);
      if (content === undefined)
        throw new ChatModelError(`${this.url} answered without choices[0].message.content`, 'protocol', { retryable: true });
      const usage = (parsed as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
      return {
        text: content,
        usage:
          usage && typeof usage.prompt_tokens === 'number'
            ? { promptTokens: usage.prompt_tokens, completionTokens: Number(usage.completion_tokens) || 0 }
            : undefined,
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.guard.signal.removeEventListener('abort', onAbort);
    }
  }
}
