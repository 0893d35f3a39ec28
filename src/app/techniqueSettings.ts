/**
 * SQLMorph's techniques for an eval run (`--techniques`, the embeddings behind the semantic ones), checked before any
 * work: unknown names, an unknown embeddings provider, a URL that is none, or an `openai` provider without its key
 * where the techniques need it. A refusal names the option as the CLI spells it (RunRefused).
 */
import { EMBEDDING_PROVIDER_KINDS, EmbeddingProviderKind, EmbeddingSettings } from '../core/embeddings/createProvider';
import { defaultCacheDir } from '../core/embeddings/diskCache';
import { DEFAULT_EMBEDDINGS_MODEL, DEFAULT_EMBEDDINGS_URL } from '../core/embeddings/openaiCompatible';
import { TechniqueStep, techniqueStep } from '../core/eval/techniqueStep';
import {
  embeddingSettingsProblem,
  needsEmbeddings,
  resolveTechniques,
  techniqueEmbeddings,
} from '../core/results/sqlmorph/techniqueChoice';
import { TECHNIQUES, TechniqueName } from '../core/results/sqlmorph/types';
import { quoted } from '../core/text/problemText';
import { RunRefused } from './runRefused';

/** What the technique options may be, for a face's help: the names, the providers, the embeddings' defaults. */
export function techniqueChoices() {
  return {
    techniques: TECHNIQUES,
    providers: EMBEDDING_PROVIDER_KINDS,
    embeddingsUrl: DEFAULT_EMBEDDINGS_URL,
    embeddingsModel: DEFAULT_EMBEDDINGS_MODEL,
    embeddingsCacheDir: defaultCacheDir(),
  };
}

/** The techniques a face asks for, as it parsed them. */
export interface TechniqueRequest {
  /** The names as given (`all` for every one). */
  names: readonly string[];
  penalizeExtraColumns: boolean;
  /** The embeddings provider as given, checked here; the rest of the embeddings' settings as the face has them. */
  embeddings: Omit<EmbeddingSettings, 'provider'> & { provider: string };
  /** Where the face reads the key from, said when an `openai` provider has none. */
  keySource: string;
}

/** What `inputs.techniques` of the JSON report records. */
export interface TechniqueInputs {
  names: TechniqueName[];
  penalize_extra_columns: boolean;
  embeddings: { provider: EmbeddingProviderKind; model?: string; url?: string } | null;
}

/** The eval step for the techniques asked for, and what the report records of them; RunRefused naming the option. */
export function prepareTechniques(request: TechniqueRequest): { step: TechniqueStep; inputs: TechniqueInputs } {
  const { techniques: names, unknown } = resolveTechniques(request.names);
  if (unknown.length)
    throw new RunRefused('--techniques', `unknown technique ${quoted(unknown[0])} (choose from ${TECHNIQUES.join(', ')}, or all)`);
  if (names.length === 0) throw new RunRefused('--techniques', 'name at least one technique, or all');
  const kind = request.embeddings.provider as EmbeddingProviderKind;
  if (!EMBEDDING_PROVIDER_KINDS.includes(kind))
    throw new RunRefused(
      '--embeddings',
      `expected one of ${EMBEDDING_PROVIDER_KINDS.join(', ')}, got ${quoted(request.embeddings.provider)}`,
    );
  const settings: EmbeddingSettings = {
    ...request.embeddings,
    provider: kind,
    apiKey: kind === 'openai' ? request.embeddings.apiKey : undefined,
  };
  const problem = embeddingSettingsProblem(settings);
  if (problem === 'bad-url') throw new RunRefused('--embeddings-url', `not a URL: ${quoted(settings.url ?? '')}`);
  if (problem === 'missing-key' && needsEmbeddings(names))
    throw new RunRefused('--embeddings openai', `${request.keySource} holds no API key`);
  const embeddings = techniqueEmbeddings(names, settings);
  const penalize = request.penalizeExtraColumns;
  return {
    step: techniqueStep({ techniques: names, penalizeExtraColumns: penalize, embeddings }),
    inputs: {
      names,
      penalize_extra_columns: penalize,
      embeddings:
        kind === 'none'
          ? null
          : kind === 'local'
            ? { provider: kind }
            : { provider: kind, model: settings.model ?? DEFAULT_EMBEDDINGS_MODEL, url: settings.url ?? DEFAULT_EMBEDDINGS_URL },
    },
  };
}
