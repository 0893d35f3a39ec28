import { CachedEmbeddings, defaultCacheDir } from './diskCache';
import { LocalEmbeddings } from './localModel';
import { DEFAULT_EMBEDDINGS_MODEL, DEFAULT_EMBEDDINGS_URL, OpenAiEmbeddings } from './openaiCompatible';
import { EmbeddingProvider } from './provider';
import { ServiceGuardOptions } from '../http/serviceGuard';

export type EmbeddingProviderKind = 'none' | 'local' | 'openai';
export const EMBEDDING_PROVIDER_KINDS: readonly EmbeddingProviderKind[] = ['none', 'local', 'openai'];

/** The same settings in the CLI (`--embeddings*`) and in the editor (`vesLens.embeddings.*`). */
export interface EmbeddingSettings {
  provider: EmbeddingProviderKind;
  /** OpenAI-compatible base URL (POST {url}/embeddings). */
  url?: string;
  model?: string;
  /** The key itself (the CLI reads it from the environment variable its option names; the editor from SecretStorage). */
  apiKey?: string;
  /** Cache folder, or false for none. Default: defaultCacheDir(). */
  cacheDir?: string | false;
  /** Where the key is set, said when the endpoint refuses it (401). */
  keyHint?: string;
  /** A whole run (the CLI): give the endpoint up after failures in a row or past a deadline (http/serviceGuard.ts). */
  failFast?: ServiceGuardOptions;
  /** Time limit for one request to the endpoint, in ms (default 120 s). */
  requestTimeoutMs?: number;
}

/** The provider the settings describe, cached on disk unless told not to; undefined for `none`. */
export function createEmbeddingProvider(settings: EmbeddingSettings): EmbeddingProvider | undefined {
  let provider: EmbeddingProvider;
  if (settings.provider === 'none') return undefined;
  if (settings.provider === 'local') provider = new LocalEmbeddings();
  else
    provider = new OpenAiEmbeddings({
      baseUrl: settings.url ?? DEFAULT_EMBEDDINGS_URL,
      model: settings.model ?? DEFAULT_EMBEDDINGS_MODEL,
      apiKey: settings.apiKey,
      keyHint: settings.keyHint,
      failFast: settings.failFast,
      requestTimeoutMs: settings.requestTimeoutMs,
    });
  return settings.cacheDir === false ? provider : new CachedEmbeddings(provider, settings.cacheDir ?? defaultCacheDir());
}
