import { Row } from '../db/database';
import { rowKey } from '../results/valueKey';

/** Each row as often in both results (a bag, or multiset): what a rewrite must keep beyond EX's set. */
export function sameResultBag(a: readonly Row[], b: readonly Row[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const row of a) counts.set(rowKey(row), (counts.get(rowKey(row)) ?? 0) + 1);
  for (const row of b) {
    const key = rowKey(row);
    const left = counts.get(key);
    if (!left) return false;
    counts.set(key, left - 1);
  }
  return true;
}

/**
 * BIRD's EX: `set(predicted) == set(gold)` in Python. Duplicates collapse, row order is ignored,
 * column order matters.
 */
export function sameResultSet(predicted: readonly Row[], gold: readonly Row[]): boolean {
  const goldKeys = new Set(gold.map(rowKey));
  const predictedKeys = new Set<string>();
  for (const row of predicted) {
    const key = rowKey(row);
    if (!goldKeys.has(key)) return false;
    predictedKeys.add(key);
  }
  return predictedKeys.size === goldKeys.size;
}
