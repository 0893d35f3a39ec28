/**
 * The editor's "Judge" of one statement: does a prediction answer its question? core's judgePair runs the cascade
 * (ROSE's Prover and Refuter by default) with the model the request names: an OpenAI-compatible endpoint called from
 * the server itself (core's client), or one of VS Code's models (vscode.lm), which only the extension host can reach:
 * each completion then goes to the client. Consent, counting and every failure come back typed for the face to word.
 */
import { QueryCancelled } from '../core/db/database';
import { DatabaseFactsCache } from '../core/judge/dbInfo';
import { judgePair, type JudgePairInput } from '../core/judge/judgePair';
import type { JudgeMethod, JudgeOutcome } from '../core/judge/types';
import {
  ChatModelError,
  withoutSystemRole,
  type ChatMessage,
  type ChatModel,
  type ChatReply,
  type ChatRequestOptions,
  type UserOrAssistantMessage,
} from '../core/llm/chatModel';
import { chatCompletionsUrl, OpenAiChatModel, type OpenAiChatOptions } from '../core/llm/openAiChat';
import { ReplyCache } from '../core/llm/replyCache';

/** The model a Judge request names: one of VS Code's (chosen by the client) or an OpenAI-compatible endpoint. */
export type JudgeModelSpec =
  { provider: 'vscode-lm'; vendor: string; family: string; id: string; name: string } | { provider: 'openai'; url: string; model: string };

/** An OpenAI-compatible endpoint's model, as a Judge request or the CLI's options name it. */
export type OpenAiModelSpec = Extract<JudgeModelSpec, { provider: 'openai' }>;

/** The spec's model with the caller's limits (core's client's defaults for the rest); no key: a local server's. */
export function openAiModel(
  spec: OpenAiModelSpec,
  apiKey: string | undefined,
  limits: Omit<OpenAiChatOptions, 'endpoint' | 'model' | 'apiKey'> = {},
): OpenAiChatModel {
  return new OpenAiChatModel({ ...limits, endpoint: spec.url, model: spec.model, apiKey: apiKey || undefined });
}

/** A completion asked of the client: user and assistant turns only (vscode.lm has no system role), for the model it chose. */
export interface ClientChatRequest {
  messages: UserOrAssistantMessage[];
  modelId: string;
}

/** Asks the client for a completion; rejects with a ClientChatFailure, or on cancellation. */
export type ClientChat = (request: ClientChatRequest, signal?: AbortSignal) => Promise<ChatReply>;

/** The client's refusal of a completion: `unavailable` (no model, no consent, blocked) would fail every request alike. */
export class ClientChatFailure extends Error {
  constructor(
    readonly unavailable: boolean,
    readonly reason: string | undefined,
    readonly original: unknown,
  ) {
    super(reason ?? String(original));
  }
}

/** A vscode.lm model, reached through the client. Its failures become core's ChatModelError kinds. */
class ClientChatModel implements ChatModel {
  readonly id: string;

  constructor(
    private readonly spec: Extract<JudgeModelSpec, { provider: 'vscode-lm' }>,
    private readonly chat: ClientChat,
  ) {
    // vendor/family names the model's behaviour (the cache key); the opaque id may change between sessions.
    this.id = `vscode-lm:${spec.vendor}/${spec.family}`;
  }

  async complete(messages: readonly ChatMessage[], options: ChatRequestOptions = {}): Promise<ChatReply> {
    if (options.signal?.aborted) throw new ChatModelError('cancelled', 'cancelled');
    try {
      // vscode.lm has no system role: core's one rule folds it into the first user message before it is sent.
      const reply = await this.chat({ messages: withoutSystemRole(messages), modelId: this.spec.id }, options.signal);
      return { text: reply.text, usage: reply.usage };
    } catch (error) {
      if (options.signal?.aborted) throw new ChatModelError('cancelled', 'cancelled');
      const failure = error instanceof ClientChatFailure ? error : new ClientChatFailure(false, (error as Error)?.message, error);
      // No model, no consent, blocked: every other request would fail alike, so the judgement stops with the message.
      if (failure.unavailable) throw new ChatModelError(failure.reason ?? 'the chat model is unavailable', 'http', { fatal: true });
      throw new ChatModelError(`${this.spec.name}: ${failure.reason ?? String(failure.original)}`, 'network');
    }
  }
}

