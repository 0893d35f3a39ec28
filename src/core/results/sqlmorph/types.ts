import type { PyRow } from './pyValues';

/** SQLMorph's seven result-comparison techniques, by SQLMorph's own names (used as-is in the CLI and the JSON). */
export const TECHNIQUES = [
  'execution_accuracy',
  'exact_column_and_exact_cell',
  'exact_column_and_partial_cell',
  'semantic_column_and_exact_cell',
  'semantic_column_and_partial_cell',
  'no_column_and_partial_cell',
  'unified_column_and_semantic_row',
] as const;

export type TechniqueName = (typeof TECHNIQUES)[number];

/** The techniques that need embeddings (column texts or row texts). */
export const SEMANTIC_TECHNIQUES: readonly TechniqueName[] = [
  'semantic_column_and_exact_cell',
  'semantic_column_and_partial_cell',
  'unified_column_and_semantic_row',
];

/** A query result as SQLMorph sees it: `cursor.description` names (duplicates kept, in order) and the rows. */
export interface ResultTable {
  columns: readonly string[];
  rows: readonly PyRow[];
}

export interface CellScores {
  EX: 0 | 1;
  EXP: number;
  EXR: number;
  F1: number;
}

/** One technique's score for one question: `execution_accuracy` has EX only; `error` where it cannot be computed. */
export type TechniqueScore = { EX: 0 | 1 } | CellScores | { error: string };

export type RowMatchKind = 'exact' | 'partial' | 'none';

/** How one row of a result fared: matched whole, partly (to `partner`, with `similarity`), or not at all. */
export interface RowMatch {
  kind: RowMatchKind;
  /** Index of the row it was paired with in the other result. */
  partner?: number;
  /** The pair's similarity as the technique measures it (share of equal cells, Jaccard, cosine). */
  similarity?: number;
}

/** A predicted column and the gold column it was aligned with. */
export interface ColumnPair {
  predicted: number;
  gold: number;
  /** 1 for equal names; the cosine similarity of the column texts for the semantic techniques. */
  similarity: number;
  /** False where the assignment paired them but the similarity is not above the threshold (0.7). */
  matched: boolean;
}

/** What the editor shows besides the numbers: the column alignment and each row's fate. */
export interface TechniqueDetail {
  columns?: ColumnPair[];
  goldRows?: RowMatch[];
  predictedRows?: RowMatch[];
}

export interface TechniqueOutcome {
  score: TechniqueScore;
  /** Where SQLMorph's own code would raise or compute something else than it means, said in one line each. */
  notes: string[];
  detail?: TechniqueDetail;
}

export const isError = (score: TechniqueScore): score is { error: string } => 'error' in score;

/** SQLMorph's assign_metrics: cells matched over cells predicted (EXP) and over gold cells (EXR); EX is 0 on every path that gets here. */
export function cellScores(matched: number, goldCells: number, predictedCells: number): CellScores {
  if (goldCells === 0 && predictedCells === 0) return { EX: 0, EXP: 1, EXR: 1, F1: 1 };
  if (goldCells === 0) return { EX: 0, EXP: 0, EXR: 1, F1: 0 };
  if (predictedCells === 0) return { EX: 0, EXP: 1, EXR: 0, F1: 0 };
  const exp = matched / predictedCells;
  const exr = matched / goldCells;
  return { EX: 0, EXP: exp, EXR: exr, F1: exp + exr > 0 ? (2 * exp * exr) / (exp + exr) : 0 };
}

export const ZERO_SCORES: CellScores = { EX: 0, EXP: 0, EXR: 0, F1: 0 };
export const PERFECT_SCORES: CellScores = { EX: 1, EXP: 1, EXR: 1, F1: 1 };

/** Rows of one side, all unmatched (a detail's starting point). */
export const noMatches = (count: number): RowMatch[] => Array.from({ length: count }, () => ({ kind: 'none' as const }));
