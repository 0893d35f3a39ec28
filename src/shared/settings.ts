/**
 * The extension's settings and their defaults, in one place: package.json's `contributes.configuration`
 * declares the same defaults (test/server/settings.test.ts checks they agree), the client reads the
 * configuration through `readSettings`, and the server starts from `DEFAULT_SETTINGS` until the client's
 * first SettingsNotification. Changes take effect at once (no reload).
 */

import { JUDGE_METHODS, JudgeMethod } from '../core/judge/types';
import type { TimingMode } from '../core/eval/types';
import { TECHNIQUES, TechniqueName } from '../core/results/sqlmorph/types';
import type { EmbeddingProviderKind } from '../core/embeddings/createProvider';
import type { PostgresLayout } from '../core/db/source';

export type RuleSeverity = 'off' | 'hint' | 'information' | 'warning' | 'error';
export const RULE_SEVERITIES: readonly RuleSeverity[] = ['off', 'hint', 'information', 'warning', 'error'];

export interface VesLensSettings {
  /** Time limit for one prediction/gold pair, in seconds (the official meta_time_out). */
  timeoutSeconds: number;
  /** Rows one result may have before it is cut off. */
  maxRows: number;
  /** db_id for `.sql` statements that name no question (`-- bird:`) and no database (`-- db:`). */
  defaultDatabase: string;
  codeLensEnabled: boolean;
  /** How Score against gold and Evaluate a Prediction File time a correct pair (the CLI's --timing). */
  timingMode: TimingMode;
  /** Runs per pair with official timing (the CLI's --iterations; the official scripts: 100). */
  timingIterations: number;
  /** Data scales at which Score re-times a correct pair (e.g. [1, 10, 100]); empty: none. */
  scales: number[];
  /** Rewrite hints inside BIRD question files (every gold SQL of the file): off unless asked. */
  diagnosticsInQuestionFiles: boolean;
  /** Per rule id (VL001...): `off`, or the severity its diagnostics get; a rule not listed keeps its own. */
  rules: Record<string, RuleSeverity>;
  /** SQLMorph's techniques Score computes (`all` among them: every one); empty: none (no partial-credit section). */
  techniques: TechniqueSetting[];
  /** SQLMorph's penalize_extra_pred_cols: predicted cells count every predicted column (true) or the matched ones. */
  penalizeExtraColumns: boolean;
  /** Embeddings for the three semantic techniques; the key is in SecretStorage, never in the settings. */
  embeddingsProvider: EmbeddingProviderKind;
  /** OpenAI-compatible base URL (POST {url}/embeddings) and model, for provider `openai`. */
  embeddingsUrl: string;
  embeddingsModel: string;
  /** What runs the dataset's SQL: the SQLite files under its database folder, or PostgreSQL. */
  engine: EngineSetting;
  /**
   * The PostgreSQL server (`postgresql://user@host:port/database`, libpq's environment for what it leaves out),
   * never with a password (that is in SecretStorage, per URL); empty with engine `postgres`: an embedded
   * PostgreSQL loaded from the dataset's SQLite files.
   */
  postgresUrl: string;
  /** How the server holds the BIRD databases: all in one database (the official dump), a schema or a database per db_id. */
  postgresLayout: PostgresLayout;
  /** "Find a faster equivalent": decide on a copy with this many times the rows (1: the database itself). */
  optimizeScale: number;
  /** The whole search of one statement, in seconds: no new candidate is examined past it. */
  optimizeBudgetSeconds: number;
  /** Time limit of one execution during the search, in seconds (a slower original is measured as a bound). */
  optimizeTimeoutSeconds: number;
  /** Seconds for the counterexample search on varied copies of each finalist. */
  optimizeCounterexampleSeconds: number;
  /** Audit Gold SQL also searches each gold for a faster verified equivalent (as `audit --optimize`). */
  optimizeInAudit: boolean;
}

export type EngineSetting = 'sqlite' | 'postgres' | 'mysql';
const ENGINES: Record<EngineSetting, true> = { sqlite: true, postgres: true, mysql: true };
// core's POSTGRES_LAYOUTS (not imported: the client's bundle must not pull in the database drivers)
const POSTGRES_LAYOUTS: Record<PostgresLayout, true> = { 'one-database': true, schema: true, database: true };

/** A `vesLens.techniques` entry: a technique of SQLMorph's by its own name, or `all`. */
export type TechniqueSetting = TechniqueName | 'all';
const EMBEDDING_PROVIDERS: Record<EmbeddingProviderKind, true> = { none: true, openai: true, local: true };

