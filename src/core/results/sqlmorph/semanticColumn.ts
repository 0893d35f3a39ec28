import { EmbeddingProvider } from '../../embeddings/provider';
import { linearSumAssignment } from './assignment';
import { compareCodePoints, PyFloat, pyFloatRepr, pyKey, pyStr, PyValue } from './pyValues';
import { scoreAlignedColumns } from './rowMatching';
import { ColumnPair, ResultTable, TechniqueOutcome } from './types';

/** SQLMorph's threshold: an assigned column pair counts only with a similarity strictly above it. */
export const COLUMN_SIMILARITY_THRESHOLD = 0.7;

/**
 * The dtype pandas infers for one column of `pd.DataFrame(rows, columns=...)` (pandas 2.2): int64 for ints
 * only, float64 for numbers with a float or a None among them, object for anything else (and for a column
 * of None only, or no rows at all).
 */
function pandasDtype(values: readonly PyValue[]): 'int64' | 'float64' | 'object' {
  if (values.length === 0) return 'object';
  let ints = 0;
  let floats = 0;
  let nulls = 0;
  for (const v of values) {
    if (v === null) nulls++;
    else if (v instanceof PyFloat) floats++;
    else if (typeof v === 'number' || typeof v === 'bigint') ints++;
    else return 'object';
  }
  if (ints + floats === 0) return 'object';
  return floats === 0 && nulls === 0 ? 'int64' : 'float64';
}

/**
 * `[str(v) for v in df[col].value_counts().head(10).index]`: values without None, most frequent first, ties
 * in order of first appearance (what pandas gives for up to 16 distinct values; beyond, numpy's unstable
 * sort decides, and VES Lens keeps first appearance). In a float64 column ints print as floats ("1.0").
 */
function topValues(values: readonly PyValue[], dtype: string): string[] {
  const counts = new Map<string, { text: string; count: number; first: number }>();
  values.forEach((v, i) => {
    if (v === null) return;
    const value = dtype === 'float64' && !(v instanceof PyFloat) ? new PyFloat(Number(v)) : v;
    const key = pyKey(value);
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { text: value instanceof PyFloat ? pyFloatRepr(value.value) : pyStr(value), count: 1, first: i });
  });
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || a.first - b.first)
    .slice(0, 10)
    .map((e) => e.text);
}

/** SQLMorph's text for one column: `Column name: X. Data type: object. Sample values: a, b` (trailing space when no values). */
export function columnText(name: string, values: readonly PyValue[]): string {
  const dtype = pandasDtype(values);
  const top = values.length > 0 ? topValues(values, dtype) : [];
  return `Column name: ${name}. Data type: ${dtype}. ${top.length ? `Sample values: ${top.join(', ')}` : ''}`;
}

/** `1 - scipy.spatial.distance.cosine(u, v)` in float64: 1 - clip(1 - u·v / sqrt(u·u · v·v), 0, 2). */
export function cosineSimilarity(u: Float32Array, v: Float32Array): number {
  let uv = 0;
  let uu = 0;
  let vv = 0;
  for (let i = 0; i < u.length; i++) {
    uv += u[i] * v[i];
    uu += u[i] * u[i];
    vv += v[i] * v[i];
  }
  const distance = 1 - uv / Math.sqrt(uu * vv);
  if (Number.isNaN(distance)) return 0;
  return 1 - Math.min(2, Math.max(0, distance));
}

export interface SemanticColumnMatch {
  /** Similarity of every predicted column (rows) to every gold column (columns). */
  similarity: number[][];
  /** Assigned pairs above the threshold, by position: [predicted, gold]. */
  matched: [number, number][];
  /** Every assigned pair, for the editor. */
  assigned: ColumnPair[];
  notes: string[];
}

export const DUPLICATE_NAMES_NOTE =
  "SQLMorph's code raises AttributeError here (a repeated column name makes pandas return a table, not a column); VES Lens treats each column position on its own";

