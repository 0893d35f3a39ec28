/**
 * Which of SQLMorph's techniques to score and with which embeddings, as the CLI's flags (`--techniques`,
 * `--penalize-extra-columns`, `--embeddings*`) and the editor's settings (`vesLens.techniques`,
 * `vesLens.penalizeExtraColumns`, `vesLens.embeddings.*`) both give it: one reading of the names, one check of
 * the embedding settings, one way to the provider. Each front end words its own messages (a flag, a setting).
 */
import { createEmbeddingProvider, EmbeddingSettings } from '../../embeddings/createProvider';
import { DEFAULT_EMBEDDINGS_URL } from '../../embeddings/openaiCompatible';
import { EmbeddingProvider } from '../../embeddings/provider';
import { orderedTechniques } from './scoreTechniques';
import { SEMANTIC_TECHNIQUES, TECHNIQUES, TechniqueName } from './types';

/** Technique names as given (`all` alone or among them: every technique), in SQLMorph's order; names it does not know are returned apart. */
export function resolveTechniques(names: readonly string[]): { techniques: TechniqueName[]; unknown: string[] } {
  const wanted = names.map((n) => n.trim()).filter(Boolean);
  if (wanted.some((n) => n.toLowerCase() === 'all'))
    return {
      techniques: [...TECHNIQUES],
      unknown: wanted.filter((n) => n.toLowerCase() !== 'all' && !TECHNIQUES.includes(n as TechniqueName)),
    };
  return {
    techniques: orderedTechniques(wanted.filter((n): n is TechniqueName => TECHNIQUES.includes(n as TechniqueName))),
    unknown: wanted.filter((n) => !TECHNIQUES.includes(n as TechniqueName)),
  };
}

/** Whether any of the techniques needs embeddings (the three semantic ones). */
export const needsEmbeddings = (techniques: readonly TechniqueName[]): boolean => techniques.some((t) => SEMANTIC_TECHNIQUES.includes(t));

/** What keeps embedding settings from working: a URL that is none, or OpenAI's own API without a key (it answers 401 to every request). */
export type EmbeddingSettingsProblem = 'bad-url' | 'missing-key';

export function embeddingSettingsProblem(settings: EmbeddingSettings): EmbeddingSettingsProblem | undefined {
  if (settings.provider !== 'openai') return undefined;
  let url: URL;
  try {
    url = new URL(settings.url ?? DEFAULT_EMBEDDINGS_URL);
  } catch {
    return 'bad-url';
  }
  // Other OpenAI-compatible servers (ollama, vLLM, LM Studio) usually take requests without one.
  return !settings.apiKey && url.hostname === 'api.openai.com' ? 'missing-key' : undefined;
}

/** The provider the semantic techniques among `techniques` use: none when none of them is asked for, or for provider `none`. */
export function techniqueEmbeddings(techniques: readonly TechniqueName[], settings: EmbeddingSettings): EmbeddingProvider | undefined {
  return needsEmbeddings(techniques) ? createEmbeddingProvider(settings) : undefined;
}
