import { Command } from 'commander';
import { TechniqueStep, techniqueStep } from '../core/eval/techniqueStep';
import {
  embeddingSettingsProblem,
  needsEmbeddings,
  resolveTechniques,
  techniqueEmbeddings,
} from '../core/results/sqlmorph/techniqueChoice';
import { TECHNIQUES, TechniqueName } from '../core/results/sqlmorph/types';
import { EMBEDDING_PROVIDER_KINDS, EmbeddingProviderKind, EmbeddingSettings } from '../core/embeddings/createProvider';
import { defaultCacheDir } from '../core/embeddings/diskCache';
import { DEFAULT_EMBEDDINGS_MODEL, DEFAULT_EMBEDDINGS_URL } from '../core/embeddings/openaiCompatible';
import { quoted, timeoutMs, UsageError } from './common';

/** `eval`'s options for SQLMorph's techniques, as commander hands them over. */
export interface TechniqueCliOptions {
  techniques?: string;
  penalizeExtraColumns?: string;
  embeddings?: string;
  embeddingsUrl?: string;
  embeddingsModel?: string;
  embeddingsKeyEnv?: string;
  /** A folder, or false with --no-embeddings-cache. */
  embeddingsCache?: string | boolean;
  embeddingsTimeout?: string;
  embeddingsDeadline?: string;
}

/** The embeddings' default deadline for a whole run: a backstop; a dead endpoint stops after 3 failures in a row. */
const DEFAULT_EMBEDDINGS_DEADLINE_S = 12 * 3600;

/** Adds the technique options to `eval` (one place for their names, help and defaults). */
export function addTechniqueOptions(command: Command): Command {
  return command
    .option('--techniques <list>', `SQLMorph's result-comparison techniques: comma-separated names (${TECHNIQUES.join(', ')}) or all`)
    .option(
      '--penalize-extra-columns <bool>',
      "SQLMorph's penalize_extra_pred_cols: predicted cells count every predicted column (true) or only the matched ones (false)",
      'true',
    )
    .option(
      '--embeddings <provider>',
      `embeddings for the semantic techniques: ${EMBEDDING_PROVIDER_KINDS.join(', ')} (openai: any OpenAI-compatible /embeddings endpoint)`,
      'none',
    )
    .option('--embeddings-url <url>', 'base URL of the OpenAI-compatible API (POST <url>/embeddings)', DEFAULT_EMBEDDINGS_URL)
    .option('--embeddings-model <name>', 'embedding model (SQLMorph: text-embedding-3-small)', DEFAULT_EMBEDDINGS_MODEL)
    .option('--embeddings-key-env <name>', 'environment variable that holds the API key (never printed)', 'OPENAI_API_KEY')
    .option('--embeddings-cache <dir>', `cache of embeddings by content hash (default ${defaultCacheDir()})`)
    .option('--no-embeddings-cache', 'ask the provider for every text, cache nothing')
    .option('--embeddings-timeout <seconds>', 'time limit for one request to the embeddings endpoint, its whole answer included', '120')
    .option(
      '--embeddings-deadline <seconds>',
      'time limit for the whole run with the embeddings endpoint (exit 2 when it passes); an endpoint that fails 3 times in a row (refused, hanging, an HTML page) stops the run at once',
      String(DEFAULT_EMBEDDINGS_DEADLINE_S),
    );
}

export function parseTechniques(text: string): TechniqueName[] {
  const { techniques, unknown } = resolveTechniques(text.split(','));
  if (unknown.length)
    throw new UsageError(`--techniques: unknown technique ${quoted(unknown[0])} (choose from ${TECHNIQUES.join(', ')}, or all)`);
  if (techniques.length === 0) throw new UsageError('--techniques: name at least one technique, or all');
  return techniques;
}

export function parseBoolean(flag: string, text: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === 'true' || value === '1' || value === 'yes') return true;
  if (value === 'false' || value === '0' || value === 'no') return false;
  throw new UsageError(`${flag}: expected true or false, got ${quoted(text)}`);
}

const techniqueCacheDir = (options: TechniqueCliOptions) =>
  options.embeddingsCache === false ? false : typeof options.embeddingsCache === 'string' ? options.embeddingsCache : undefined;

/** What `inputs.techniques` of the JSON report records. */
export interface TechniqueInputs {
  names: TechniqueName[];
  penalize_extra_columns: boolean;
  embeddings: { provider: EmbeddingProviderKind; model?: string; url?: string } | null;
}

/**
 * The eval step for --techniques (undefined without it), checked before any work: unknown names, a bad
 * boolean, an unknown provider, or an `openai` provider whose key variable is unset at a URL that needs one.
 */
export function techniqueSettings(options: TechniqueCliOptions): { step: TechniqueStep; inputs: TechniqueInputs } | undefined {
  if (options.techniques === undefined) return undefined;
  const names = parseTechniques(options.techniques);
  const penalize = parseBoolean('--penalize-extra-columns', options.penalizeExtraColumns ?? 'true');
  const kind = (options.embeddings ?? 'none') as EmbeddingProviderKind;
  if (!EMBEDDING_PROVIDER_KINDS.includes(kind))
    throw new UsageError(`--embeddings: expected one of ${EMBEDDING_PROVIDER_KINDS.join(', ')}, got ${quoted(options.embeddings ?? '')}`);
  const variable = options.embeddingsKeyEnv ?? 'OPENAI_API_KEY';
  const apiKey = kind === 'openai' ? process.env[variable] || undefined : undefined;
  const settings: EmbeddingSettings = {
    provider: kind,
    url: options.embeddingsUrl,
    model: options.embeddingsModel,
    apiKey,
    cacheDir: techniqueCacheDir(options),
    keyHint: `it is read from the environment variable ${variable}`,
    requestTimeoutMs: timeoutMs('--embeddings-timeout', options.embeddingsTimeout ?? 120),
    failFast: {
      what: 'the embeddings endpoint (--embeddings-url)',
      deadlineMs: timeoutMs('--embeddings-deadline', options.embeddingsDeadline ?? DEFAULT_EMBEDDINGS_DEADLINE_S),
      deadlineHint: 'raise it with --embeddings-deadline <seconds>',
    },
  };
  const problem = embeddingSettingsProblem(settings);
  if (problem === 'bad-url') throw new UsageError(`--embeddings-url: not a URL: ${quoted(options.embeddingsUrl ?? '')}`);
  if (problem === 'missing-key' && needsEmbeddings(names))
    throw new UsageError(`--embeddings openai: the environment variable ${variable} (--embeddings-key-env) holds no API key`);
  const embeddings = techniqueEmbeddings(names, settings);
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
            : {
                provider: kind,
                model: options.embeddingsModel ?? DEFAULT_EMBEDDINGS_MODEL,
                url: options.embeddingsUrl ?? DEFAULT_EMBEDDINGS_URL,
              },
    },
  };
}
