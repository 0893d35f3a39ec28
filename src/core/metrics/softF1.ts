import { Row } from '../db/database';
import { rowKey, valueKey } from '../results/valueKey';

/** Rows with duplicates dropped, first occurrence kept in place (Python's `list(dict.fromkeys(rows))`). */
export function distinctRows(rows: readonly Row[]): Row[] {
  const seen = new Set<string>();
  const out: Row[] = [];
  for (const row of rows) {
    const key = rowKey(row);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(row);
    }
  }
  return out;
}

interface RowMatch {
  match: number;
  predictedOnly: number;
  goldOnly: number;
}

/** One predicted row against the gold row at the same position, as fractions of the gold row's width. */
function matchRow(predicted: Row, gold: Row): RowMatch {
  const goldValues = new Set(gold.map(valueKey));
  const predictedValues = new Set(predicted.map(valueKey));
  let match = 0;
  let predictedOnly = 0;
  for (const value of predicted) {
    if (goldValues.has(valueKey(value))) match++;
    else predictedOnly++;
  }
  let goldOnly = 0;
  for (const value of gold) if (!predictedValues.has(valueKey(value))) goldOnly++;
  const width = gold.length;
  return { match: match / width, predictedOnly: predictedOnly / width, goldOnly: goldOnly / width };
}

/**
 * mini_dev's Soft-F1: rows are de-duplicated (order kept) and paired by position; each pair scores the
 * share of values found in the other row. Unpaired gold rows count as missed, unpaired predicted rows as
 * spurious. Both results empty scores 1.
 */
export function softF1(predictedRows: readonly Row[], goldRows: readonly Row[]): number {
  if (predictedRows.length === 0 && goldRows.length === 0) return 1;
  return softF1OfDistinct(distinctRows(predictedRows), distinctRows(goldRows), 0);
}

/**
 * Soft-F1 from de-duplicated rows. `unpairedPredicted` counts distinct predicted rows beyond `predicted`
 * (a streaming caller keeps only as many rows as gold has: the rest can only add spurious rows).
 */
export function softF1OfDistinct(predicted: readonly Row[], gold: readonly Row[], unpairedPredicted: number): number {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  gold.forEach((goldRow, i) => {
    if (i >= predicted.length) {
      fn += 1;
      return;
    }
    const { match, predictedOnly, goldOnly } = matchRow(predicted[i], goldRow);
    tp += match;
    fp += predictedOnly;
    fn += goldOnly;
  });
  // Added one at a time, in Python's order, so the float sums match the official script bit for bit.
  const extra = Math.max(0, predicted.length - gold.length) + unpairedPredicted;
  for (let i = 0; i < extra; i++) fp += 1;
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}
