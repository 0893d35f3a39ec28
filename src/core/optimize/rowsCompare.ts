import { Row } from '../db/database';
import { sameResultBag, sameResultSet } from '../metrics/executionMatch';
import { rowKey } from '../results/valueKey';

/** How a rewrite's rows compare with the original's. */
export type RowsComparison = { same: true; ordered: boolean } | { same: false; detail: string };

/**
 * The same rows as a set (what EX compares), as a bag (each row as often), and, when the original orders its
 * rows (`ordered`), in the same order: a rewrite must change none of what a reader of its result could see.
 */
export function compareRows(original: readonly Row[], rewrite: readonly Row[], ordered: boolean): RowsComparison {
  if (!sameResultSet(rewrite, original))
    return { same: false, detail: `another set of rows (${rewrite.length} rows against the original's ${original.length})` };
  if (rewrite.length !== original.length)
    return { same: false, detail: `the same set, but ${rewrite.length} rows against ${original.length} (duplicates differ)` };
  if (!sameResultBag(original, rewrite)) return { same: false, detail: 'the same set, but rows repeated a different number of times' };
  if (ordered && original.some((row, i) => rowKey(row) !== rowKey(rewrite[i])))
    return { same: false, detail: 'the same rows in another order (the original has an ORDER BY)' };
  return { same: true, ordered };
}
