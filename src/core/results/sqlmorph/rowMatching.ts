import { greedyPairs } from './greedy';
import { pyKey, PyRow, pyRowKey, sortRows } from './pyValues';
import { cellScores, ColumnPair, noMatches, ResultTable, RowMatch, TechniqueOutcome } from './types';

/** Each row reduced to the given column positions, in that order (SQLMorph's projected tuples). */
export function projectRows(rows: readonly PyRow[], positions: readonly number[]): PyRow[] {
  return rows.map((row) => positions.map((i) => row[i]));
}

interface Leftover {
  row: PyRow;
  /** Position in the original result. */
  index: number;
}

export interface ExactMatching {
  /** Σ over distinct projected rows of min(gold count, predicted count): Counter intersection. */
  matchedRows: number;
  goldLeft: Leftover[];
  predictedLeft: Leftover[];
  goldRows: RowMatch[];
  predictedRows: RowMatch[];
}

/**
 * Phase 1 of SQLMorph's cell techniques: the multiset intersection of projected rows (Python tuple equality,
 * so 1 == 1.0). Duplicates count up to their multiplicity on both sides. The rows left over keep Python's
 * order of `Counter.items()` (first occurrence of each row, then its repeats), as SQLMorph lists them.
 */
export function exactRowMatching(gold: readonly PyRow[], predicted: readonly PyRow[]): ExactMatching {
  const groups = new Map<string, { gold: number[]; predicted: number[] }>();
  const goldOrder: string[] = [];
  const predictedOrder: string[] = [];
  gold.forEach((row, i) => {
    const key = pyRowKey(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { gold: [], predicted: [] }));
    if (group.gold.length === 0) goldOrder.push(key);
    group.gold.push(i);
  });
  predicted.forEach((row, i) => {
    const key = pyRowKey(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { gold: [], predicted: [] }));
    if (group.predicted.length === 0) predictedOrder.push(key);
    group.predicted.push(i);
  });
  const goldRows = noMatches(gold.length);
  const predictedRows = noMatches(predicted.length);
  let matchedRows = 0;
  for (const group of groups.values()) {
    const matched = Math.min(group.gold.length, group.predicted.length);
    matchedRows += matched;
    for (let k = 0; k < matched; k++) {
      goldRows[group.gold[k]] = { kind: 'exact', partner: group.predicted[k], similarity: 1 };
      predictedRows[group.predicted[k]] = { kind: 'exact', partner: group.gold[k], similarity: 1 };
    }
  }
  const leftovers = (order: string[], side: 'gold' | 'predicted', rows: readonly PyRow[]) =>
    order.flatMap((key) => {
      const group = groups.get(key)!;
      const matched = Math.min(group.gold.length, group.predicted.length);
      return group[side].slice(matched).map((index) => ({ row: rows[index], index }));
    });
  return {
    matchedRows,
    goldLeft: leftovers(goldOrder, 'gold', gold),
    predictedLeft: leftovers(predictedOrder, 'predicted', predicted),
    goldRows,
    predictedRows,
  };
}

export interface PartialMatching {
  /** Σ (matching cells / n) × n over the pairs taken, in the order SQLMorph adds them (a float, as in Python). */
  partialCells: number;
  /** SQLMorph's `remaining_*.sort()` would raise TypeError (a NULL next to a number, text next to a number). */
  sortRaises: boolean;
}

/**
 * Phase 2: SQLMorph's greedy partial matching of the leftover rows. Both lists are sorted (Python tuple order);
 * the pair sharing the most equal cells is taken first, ties to the smallest gold then predicted position in
 * the sorted lists; a pair adds (equal cells / n) × n, computed as Python computes it. Marks the partial pairs
 * in the row details.
 */
export function greedyCellMatching(exact: ExactMatching, width: number): PartialMatching {
  const goldSort = sortRows(exact.goldLeft.map((left) => Object.assign([...left.row], { left })));
  const predictedSort = sortRows(exact.predictedLeft.map((left) => Object.assign([...left.row], { left })));
  const gold = goldSort.sorted.map((row) => row.left);
  const predicted = predictedSort.sorted.map((row) => row.left);
  const sortRaises = goldSort.raises || predictedSort.raises;
  if (width === 0 || gold.length === 0 || predicted.length === 0) return { partialCells: 0, sortRaises };

  // Each column's values as small integers (equal under Python's ==), so a pair's equal cells are a count of equal ints.
  const ids = new Map<string, number>();
  const encode = (rows: Leftover[]) => {
    const out = new Int32Array(rows.length * width);
    rows.forEach(({ row }, r) => {
      for (let c = 0; c < width; c++) {
        const key = `${c}\u0000${pyKey(row[c])}`;
        let id = ids.get(key);
        if (id === undefined) ids.set(key, (id = ids.size));
        out[r * width + c] = id;
      }
    });
    return out;
  };
  const g = encode(gold);
  const p = encode(predicted);
  const pairs = greedyPairs(gold.length, predicted.length, width, (gi, pi) => {
    let same = 0;
    for (let c = 0, a = gi * width, b = pi * width; c < width; c++) if (g[a + c] === p[b + c]) same++;
    return same === 0 ? -1 : width - same;
  });
  let partialCells = 0;
  for (const pair of pairs) {
    const similarity = (width - pair.level) / width;
    partialCells += similarity * width;
    const goldIndex = gold[pair.gold].index;
    const predictedIndex = predicted[pair.predicted].index;
    exact.goldRows[goldIndex] = { kind: 'partial', partner: predictedIndex, similarity };
    exact.predictedRows[predictedIndex] = { kind: 'partial', partner: goldIndex, similarity };
  }
  return { partialCells, sortRaises };
}

/** The note for a leftover sort that raises in SQLMorph. */
export const SORT_RAISES_NOTE =
  "SQLMorph's code raises TypeError here (sorting the unmatched rows puts a NULL, a number or a text against another type); " +
  'VES Lens orders NULL < numbers < text < bytes, as SQLite does, and computes the intended value';

/**
 * The cell scores of a column alignment, shared by the exact- and semantic-column techniques: rows projected
 * onto the aligned columns (gold column i against predicted column i), rows equal on all of them counted
 * whole, and, for the partial techniques, the greedy pairing of the rows left over added cell by cell. Gold
 * cells count every gold column; predicted cells every predicted column with `penalize`, else the aligned ones.
 */
export function scoreAlignedColumns(
  gold: ResultTable,
  predicted: ResultTable,
  alignment: { gold: readonly number[]; predicted: readonly number[]; columns: ColumnPair[] },
  options: { partial: boolean; penalize: boolean },
  notes: string[],
): TechniqueOutcome {
  const n = alignment.gold.length;
  const goldCells = gold.rows.length * gold.columns.length;
  const predictedCells = predicted.rows.length * (options.penalize ? predicted.columns.length : n);
  const exact = exactRowMatching(projectRows(gold.rows, alignment.gold), projectRows(predicted.rows, alignment.predicted));
  let matched = exact.matchedRows * n;
  if (options.partial) {
    const partial = greedyCellMatching(exact, n);
    if (partial.sortRaises) notes.push(SORT_RAISES_NOTE);
    matched += partial.partialCells;
  }
  return {
    score: cellScores(matched, goldCells, predictedCells),
    notes,
    detail: { columns: alignment.columns, goldRows: exact.goldRows, predictedRows: exact.predictedRows },
  };
}
