import { Row } from '../db/database';
import { rowKey } from '../results/valueKey';

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
