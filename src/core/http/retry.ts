import { setTimeout as delay } from 'node:timers/promises';

/**
 * What the embeddings and chat clients share about retrying an HTTP request: waiting (cut short by a cancel)
 * and how long the server asked them to wait.
 */

/** Waits `ms`, or rejects at once when `signal` aborts (Node's own abortable timer). */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal });
}

/**
 * The wait a response asks for, in ms: OpenAI's `retry-after-ms`, else `Retry-After` as seconds or an HTTP
 * date; undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Pick<Headers, 'get'>, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const header = headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
