/**
 * The one interface between VES Lens and a chat model (docs/architecture.md: anything that talks to the outside sits behind
 * one small interface in core). Implemented by the OpenAI-compatible HTTP client (openAiChat.ts) and, in the
 * editor, by an adapter over VS Code's `vscode.lm`; tests drive it with a loopback server or an in-memory fake.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Tokens one request used, as the provider counts them (absent when it does not say). */
export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatReply {
  /** The assistant message's text, as the model wrote it (JSON is extracted later, see jsonReply.ts). */
  text: string;
  usage?: ChatUsage;
}

export interface ChatRequestOptions {
  /** Aborts the request (a cancelled editor command, a stopped run). */
  signal?: AbortSignal;
}

export interface ChatModel {
  /**
   * Names the model for caches and reports, e.g. `openai-compatible:gpt-4o` or `vscode-lm:copilot/gpt-4o`.
   * Two models with the same id must answer the same prompt alike: replies are cached under it.
   */
  readonly id: string;
  /**
   * One chat completion. An adapter whose API has no system role (vscode.lm) puts the system message at the
   * top of the first user message. Throws ChatModelError for anything but a reply.
   */
  complete(messages: readonly ChatMessage[], options?: ChatRequestOptions): Promise<ChatReply>;
}

export type ChatFailureKind = 'timeout' | 'http' | 'network' | 'protocol' | 'cancelled';

/**
 * A request that produced no reply. `fatal` failures (a wrong key, endpoint or model name: 401, 403, 404, a host
 * that refuses connections) would fail every other request alike, so a run stops on the first one.
 */
export class ChatModelError extends Error {
  constructor(
    message: string,
    readonly kind: ChatFailureKind,
    readonly details: { status?: number; retryable?: boolean; fatal?: boolean } = {},
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.details.retryable ?? false;
  }

  get fatal(): boolean {
    return this.details.fatal ?? false;
  }
}

/** A message of a chat API without a system role (vscode.lm). */
export type UserOrAssistantMessage = ChatMessage & { role: Exclude<ChatRole, 'system'> };

/** The system message folded into the first user message, for chat APIs without a system role (vscode.lm). */
export function withoutSystemRole(messages: readonly ChatMessage[]): UserOrAssistantMessage[] {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const rest = messages.filter((m): m is UserOrAssistantMessage => m.role !== 'system');
  if (system.length === 0) return rest.map((m) => ({ ...m }));
  const firstUser = rest.findIndex((m) => m.role === 'user');
  if (firstUser === -1) return [{ role: 'user', content: system.join('\n\n') }, ...rest];
  return rest.map((m, i) => (i === firstUser ? { role: 'user', content: `${system.join('\n\n')}\n\n${m.content}` } : { ...m }));
}
