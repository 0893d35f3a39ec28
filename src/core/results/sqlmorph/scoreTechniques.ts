import { EmbeddingError, EmbeddingProvider } from '../../embeddings/provider';
import { exactColumnTechnique } from './exactColumn';
import { TooManyPairs } from './greedy';
import { noColumnTechnique } from './noColumn';
import { pyRowKey } from './pyValues';
import { matchColumnsSemantically, SemanticColumnMatch, semanticColumnTechnique } from './semanticColumn';
import {
  isError,
  PERFECT_SCORES,
  ResultTable,
  RowMatch,
  SEMANTIC_TECHNIQUES,
  TECHNIQUES,
  TechniqueDetail,
  TechniqueName,
  TechniqueOutcome,
  TechniqueScore,
} from './types';
import { unifiedTechnique } from './unified';

export interface TechniqueOptions {
  /** Which techniques (default: all seven), reported in SQLMorph's order. */
  techniques?: readonly TechniqueName[];
  /** SQLMorph's `penalize_extra_pred_cols` (default true): predicted cells count every predicted column. */
  penalizeExtraColumns?: boolean;
  /** For the three semantic techniques; without it they report `error: "no embedding provider"`. */
  embeddings?: EmbeddingProvider;
  /** Also return each technique's column alignment and row matches (the editor's panel). */
  details?: boolean;
  signal?: AbortSignal;
}

export interface TechniqueReport {
  /** One entry per technique asked, in SQLMorph's order: the JSON's `techniques`. */
  scores: Partial<Record<TechniqueName, TechniqueScore>>;
  /** Where SQLMorph's own code would raise or compute something else, `<technique>: <what>`. */
  notes: string[];
  /** With `details`: the column alignment and each row's fate per technique. */
  details: Partial<Record<TechniqueName, TechniqueDetail>>;
}

export const NO_EMBEDDING_PROVIDER = 'no embedding provider';

/** The techniques asked for, in SQLMorph's order. */
export function orderedTechniques(techniques: readonly TechniqueName[] = TECHNIQUES): TechniqueName[] {
  return TECHNIQUES.filter((t) => techniques.includes(t));
}

/** A failure of one technique that the others survive: bounds, embeddings. Anything else is a bug and is thrown. */
function techniqueError(error: unknown): { error: string } {
  if (error instanceof TooManyPairs || error instanceof EmbeddingError) return { error: error.message };
  throw error;
}

/** EX's row fate: a row is matched when the other side holds an equal row (set semantics). */
function setMembership(gold: ResultTable, predicted: ResultTable): TechniqueDetail {
  const goldKeys = new Set(gold.rows.map(pyRowKey));
  const predictedKeys = new Set(predicted.rows.map(pyRowKey));
  const fate =
    (keys: Set<string>) =>
    (row: ResultTable['rows'][number]): RowMatch =>
      keys.has(pyRowKey(row)) ? { kind: 'exact', similarity: 1 } : { kind: 'none' };
  return { goldRows: gold.rows.map(fate(predictedKeys)), predictedRows: predicted.rows.map(fate(goldKeys)) };
}

/**
 * SQLMorph's result-comparison techniques on two results (column names as `cursor.description` gives them,
 * rows with Python's types; see readTypedResult). EX first, as SQLMorph's check_ex: when the two sets of
 * rows are equal every technique scores 1 and nothing else is computed (no embeddings either). Otherwise
 * each technique as SQLMorph computes it, except where its code raises or is wrong: then the value the
 * technique intends, with a note. A technique that cannot be computed (a bound, an embedding failure, no
 * provider) reports `error`; the others still score.
 */
export async function scoreTechniques(gold: ResultTable, predicted: ResultTable, options: TechniqueOptions = {}): Promise<TechniqueReport> {
  const asked = orderedTechniques(options.techniques);
  const penalize = options.penalizeExtraColumns ?? true;
  const goldKeys = new Set(gold.rows.map(pyRowKey));
  const predictedKeys = new Set(predicted.rows.map(pyRowKey));
  const ex = goldKeys.size === predictedKeys.size && [...predictedKeys].every((k) => goldKeys.has(k));
  const report: TechniqueReport = { scores: {}, notes: [], details: {} };
  if (ex) {
    const detail = options.details ? setMembership(gold, predicted) : undefined;
    for (const name of asked) {
      if (SEMANTIC_TECHNIQUES.includes(name) && !options.embeddings) report.scores[name] = { error: NO_EMBEDDING_PROVIDER };
      else report.scores[name] = name === 'execution_accuracy' ? { EX: 1 } : { ...PERFECT_SCORES };
      if (detail && !isError(report.scores[name]!)) report.details[name] = detail;
    }
    return report;
  }

  let semanticMatch: Promise<SemanticColumnMatch> | undefined;
  const columnMatch = () => (semanticMatch ??= matchColumnsSemantically(gold, predicted, options.embeddings!, options.signal));
  for (const name of asked) {
    let outcome: TechniqueOutcome;
    try {
      if (SEMANTIC_TECHNIQUES.includes(name) && !options.embeddings) outcome = { score: { error: NO_EMBEDDING_PROVIDER }, notes: [] };
      else if (name === 'execution_accuracy')
        outcome = { score: { EX: 0 }, notes: [], detail: options.details ? setMembership(gold, predicted) : undefined };
      else if (name === 'exact_column_and_exact_cell') outcome = exactColumnTechnique(gold, predicted, { partial: false, penalize });
      else if (name === 'exact_column_and_partial_cell') outcome = exactColumnTechnique(gold, predicted, { partial: true, penalize });
      else if (name === 'no_column_and_partial_cell') outcome = noColumnTechnique(gold, predicted);
      else if (name === 'unified_column_and_semantic_row')
        outcome = await unifiedTechnique(gold, predicted, options.embeddings!, options.signal);
      else
        outcome = semanticColumnTechnique(gold, predicted, await columnMatch(), {
          partial: name === 'semantic_column_and_partial_cell',
          penalize,
        });
    } catch (error) {
      outcome = { score: techniqueError(error), notes: [] };
    }
    report.scores[name] = outcome.score;
    for (const note of outcome.notes) report.notes.push(`${name}: ${note}`);
    if (options.details && outcome.detail && !isError(outcome.score)) report.details[name] = outcome.detail;
  }
  return report;
}
