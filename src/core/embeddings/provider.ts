/**
 * The one interface behind which every embedding model sits: an OpenAI-compatible endpoint, the local model,
 * or a test's fake. SQLMorph's semantic techniques only ever ask "embed these texts".
 */
export interface EmbeddingProvider {
  /** Names the model and where it runs (e.g. `openai-compatible:text-embedding-3-small@https://api.openai.com/v1`): the cache key's prefix. */
  readonly id: string;
  /** One vector per text, in order. Rejects with an EmbeddingError that says what went wrong. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** A failure a user can act on (no key, a bad URL, a model that refuses): said in the technique's `error`. */
export class EmbeddingError extends Error {}