export const DEFAULT_SETTINGS: VesLensSettings = {
  timeoutSeconds: 30,
  maxRows: 500_000,
  defaultDatabase: '',
  codeLensEnabled: true,
  timingMode: 'fast',
  // core's OFFICIAL_ITERATIONS (not imported: the client's bundle must not pull in the timing code and its driver)
  timingIterations: 100,
  scales: [],
  diagnosticsInQuestionFiles: false,
  rules: {},
  techniques: ['all'],
  penalizeExtraColumns: true,
  embeddingsProvider: 'none',
  // core's DEFAULT_EMBEDDINGS_URL and DEFAULT_EMBEDDINGS_MODEL (test/server/settings.test.ts checks they agree)
  embeddingsUrl: 'https://api.openai.com/v1',
  embeddingsModel: 'text-embedding-3-small',
  engine: 'sqlite',
  postgresUrl: '',
  postgresLayout: 'one-database',
  optimizeScale: 1,
  optimizeBudgetSeconds: 60,
  optimizeTimeoutSeconds: 30,
  optimizeCounterexampleSeconds: 5,
  optimizeInAudit: false,
};

/** Setting keys under `vesLens.` (as package.json names them) for each field. */
export const SETTING_KEYS: Record<keyof VesLensSettings, string> = {
  timeoutSeconds: 'timeoutSeconds',
  maxRows: 'maxRows',
  defaultDatabase: 'defaultDatabase',
  codeLensEnabled: 'codeLens.enabled',
  timingMode: 'timing.mode',
  timingIterations: 'timing.iterations',
  scales: 'scales',
  diagnosticsInQuestionFiles: 'diagnostics.questionFiles',
  rules: 'rules',
  techniques: 'techniques',
  penalizeExtraColumns: 'penalizeExtraColumns',
  embeddingsProvider: 'embeddings.provider',
  embeddingsUrl: 'embeddings.url',
  embeddingsModel: 'embeddings.model',
  engine: 'engine',
  postgresUrl: 'postgres.url',
  postgresLayout: 'postgres.layout',
  optimizeScale: 'optimize.scale',
  optimizeBudgetSeconds: 'optimize.budgetSeconds',
  optimizeTimeoutSeconds: 'optimize.timeoutSeconds',
  optimizeCounterexampleSeconds: 'optimize.counterexampleSeconds',
  optimizeInAudit: 'optimize.inAudit',
};

/**
 * Settings from a configuration reader (`vscode.workspace.getConfiguration('vesLens').get`), each value
 * checked: a wrong type or range falls back to the default rather than reaching the server.
 */
export function readSettings(get: (key: string) => unknown): VesLensSettings {
  const number = (key: keyof VesLensSettings, min: number) => {
    const value = get(SETTING_KEYS[key]);
    return typeof value === 'number' && Number.isFinite(value) && value >= min ? value : (DEFAULT_SETTINGS[key] as number);
  };
  const scales = get(SETTING_KEYS.scales);
  const rules = get(SETTING_KEYS.rules);
  const techniques = get(SETTING_KEYS.techniques);
  const provider = get(SETTING_KEYS.embeddingsProvider);
  const timingMode = get(SETTING_KEYS.timingMode);
  const engine = get(SETTING_KEYS.engine);
  const layout = get(SETTING_KEYS.postgresLayout);
  const postgresUrl = get(SETTING_KEYS.postgresUrl);
  const text = (key: 'embeddingsUrl' | 'embeddingsModel') => {
    const value = get(SETTING_KEYS[key]);
    return typeof value === 'string' && value.trim() ? value.trim() : DEFAULT_SETTINGS[key];
  };
  return {
    timeoutSeconds: number('timeoutSeconds', 0.001),
    maxRows: Math.floor(number('maxRows', 1)),
    defaultDatabase:
      typeof get(SETTING_KEYS.defaultDatabase) === 'string'
        ? (get(SETTING_KEYS.defaultDatabase) as string).trim()
        : DEFAULT_SETTINGS.defaultDatabase,
    codeLensEnabled:
      typeof get(SETTING_KEYS.codeLensEnabled) === 'boolean'
        ? (get(SETTING_KEYS.codeLensEnabled) as boolean)
        : DEFAULT_SETTINGS.codeLensEnabled,
    timingMode: timingMode === 'fast' || timingMode === 'official' ? timingMode : DEFAULT_SETTINGS.timingMode,
    timingIterations: Math.floor(number('timingIterations', 1)),
    scales: Array.isArray(scales)
      ? scales.filter((s): s is number => Number.isInteger(s) && s >= 1 && s <= 10_000)
      : DEFAULT_SETTINGS.scales,
    diagnosticsInQuestionFiles: get(SETTING_KEYS.diagnosticsInQuestionFiles) === true,
    rules:
      rules && typeof rules === 'object'
        ? Object.fromEntries(
            Object.entries(rules as Record<string, unknown>)
              .filter((entry): entry is [string, RuleSeverity] => RULE_SEVERITIES.includes(entry[1] as RuleSeverity))
              .map(([rule, severity]) => [rule.toUpperCase(), severity]),
          )
        : DEFAULT_SETTINGS.rules,
    // A list of names (unknown ones dropped); `"all"` or `"none"` written by hand in settings.json are read too.
    techniques: Array.isArray(techniques)
      ? techniques.filter((t): t is TechniqueSetting => t === 'all' || TECHNIQUES.includes(t as TechniqueName))
      : techniques === 'all'
        ? ['all']
        : techniques === 'none'
          ? []
          : DEFAULT_SETTINGS.techniques,
    penalizeExtraColumns:
      typeof get(SETTING_KEYS.penalizeExtraColumns) === 'boolean'
        ? (get(SETTING_KEYS.penalizeExtraColumns) as boolean)
        : DEFAULT_SETTINGS.penalizeExtraColumns,
    embeddingsProvider:
      typeof provider === 'string' && Object.hasOwn(EMBEDDING_PROVIDERS, provider)
        ? (provider as EmbeddingProviderKind)
        : DEFAULT_SETTINGS.embeddingsProvider,
    embeddingsUrl: text('embeddingsUrl'),
    embeddingsModel: text('embeddingsModel'),
    engine: typeof engine === 'string' && Object.hasOwn(ENGINES, engine) ? (engine as EngineSetting) : DEFAULT_SETTINGS.engine,
    postgresUrl: typeof postgresUrl === 'string' ? postgresUrl.trim() : DEFAULT_SETTINGS.postgresUrl,
    postgresLayout:
      typeof layout === 'string' && Object.hasOwn(POSTGRES_LAYOUTS, layout) ? (layout as PostgresLayout) : DEFAULT_SETTINGS.postgresLayout,
    optimizeScale: Number.isInteger(get(SETTING_KEYS.optimizeScale))
      ? Math.min(1000, number('optimizeScale', 1))
      : DEFAULT_SETTINGS.optimizeScale,
    optimizeBudgetSeconds: number('optimizeBudgetSeconds', 1),
    optimizeTimeoutSeconds: number('optimizeTimeoutSeconds', 0.1),
    optimizeCounterexampleSeconds: number('optimizeCounterexampleSeconds', 0),
    optimizeInAudit: get(SETTING_KEYS.optimizeInAudit) === true,
  };
}

