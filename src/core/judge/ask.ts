import { ChatMessage, ChatModel, ChatModelError, ChatUsage } from '../llm/chatModel';
import { extractJsonObject } from '../llm/jsonReply';
import { ReplyCache, replyKey } from '../llm/replyCache';
import { repairMessage } from './prompts';

/** Reads one role's answer from the reply's JSON object: the value, or why it is unusable. */
export type ReplyReader<T> = (value: Record<string, unknown>) => { ok: true; value: T } | { ok: false; error: string };

export interface AskResult<T> {
  value?: T;
  /** `judge_error: ...` or `model_error: ...` when there is no value. */
  error?: string;
  calls: number;
  cachedCalls: number;
  usage: ChatUsage;
}

function read<T>(text: string, reader: ReplyReader<T>): { ok: true; value: T } | { ok: false; error: string } {
  const json = extractJsonObject(text);
  return json.ok ? reader(json.value) : json;
}

/**
 * Asks for one JSON answer. A cached reply for the same (model, messages) is used without a call. A reply that
 * cannot be read gets one follow-up naming the problem; if that fails too, the answer is a `judge_error` (never
 * a silent 0). A request that gets no reply is a `model_error`, except fatal ones (wrong key, endpoint, model),
 * which are thrown: every other request would fail alike. Only usable replies are cached, under the first prompt.
 */
export async function askForJson<T>(
  model: ChatModel,
  messages: ChatMessage[],
  reader: ReplyReader<T>,
  options: { cache?: ReplyCache; signal?: AbortSignal; keys: string },
): Promise<AskResult<T>> {
  const usage: ChatUsage = { promptTokens: 0, completionTokens: 0 };
  const key = replyKey(model.id, messages);
  const cached = options.cache?.get(key);
  if (cached) {
    const parsed = read(cached.text, reader);
    if (parsed.ok) return { value: parsed.value, calls: 1, cachedCalls: 1, usage };
  }
  let calls = 0;
  const call = async (conversation: ChatMessage[]) => {
    calls++;
    const reply = await model.complete(conversation, { signal: options.signal });
    usage.promptTokens += reply.usage?.promptTokens ?? 0;
    usage.completionTokens += reply.usage?.completionTokens ?? 0;
    return reply;
  };
  try {
    const first = await call(messages);
    let parsed = read(first.text, reader);
    let text = first.text;
    if (!parsed.ok) {
      const firstError = parsed.error;
      const second = await call([...messages, { role: 'assistant', content: first.text }, repairMessage(firstError, options.keys)]);
      parsed = read(second.text, reader);
      text = second.text;
      if (!parsed.ok) return { error: `judge_error: ${firstError}; after one retry: ${parsed.error}`, calls, cachedCalls: 0, usage };
    }
    options.cache?.put(key, { model: model.id, text, usage: { ...usage }, created: new Date().toISOString() });
    return { value: parsed.value, calls, cachedCalls: 0, usage };
  } catch (error) {
    if (error instanceof ChatModelError && (error.fatal || error.kind === 'cancelled')) throw error;
    return { error: `model_error: ${(error as Error).message}`, calls, cachedCalls: 0, usage };
  }
}
