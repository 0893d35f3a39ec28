import { Command } from 'commander';
import type { TechniqueStep } from '../core/eval/techniqueStep';
import { quoted } from '../core/text/problemText';
import { prepareTechniques, techniqueChoices, TechniqueInputs } from '../app/techniqueSettings';
import { timeoutMs, UsageError } from './common';

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
  const { techniques, providers, embeddingsUrl, embeddingsModel, embeddingsCacheDir } = techniqueChoices();
  return command
    .option('--techniques <list>', `SQLMorph's result-comparison techniques: comma-separated names (${techniques.join(', ')}) or all`)
    .option(
      '--penalize-extra-columns <bool>',
      "SQLMorph's penalize_extra_pred_cols: predicted cells count every predicted column (true) or only the matched ones (false)",
      'true',
    )
    .option(
      '--embeddings <provider>',
      `embeddings for the semantic techniques: ${providers.join(', ')} (openai: any OpenAI-compatible /embeddings endpoint)`,
      'none',
    )
    .option('--embeddings-url <url>', 'base URL of the OpenAI-compatible API (POST <url>/embeddings)', embeddingsUrl)
    .option('--embeddings-model <name>', 'embedding model (SQLMorph: text-embedding-3-small)', embeddingsModel)
    .option('--embeddings-key-env <name>', 'environment variable that holds the API key (never printed)', 'OPENAI_API_KEY')
    .option('--embeddings-cache <dir>', `cache of embeddings by content hash (default ${embeddingsCacheDir})`)
    .option('--no-embeddings-cache', 'ask the provider for every text, cache nothing')
    .option('--embeddings-timeout <seconds>', 'time limit for one request to the embeddings endpoint, its whole answer included', '120')
    .option(
      '--embeddings-deadline <seconds>',
      'time limit for the whole run with the embeddings endpoint (exit 2 when it passes); an endpoint that fails 3 times in a row (refused, hanging, an HTML page) stops the run at once',
      String(DEFAULT_EMBEDDINGS_DEADLINE_S),
    );
}

export function parseBoolean(flag: string, text: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === 'true' || value === '1' || value === 'yes') return true;
  if (value === 'false' || value === '0' || value === 'no') return false;
  throw new UsageError(`${flag}: expected true or false, got ${quoted(text)}`);
}

const techniqueCacheDir = (options: TechniqueCliOptions) =>
  options.embeddingsCache === false ? false : typeof options.embeddingsCache === 'string' ? options.embeddingsCache : undefined;

/**
 * The eval step for --techniques (undefined without it), checked before any work (app/techniqueSettings.ts): unknown
 * names, a bad boolean, an unknown provider, or an `openai` provider whose key variable is unset at a URL that needs one.
 */
export function techniqueSettings(options: TechniqueCliOptions): { step: TechniqueStep; inputs: TechniqueInputs } | undefined {
  if (options.techniques === undefined) return undefined;
  const variable = options.embeddingsKeyEnv ?? 'OPENAI_API_KEY';
  return prepareTechniques({
    names: options.techniques.split(','),
    penalizeExtraColumns: parseBoolean('--penalize-extra-columns', options.penalizeExtraColumns ?? 'true'),
    embeddings: {
      provider: options.embeddings ?? 'none',
      url: options.embeddingsUrl,
      model: options.embeddingsModel,
      apiKey: process.env[variable] || undefined,
      cacheDir: techniqueCacheDir(options),
      keyHint: `it is read from the environment variable ${variable}`,
      requestTimeoutMs: timeoutMs('--embeddings-timeout', options.embeddingsTimeout ?? 120),
      failFast: {
        what: 'the embeddings endpoint (--embeddings-url)',
        deadlineMs: timeoutMs('--embeddings-deadline', options.embeddingsDeadline ?? DEFAULT_EMBEDDINGS_DEADLINE_S),
        deadlineHint: 'raise it with --embeddings-deadline <seconds>',
      },
    },
    keySource: `the environment variable ${variable} (--embeddings-key-env)`,
  });
}