/** The model a Judge request names; a setting that cannot work is said at once, naming it. */
export function judgeModel(spec: JudgeModelSpec, chat: ClientChat | undefined, apiKey?: string): ChatModel {
  if (spec.provider === 'vscode-lm') {
    if (!chat) throw new Error("no client to reach VS Code's chat models");
    return new ClientChatModel(spec, chat);
  }
  let url: URL | undefined;
  try {
    url = new URL(spec.url);
  } catch {
    // said below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new JudgeSettingError(
      `vesLens.judge.url: expected the http(s) base URL of an OpenAI-compatible API (e.g. https://api.openai.com/v1), got "${spec.url}"`,
    );
  }
  if (!spec.model.trim()) throw new JudgeSettingError('vesLens.judge.model: give the name of the model the endpoint serves (e.g. gpt-4o)');
  return openAiModel({ ...spec, model: spec.model.trim() }, apiKey);
}

/** A judge setting that cannot work (its message names the setting). */
export class JudgeSettingError extends Error {}

/** A fatal model error (wrong key, endpoint or model; no vscode.lm model), as a message that names what to change. */
export function fatalModelMessage(error: ChatModelError, spec: JudgeModelSpec): string {
  if (spec.provider === 'vscode-lm') return error.message;
  const cause = fatalModelCause(error);
  const where = `${spec.model} at ${chatCompletionsUrl(spec.url)}`;
  if (cause === 'key') return `the endpoint refused the key (${where}): run "VES Lens: Set Judge API Key". ${error.message}`;
  if (cause === 'model') return `no such model or endpoint (${where}): check vesLens.judge.url and vesLens.judge.model. ${error.message}`;
  return `the endpoint cannot be reached (${where}): check vesLens.judge.url. ${error.message}`;
}

/** What an endpoint's fatal error says to change: the key (401, 403), the model or endpoint (404), else the endpoint. */
export function fatalModelCause(error: ChatModelError): 'key' | 'model' | 'endpoint' {
  const status = error.details.status;
  return status === 401 || status === 403 ? 'key' : status === 404 ? 'model' : 'endpoint';
}

/** One statement and its question, as judgePair takes them. */
export type JudgedPair = JudgePairInput;

export interface JudgeStatementOptions {
  model: ChatModel;
  method?: JudgeMethod;
  /** Replies kept here so a re-judgement costs no call; none: no cache. */
  cacheDir?: string;
  timeoutMs: number;
  maxRows: number;
  signal?: AbortSignal;
  /** Before each request that really goes out (a cached reply asks nothing): false stops the judgement, nothing sent. */
  allowed?: () => Promise<boolean>;
  /** Each request as it goes out, counted from 1. */
  onRequest?: (count: number) => void;
}

/** A judgement, or why there is none: the endpoint not allowed, stopped, or the model failing (its message names what to change). */
export type StatementJudgement = { outcome: JudgeOutcome } | { declined: string } | { cancelled: true } | { modelFailed: ChatModelError };

/** The endpoint was not allowed: nothing was sent. A cancellation to core (it stops the cascade), said as such. */
class ConsentDeclined extends ChatModelError {
  constructor(url: string) {
    super(`not judged: sending to ${url} was not allowed, so nothing was sent`, 'cancelled');
  }
}

/** The editor's judge: the facts its prompts show of each database (schema, keys, samples) read once, until forgotten. */
export class StatementJudge {
  private facts = new DatabaseFactsCache();

  /** A new dataset: its databases' facts are read anew. */
  forgetDatabases(): void {
    this.facts = new DatabaseFactsCache();
  }

  async judge(pair: JudgedPair, options: JudgeStatementOptions, consentFor?: string): Promise<StatementJudgement> {
    const { model, signal } = options;
    let requests = 0;
    const counted: ChatModel = {
      id: model.id,
      complete: async (messages, requestOptions): Promise<ChatReply> => {
        if (options.allowed && !(await options.allowed())) throw new ConsentDeclined(consentFor ?? model.id);
        options.onRequest?.(++requests);
        return model.complete(messages, requestOptions);
      },
    };
    try {
      const cache = options.cacheDir ? new ReplyCache(options.cacheDir) : undefined;
      const outcome = await judgePair(pair, {
        model: counted,
        method: options.method,
        cache,
        timeoutMs: options.timeoutMs,
        maxRows: options.maxRows,
        signal,
        facts: this.facts,
      });
      return { outcome };
    } catch (error) {
      if (error instanceof ConsentDeclined) return { declined: error.message };
      const cancelled = error instanceof ChatModelError && error.kind === 'cancelled';
      if (signal?.aborted || cancelled || error instanceof QueryCancelled) return { cancelled: true };
      if (error instanceof ChatModelError) return { modelFailed: error };
      throw error;
    }
  }
}
