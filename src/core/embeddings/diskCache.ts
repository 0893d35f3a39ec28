import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { writeCacheEntry } from '../io/cacheFile';
import { cacheFolder } from '../io/cacheHome';
import { EmbeddingProvider } from './provider';

/** Where embeddings are cached unless told otherwise: $XDG_CACHE_HOME/ves-lens/embeddings, or ~/.cache/ves-lens/embeddings. */
export function defaultCacheDir(): string {
  return cacheFolder('embeddings');
}

/** The cache key of one text under one model: SHA-256 of the provider id and the text. */
export function embeddingKey(providerId: string, text: string): string {
  return createHash('sha256').update(providerId).update('\u0000').update(text).digest('hex');
}

/**
 * Wraps a provider with a disk cache keyed by content hash (provider id + text), one small file of float32s
 * per vector: a re-run asks the provider for nothing it has answered before. Files are written to a temporary
 * name and renamed (io/cacheFile.ts), so concurrent runs never read half a vector and a killed run's temporary is
 * cleaned by the next; an unreadable entry is just asked again.
 * Repeated texts within one call are asked once.
 */
export class CachedEmbeddings implements EmbeddingProvider {
  readonly id: string;
  /** How many texts the wrapped provider was asked for (the rest came from the cache): for reports and tests. */
  requested = 0;

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly dir: string,
  ) {
    this.id = provider.id;
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.f32`);
  }

  private read(key: string): Float32Array | undefined {
    try {
      const bytes = fs.readFileSync(this.file(key));
      if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
      const copy = new Uint8Array(bytes);
      return new Float32Array(copy.buffer, 0, copy.length / 4);
    } catch {
      return undefined;
    }
  }

  private write(key: string, vector: Float32Array): void {
    try {
      writeCacheEntry(this.file(key), Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    } catch {
      // A cache that cannot be written only costs a repeat request next time.
    }
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = texts.map((text) => embeddingKey(this.id, text));
    const found = new Map<string, Float32Array>();
    const missing: { key: string; text: string }[] = [];
    const asked = new Set<string>();
    keys.forEach((key, i) => {
      if (found.has(key) || asked.has(key)) return;
      const cached = this.read(key);
      if (cached) found.set(key, cached);
      else {
        asked.add(key);
        missing.push({ key, text: texts[i] });
      }
    });
    if (missing.length) {
      this.requested += missing.length;
      const vectors = await this.provider.embed(
        missing.map((m) => m.text),
        signal,
      );
      missing.forEach(({ key }, i) => {
        found.set(key, vectors[i]);
        this.write(key, vectors[i]);
      });
    }
    return keys.map((key) => found.get(key)!);
  }
}
