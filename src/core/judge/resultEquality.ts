import { createHash } from 'crypto';
import { rowKey, valueKey } from '../results/valueKey';
import { Row } from '../db/database';

/**
 * When two results "match", so that the Refuter alone judges the pair (ROSE's `compare_result` in CedricPei/ROSE). Our rule:
 *
 *   same number of rows, same number of columns, and the same MULTISET of rows once the columns are put in a
 *   matching order; values compare as Python's `==` on what sqlite3 returns (EX's value rule: 1 == 1.0,
 *   NULL == NULL, text case-sensitive).
 *
 * ROSE's rule is same shape plus an XOR of per-cell hashes of str(value). Kept from it: cardinality counts
 * (three rows are not two, so a missing DISTINCT or a top-3-for-top-1 goes to the Prover, who sees the
 * results; BIRD's set equality would send it to the Refuter's results-free template) and column order does
 * not (a question rarely fixes it). Changed: a real multiset instead of XOR, where identical cells cancel in
 * pairs ([(a,b),(a,b)] "equals" [(c,d),(c,d)]) and cells may swap between rows; and Python value equality
 * instead of str(), where pandas' float conversion of integer columns holding NULL made 3 differ from 3.
 */
export interface ComparableResult {
  columnCount: number;
  rows: readonly Row[];
}

/** How many column orders are tried when several columns hold the same values (beyond it: false, conservatively). */
const MAX_ORDERS = 5040;

function columnSignature(rows: readonly Row[], column: number): string {
  const keys = rows.map((row) => valueKey(row[column])).sort();
  return createHash('sha256').update(JSON.stringify(keys)).digest('base64');
}

function rowCounts(rows: readonly Row[], order?: readonly number[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const key = rowKey(order ? order.map((i) => row[i]) : row);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function sameCounts(a: Map<string, number>, b: Map<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, n] of a) if (b.get(key) !== n) return false;
  return true;
}

/** Every way to pick, for each gold column, a predicted column with the same signature (product of permutations). */
function* columnOrders(groups: readonly { gold: number[]; predicted: number[] }[], width: number): Generator<number[]> {
  const permutations = (items: number[]): number[][] =>
    items.length <= 1
      ? [items]
      : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
  const options = groups.map((g) => permutations(g.predicted));
  const order = new Array<number>(width);
  function* walk(g: number): Generator<number[]> {
    if (g === groups.length) {
      yield [...order];
      return;
    }
    for (const choice of options[g]) {
      groups[g].gold.forEach((goldColumn, i) => (order[goldColumn] = choice[i]));
      yield* walk(g + 1);
    }
  }
  yield* walk(0);
}

export function sameResults(predicted: ComparableResult, gold: ComparableResult): boolean {
  if (predicted.rows.length !== gold.rows.length || predicted.columnCount !== gold.columnCount) return false;
  if (gold.rows.length === 0) return true;
  const width = gold.columnCount;
  const goldCounts = rowCounts(gold.rows);
  // The common case first: same column order.
  if (sameCounts(rowCounts(predicted.rows), goldCounts)) return true;
  // Otherwise match columns by their values (as multisets), then rows under that order.
  const bySignature = new Map<string, { gold: number[]; predicted: number[] }>();
  for (let c = 0; c < width; c++) {
    const g = columnSignature(gold.rows, c);
    const p = columnSignature(predicted.rows, c);
    if (!bySignature.has(g)) bySignature.set(g, { gold: [], predicted: [] });
    bySignature.get(g)!.gold.push(c);
    if (!bySignature.has(p)) bySignature.set(p, { gold: [], predicted: [] });
    bySignature.get(p)!.predicted.push(c);
  }
  const groups = [...bySignature.values()];
  if (groups.some((g) => g.gold.length !== g.predicted.length)) return false;
  let tried = 0;
  for (const order of columnOrders(groups, width)) {
    if (++tried > MAX_ORDERS) return false;
    if (sameCounts(rowCounts(predicted.rows, order), goldCounts)) return true;
  }
  return false;
}
