import { greedyPairs } from './greedy';
import { pyStr } from './pyValues';
import { cellScores, noMatches, ResultTable, RowMatch, TechniqueOutcome } from './types';

/** Each row as the sorted ids of its distinct `str()` tokens (Python's `set(str(v) for v in row)`). */
function tokenSets(rows: ResultTable['rows'], ids: Map<string, number>): Int32Array[] {
  return rows.map((row) => {
    const set = new Set<number>();
    for (const value of row) {
      const token = pyStr(value);
      let id = ids.get(token);
      if (id === undefined) ids.set(token, (id = ids.size));
      set.add(id);
    }
    return Int32Array.from(set).sort();
  });
}

function intersectionSize(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      n++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return n;
}

export const DUPLICATE_GOLD_ROWS_NOTE =
  "SQLMorph's code raises ValueError here (two gold rows with the same values match the same predicted row, which it then removes twice); " +
  'VES Lens matches each predicted row once, as the technique means';

/**
 * no_column_and_partial_cell: column names are ignored. Each row is the set of its values' `str()` (so 1 and
 * 1.0 differ, NULL is "None", a value repeated in a row counts once); cells are set sizes. Rows with equal
 * sets match first (gold in order, each taking the first free predicted row), then the rest pair greedily by
 * Jaccard similarity (highest first, ties to the smaller gold then predicted index), each pair adding the size
 * of its intersection. Predicted cells always count every predicted token (SQLMorph's newest version).
 */
export function noColumnTechnique(gold: ResultTable, predicted: ResultTable): TechniqueOutcome {
  const ids = new Map<string, number>();
  const goldSets = tokenSets(gold.rows, ids);
  const predictedSets = tokenSets(predicted.rows, ids);
  const goldCells = goldSets.reduce((sum, s) => sum + s.length, 0);
  const predictedCells = predictedSets.reduce((sum, s) => sum + s.length, 0);
  const goldRows: RowMatch[] = noMatches(gold.rows.length);
  const predictedRows: RowMatch[] = noMatches(predicted.rows.length);
  const notes: string[] = [];

  // Phase A: equal token sets.
  const freePredicted = new Map<string, number[]>();
  predictedSets.forEach((set, i) => {
    const key = set.join(',');
    const list = freePredicted.get(key);
    if (list) list.push(i);
    else freePredicted.set(key, [i]);
  });
  const goldPerKey = new Map<string, number>();
  let exactCells = 0;
  const goldLeft: number[] = [];
  goldSets.forEach((set, i) => {
    const key = set.join(',');
    goldPerKey.set(key, (goldPerKey.get(key) ?? 0) + 1);
    const free = freePredicted.get(key);
    if (free?.length) {
      const p = free.shift()!;
      exactCells += set.length;
      goldRows[i] = { kind: 'exact', partner: p, similarity: 1 };
      predictedRows[p] = { kind: 'exact', partner: i, similarity: 1 };
    } else goldLeft.push(i);
  });
  // SQLMorph lets every gold row take the first predicted row with its set, taken or not: a set shared by two
  // gold rows and found among the predicted rows has one predicted row removed twice.
  const predictedKeys = new Set(predictedSets.map((set) => set.join(',')));
  if ([...goldPerKey].some(([key, count]) => count > 1 && predictedKeys.has(key))) notes.push(DUPLICATE_GOLD_ROWS_NOTE);
  const predictedLeft = predictedRows.flatMap((match, i) => (match.kind === 'none' ? [i] : []));

  // Phase B: greedy Jaccard. Its similarity levels are the distinct values of |∩| / |∪| the set sizes allow.
  const sizes = (rows: number[], sets: Int32Array[]) => [...new Set(rows.map((i) => sets[i].length))];
  const levelValues = new Set<number>();
  for (const a of sizes(goldLeft, goldSets)) {
    for (const b of sizes(predictedLeft, predictedSets)) {
      for (let inter = 1; inter <= Math.min(a, b); inter++) levelValues.add(inter / (a + b - inter));
    }
  }
  const levels = [...levelValues].sort((x, y) => y - x);
  const levelOf = new Map(levels.map((value, i) => [value, i]));
  const pairs = greedyPairs(goldLeft.length, predictedLeft.length, levels.length, (g, p) => {
    const a = goldSets[goldLeft[g]];
    const b = predictedSets[predictedLeft[p]];
    const inter = intersectionSize(a, b);
    return inter === 0 ? -1 : levelOf.get(inter / (a.length + b.length - inter))!;
  });
  let partialCells = 0;
  for (const pair of pairs) {
    const g = goldLeft[pair.gold];
    const p = predictedLeft[pair.predicted];
    partialCells += intersectionSize(goldSets[g], predictedSets[p]);
    goldRows[g] = { kind: 'partial', partner: p, similarity: levels[pair.level] };
    predictedRows[p] = { kind: 'partial', partner: g, similarity: levels[pair.level] };
  }
  return { score: cellScores(exactCells + partialCells, goldCells, predictedCells), notes, detail: { goldRows, predictedRows } };
}
