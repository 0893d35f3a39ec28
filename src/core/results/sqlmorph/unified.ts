import { EmbeddingProvider } from '../../embeddings/provider';
import { linearSumAssignment } from './assignment';
import { compareCodePoints, pyStr, PyValue } from './pyValues';
import { noMatches, ResultTable, TechniqueOutcome } from './types';

/** Most row pairs (predicted × gold) and rows (embedded texts) unified_column_and_semantic_row takes on. */
export const MAX_UNIFIED_ROW_PAIRS = 1_000_000;
export const MAX_UNIFIED_ROWS = 10_000;

const f32 = Math.fround;

/** One row as SQLMorph's text: every column of the sorted union of names, `str(value)` or "N/A", joined by " | ". */
function rowText(columns: readonly string[], row: readonly PyValue[], union: readonly string[]): string {
  const byName = new Map<string, PyValue>();
  columns.forEach((name, i) => byName.set(name, row[i])); // dict(zip(...)): a repeated name keeps its last value
  return union.map((name) => (byName.has(name) ? pyStr(byName.get(name)!) : 'N/A')).join(' | ');
}

/**
 * unified_column_and_semantic_row: every row becomes one text over the union of both sides' column names;
 * texts are embedded and compared by cosine in float32 (as NumPy does with SQLMorph's float32 arrays; equal
 * texts are 1); the Hungarian assignment pairs rows and every assigned pair counts its similarity times the
 * coverage penalty (share of gold names the prediction has; 1 for a one-column gold). Sums stay float32.
 * SQLMorph gives all zeros when exactly one side has no rows; so does this.
 */
export async function unifiedTechnique(
  gold: ResultTable,
  predicted: ResultTable,
  embeddings: EmbeddingProvider,
  signal?: AbortSignal,
): Promise<TechniqueOutcome> {
  const P = predicted.rows.length;
  const G = gold.rows.length;
  if (P === 0 || G === 0) {
    const score = P === 0 && G === 0 ? { EX: 1 as const, EXP: 1, EXR: 1, F1: 1 } : { EX: 0 as const, EXP: 0, EXR: 0, F1: 0 };
    return { score, notes: [], detail: { goldRows: noMatches(G), predictedRows: noMatches(P) } };
  }
  if (P * G > MAX_UNIFIED_ROW_PAIRS || P + G > MAX_UNIFIED_ROWS) {
    return {
      score: {
        error: `row matching not computed: ${P.toLocaleString('en-US')} × ${G.toLocaleString('en-US')} rows exceed the bound (${MAX_UNIFIED_ROWS.toLocaleString('en-US')} rows, ${MAX_UNIFIED_ROW_PAIRS.toLocaleString('en-US')} row pairs)`,
      },
      notes: [],
    };
  }
  const union = [...new Set([...predicted.columns, ...gold.columns])].sort(compareCodePoints);
  const predictedTexts = predicted.rows.map((row) => rowText(predicted.columns, row, union));
  const goldTexts = gold.rows.map((row) => rowText(gold.columns, row, union));
  const goldNames = new Set(gold.columns);
  const predictedNames = new Set(predicted.columns);
  const coverage = goldNames.size <= 1 ? 1 : [...goldNames].filter((n) => predictedNames.has(n)).length / goldNames.size;

  const vectors = await embeddings.embed([...predictedTexts, ...goldTexts], signal);
  const norm = (v: Float32Array) => {
    let sum = 0;
    for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
    return f32(f32(Math.sqrt(f32(sum))) + f32(1e-8));
  };
  const predictedVectors = vectors.slice(0, P);
  const goldVectors = vectors.slice(P);
  const predictedNorms = predictedVectors.map(norm);
  const goldNorms = goldVectors.map(norm);
  const similarity = predictedVectors.map((p, i) =>
    goldVectors.map((g, j) => {
      if (predictedTexts[i] === goldTexts[j]) return 1;
      let dot = 0;
      for (let k = 0; k < p.length; k++) dot += p[k] * g[k];
      return f32(f32(dot) / f32(predictedNorms[i] * goldNorms[j]));
    }),
  );
  const { rowInd, colInd } = linearSumAssignment(similarity.map((row) => row.map((s) => -s)));
  let sum = 0;
  const goldRows = noMatches(G);
  const predictedRows = noMatches(P);
  rowInd.forEach((p, k) => {
    const g = colInd[k];
    sum = f32(sum + f32(similarity[p][g] * f32(coverage)));
    const kind = predictedTexts[p] === goldTexts[g] ? 'exact' : 'partial';
    predictedRows[p] = { kind, partner: g, similarity: similarity[p][g] };
    goldRows[g] = { kind, partner: p, similarity: similarity[p][g] };
  });
  const exp = f32(sum / P);
  const exr = f32(sum / G);
  const f1 = exp + exr > 0 ? (2 * (exp * exr)) / (exp + exr) : 0;
  return { score: { EX: 0, EXP: exp, EXR: exr, F1: f1 }, notes: [], detail: { goldRows, predictedRows } };
}