/**
 * A PostgreSQL URL without its password (user info and `password=` parameter): what a stored password is kept
 * under, so a password is only ever sent to the server it was given for. Client and server both key by it.
 */
export function passwordScope(url: string): string {
  try {
    const parsed = new URL(url.trim());
    parsed.password = '';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return url.trim();
  }
}

/** The password a URL setting holds itself (settings are plain text: the client offers to move it to SecretStorage). */
export function passwordInUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url.trim());
    const password = decodeURIComponent(parsed.password) || parsed.searchParams.get('password') || '';
    return password || undefined;
  } catch {
    return undefined;
  }
}

// ---- the LLM judge (client side only: the client picks the model and passes it with each Judge request) ----

export type JudgeProvider = 'vscode-lm' | 'openai';
export const JUDGE_PROVIDERS: readonly JudgeProvider[] = ['vscode-lm', 'openai'];

export interface JudgeSettings {
  /** `vscode-lm`: a chat model of VS Code's language-model API (no key); `openai`: an OpenAI-compatible endpoint. */
  provider: JudgeProvider;
  /** vscode.lm's selector: vendor (e.g. `copilot`) and family (e.g. `gpt-4o`); empty matches any. */
  vendor: string;
  family: string;
  /** The OpenAI-compatible endpoint's base URL and model name (its key is in SecretStorage, never here). */
  url: string;
  model: string;
  method: JudgeMethod;
}

export const DEFAULT_JUDGE_SETTINGS: JudgeSettings = {
  provider: 'vscode-lm',
  vendor: '',
  family: '',
  url: 'https://api.openai.com/v1',
  model: '',
  method: 'rose',
};

/** Setting keys under `vesLens.` for each judge field. */
export const JUDGE_SETTING_KEYS: Record<keyof JudgeSettings, string> = {
  provider: 'judge.provider',
  vendor: 'judge.vendor',
  family: 'judge.family',
  url: 'judge.url',
  model: 'judge.model',
  method: 'judge.method',
};

/** The judge's settings from a configuration reader, each checked (a wrong value falls back to the default). */
export function readJudgeSettings(get: (key: string) => unknown): JudgeSettings {
  const text = (key: keyof JudgeSettings) => {
    const value = get(JUDGE_SETTING_KEYS[key]);
    return typeof value === 'string' ? value.trim() : (DEFAULT_JUDGE_SETTINGS[key] as string);
  };
  const provider = get(JUDGE_SETTING_KEYS.provider);
  const method = get(JUDGE_SETTING_KEYS.method);
  return {
    provider: JUDGE_PROVIDERS.includes(provider as JudgeProvider) ? (provider as JudgeProvider) : DEFAULT_JUDGE_SETTINGS.provider,
    vendor: text('vendor'),
    family: text('family'),
    url: text('url') || DEFAULT_JUDGE_SETTINGS.url,
    model: text('model'),
    method: JUDGE_METHODS.includes(method as JudgeMethod) ? (method as JudgeMethod) : DEFAULT_JUDGE_SETTINGS.method,
  };
}