/**
 * SQLMorph's semantic column matching: each column of each side becomes a text (name, dtype, top 10 values),
 * embedded; the cosine similarity matrix (predicted × gold) goes to the Hungarian assignment; an assigned pair
 * counts above 0.7. SQLMorph reads the assignment as `enumerate(col_ind)`, pairing predicted column i with the
 * gold column assigned to the i-th assigned predicted column: wrong when the prediction has more columns than
 * gold. VES Lens uses the assignment's own pairs, and notes where SQLMorph's reading would match others.
 */
export async function matchColumnsSemantically(
  gold: ResultTable,
  predicted: ResultTable,
  embeddings: EmbeddingProvider,
  signal?: AbortSignal,
): Promise<SemanticColumnMatch> {
  const notes: string[] = [];
  const repeats = (names: readonly string[]) => new Set(names).size !== names.length;
  if (repeats(gold.columns) || repeats(predicted.columns)) notes.push(DUPLICATE_NAMES_NOTE);
  const texts = (table: ResultTable) =>
    table.columns.map((name, c) =>
      columnText(
        name,
        table.rows.map((row) => row[c]),
      ),
    );
  const goldTexts = texts(gold);
  const predictedTexts = texts(predicted);
  const vectors = await embeddings.embed([...goldTexts, ...predictedTexts], signal);
  const goldVectors = vectors.slice(0, goldTexts.length);
  const predictedVectors = vectors.slice(goldTexts.length);
  const similarity = predictedVectors.map((p) => goldVectors.map((g) => cosineSimilarity(p, g)));
  const { rowInd, colInd } = linearSumAssignment(similarity.map((row) => row.map((s) => -s)));
  const above = (p: number, g: number) => similarity[p][g] > COLUMN_SIMILARITY_THRESHOLD;
  const matched: [number, number][] = [];
  const assigned: ColumnPair[] = [];
  rowInd.forEach((p, k) => {
    const g = colInd[k];
    assigned.push({ predicted: p, gold: g, similarity: similarity[p][g], matched: above(p, g) });
    if (above(p, g)) matched.push([p, g]);
  });
  const sqlmorphPairs = colInd.map((g, p) => [p, g] as [number, number]).filter(([p, g]) => above(p, g));
  const key = (pairs: [number, number][]) =>
    pairs
      .map((pair) => pair.join(':'))
      .sort()
      .join(',');
  if (key(sqlmorphPairs) !== key(matched)) {
    const names = (pairs: [number, number][]) => pairs.map(([p, g]) => `${predicted.columns[p]}→${gold.columns[g]}`).join(', ') || 'none';
    notes.push(
      `SQLMorph's enumerate(col_ind) reading of the assignment would match ${names(sqlmorphPairs)}; VES Lens matches the assigned pairs ${names(matched)}`,
    );
  }
  return { similarity, matched, assigned, notes };
}

/**
 * semantic_column_and_exact_cell / semantic_column_and_partial_cell, given the column match. Rows are
 * projected onto the matched pairs, aligned pair by pair (SQLMorph's exact technique projects each side in its
 * own column order, which misaligns crossed pairs; noted where that happens). The partial technique orders
 * the pairs by (predicted name, gold name), as SQLMorph does, before its greedy step.
 */
export function semanticColumnTechnique(
  gold: ResultTable,
  predicted: ResultTable,
  match: SemanticColumnMatch,
  options: { partial: boolean; penalize: boolean },
): TechniqueOutcome {
  const notes = [...match.notes];
  let pairs = [...match.matched];
  if (options.partial) {
    pairs.sort(
      ([p1, g1], [p2, g2]) =>
        compareCodePoints(predicted.columns[p1], predicted.columns[p2]) ||
        compareCodePoints(gold.columns[g1], gold.columns[g2]) ||
        p1 - p2 ||
        g1 - g2,
    );
  } else {
    pairs = pairs.sort((a, b) => a[1] - b[1]);
    const crossed = pairs.some(([p], k) => k > 0 && p < pairs[k - 1][0]);
    if (crossed)
      notes.push(
        "SQLMorph's code projects each side in its own column order, so these crossed column pairs would be compared misaligned; VES Lens compares each pair's own columns",
      );
  }
  return scoreAlignedColumns(
    gold,
    predicted,
    { gold: pairs.map(([, g]) => g), predicted: pairs.map(([p]) => p), columns: match.assigned },
    options,
    notes,
  );
}
