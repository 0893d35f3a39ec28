import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { writeCacheEntry } from '../io/cacheFile';
import { ChatMessage, ChatUsage } from './chatModel';
import { cacheFolder } from '../io/cacheHome';

/** A reply kept on disk: the text the model wrote for one (model, prompt), and what it cost the first time. */
export interface CachedReply {
  model: string;
  text: string;
  usage?: ChatUsage;
  created: string;
}

/** Where replies are cached unless told otherwise: $XDG_CACHE_HOME/ves-lens/judge, or ~/.cache/ves-lens/judge. */
export function defaultCacheDir(): string {
  return cacheFolder('judge');
}

/** The cache key: SHA-256 of the model id and every message, role and text. */
export function replyKey(modelId: string, messages: readonly ChatMessage[]): string {
  return createHash('sha256')
    .update(JSON.stringify({ model: modelId, messages: messages.map((m) => [m.role, m.content]) }))
    .digest('hex');
}

/**
 * Model replies on disk, one JSON file per (model, prompt) hash, so a re-run of the same judgement costs no
 * call. Only replies that were usable are stored (a malformed one is asked again next time). Files are written
 * beside their place and renamed into it (io/cacheFile.ts), so parallel runs never read half a file and a killed
 * run's temporary is cleaned by the next. A cache that cannot be read or written is no cache: the run goes on
 * without it.
 */
export class ReplyCache {
  constructor(readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  get(key: string): CachedReply | undefined {
    try {
      const value = JSON.parse(fs.readFileSync(this.file(key), 'utf8'));
      return typeof value?.text === 'string' ? (value as CachedReply) : undefined;
    } catch {
      return undefined;
    }
  }

  put(key: string, reply: CachedReply): void {
    try {
      writeCacheEntry(this.file(key), JSON.stringify(reply));
    } catch {
      // a read-only or full disk: the reply is simply not kept
    }
  }
}
