/**
 * The chat models the editor's "Judge" uses, behind core's ChatModel: an OpenAI-compatible endpoint called from
 * the server itself (core's client), or one of VS Code's models (vscode.lm), which only the extension host can
 * reach: each completion then goes to the client as a ChatCompletionRequest.
 */
import { ChatMessage, ChatModel, ChatModelError, ChatReply, ChatRequestOptions, withoutSystemRole } from '../../core/llm/chatModel';
import { chatCompletionsUrl, OpenAiChatModel } from '../../core/llm/openAiChat';
import { ChatCompletionErrors, ChatCompletionParams, ChatCompletionResult, JudgeModelSpec } from '../../shared/protocol';

/** Sends a ChatCompletionRequest to the client; rejects with the client's `{ code, message }` or on cancellation. */
export type ClientChat = (params: ChatCompletionParams, signal?: AbortSignal) => Promise<ChatCompletionResult>;

/** A vscode.lm model, reached through the client. Its failures become core's ChatModelError kinds. */
export class ClientChatModel implements ChatModel {
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
      const { code, message } = error as { code?: number; message?: string };
      // No model, no consent, blocked: every other request would fail alike, so the judgement stops with the message.
      if (code === ChatCompletionErrors.unavailable)
        throw new ChatModelError(message ?? 'the chat model is unavailable', 'http', { fatal: true });
      throw new ChatModelError(`${this.spec.name}: ${message ?? String(error)}`, 'network');
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
  return new OpenAiChatModel({ endpoint: spec.url, model: spec.model.trim(), apiKey: apiKey || undefined });
}

/** A judge setting that cannot work (its message names the setting). */
export class JudgeSettingError extends Error {}

/** A fatal model error (wrong key, endpoint or model; no vscode.lm model), as a message that names what to change. */
export function fatalModelMessage(error: ChatModelError, spec: JudgeModelSpec): string {
  if (spec.provider === 'vscode-lm') return error.message;
  const status = error.details.status;
  const where = `${spec.model} at ${chatCompletionsUrl(spec.url)}`;
  if (status === 401 || status === 403)
    return `the endpoint refused the key (${where}): run "VES Lens: Set Judge API Key". ${error.message}`;
  if (status === 404) return `no such model or endpoint (${where}): check vesLens.judge.url and vesLens.judge.model. ${error.message}`;
  return `the endpoint cannot be reached (${where}): check vesLens.judge.url. ${error.message}`;
}
