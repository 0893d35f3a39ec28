import { compareCodePoints } from './pyValues';
import { scoreAlignedColumns } from './rowMatching';
import { ColumnPair, ResultTable, TechniqueOutcome, ZERO_SCORES } from './types';

/**
 * The columns both results name, as SQLMorph finds them: `sorted(set(gold) & set(predicted))` (exact,
 * case-sensitive names in code-point order), each at its **last** position on each side (`{col: idx}` keeps
 * the last of a repeated name).
 */
export function commonColumns(gold: readonly string[], predicted: readonly string[]) {
  const lastGold = new Map<string, number>();
  gold.forEach((name, i) => lastGold.set(name, i));
  const lastPredicted = new Map<string, number>();
  predicted.forEach((name, i) => lastPredicted.set(name, i));
  const names = [...lastGold.keys()].filter((name) => lastPredicted.has(name)).sort(compareCodePoints);
  return { names, gold: names.map((n) => lastGold.get(n)!), predicted: names.map((n) => lastPredicted.get(n)!) };
}

function columnPairs(common: ReturnType<typeof commonColumns>): ColumnPair[] {
  return common.names.map((_, k) => ({ predicted: common.predicted[k], gold: common.gold[k], similarity: 1, matched: true }));
}

/**
 * exact_column_and_exact_cell and exact_column_and_partial_cell (after SQLMorph's EX check, which the caller
 * makes). Columns match by exact name; rows are projected onto the common columns in name order. Gold cells
 * count every gold column; predicted cells every predicted column with `penalize`, else the common ones.
 * The exact technique counts rows equal on all common cells (multiset intersection); the partial one adds
 * the greedy pairing of the rows left over, a pair worth the share of its equal cells.
 */
export function exactColumnTechnique(
  gold: ResultTable,
  predicted: ResultTable,
  options: { partial: boolean; penalize: boolean },
): TechniqueOutcome {
  const common = commonColumns(gold.columns, predicted.columns);
  const n = common.names.length;
  if (n === 0) return { score: { ...ZERO_SCORES }, notes: [], detail: { columns: [] } };
  return scoreAlignedColumns(
    gold,
    predicted,
    { gold: common.gold, predicted: common.predicted, columns: columnPairs(common) },
    options,
    [],
  );
}
