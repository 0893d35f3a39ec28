// The evaluation report's questions as the page lists them: its columns, the filters, the order, and the judge's
// latest verdict of each row. No DOM here.
import { OUTCOME_LABELS, QUANTITY_DESCRIPTIONS, QUANTITY_LABELS } from '../../core/text/evalLabels';
import type { Outcome } from '../../core/eval/types';
import type { ReportRow } from '../../shared/protocol';
import type { JudgeFlag } from '../../shared/webviewMessages';

/** A column: its key (a row's field, or a value derived from the row), its heading, and whether it holds numbers. */
export type ColumnKey = keyof ReportRow | 'judge';
export type Column = readonly [key: ColumnKey, label: string, kind?: 'num', title?: string];

export const COLUMNS: readonly Column[] = [
  ['question_id', 'question', 'num'],
  ['db_id', 'database'],
  ['difficulty', 'difficulty'],
  ['outcome', 'outcome'],
  ['reason', 'reason'],
  ['ex', 'EX', 'num'],
  ['f1', 'Soft-F1', 'num'],
  ['ves', QUANTITY_LABELS.vesTerm, 'num', QUANTITY_DESCRIPTIONS.vesTerm],
  ['rves_reward', QUANTITY_LABELS.rvesReward, 'num', QUANTITY_DESCRIPTIONS.rvesReward],
  ['rves', QUANTITY_LABELS.rvesTerm, 'num', QUANTITY_DESCRIPTIONS.rvesTerm],
  ['first_row_ratio', QUANTITY_LABELS.firstRowRatio, 'num', QUANTITY_DESCRIPTIONS.firstRowRatio],
  ['all_rows_ratio', QUANTITY_LABELS.allRowsRatio, 'num', QUANTITY_DESCRIPTIONS.allRowsRatio],
  ['gold_ms', 'gold ms', 'num'],
  ['pred_ms', 'pred ms', 'num'],
];
export const JUDGE_COLUMN: Column = ['judge', 'judge'];

/** Failures first: the order "failures first" sorts outcomes in. */
const FAILURE_RANK: Record<Outcome, number> = {
  gold_error: 0,
  locked: 0,
  prediction_error: 1,
  timeout: 2,
  refused: 3,
  mismatch: 4,
  correct: 5,
  skipped: 6,
};
const failureRank = (row: ReportRow) => FAILURE_RANK[row.outcome] ?? 9;

export const outcomeText = (outcome: string) => OUTCOME_LABELS[outcome as Outcome] ?? String(outcome).replace('_', ' ');

/** What the person filters and sorts by (kept with the page's state). */
export interface ReportView {
  text: string;
  /** `all`, `failures` (not correct) or one outcome. */
  outcome: string;
  database: string;
  difficulty: string;
  failuresFirst: boolean;
  sort: { key: ColumnKey; descending: boolean };
}

export const INITIAL_VIEW: ReportView = {
  text: '',
  outcome: 'all',
  database: 'all',
  difficulty: 'all',
  failuresFirst: false,
  sort: { key: 'question_id', descending: false },
};

/** A row's judgement: the verdict counts only for the same prediction; the Refuter's flags are the question's. */
export type RowJudgement = JudgeFlag & { sameSql: boolean };

export function judgementOf(row: ReportRow, judgements: Readonly<Record<string, JudgeFlag>>): RowJudgement | null {
  const flag = judgements[String(row.question_id)];
  if (!flag) return null;
  return { ...flag, sameSql: flag.predictedSql.trim() === String(row.predicted_sql ?? '').trim() };
}

function matches(row: ReportRow, view: ReportView): boolean {
  if (view.outcome === 'failures' && row.outcome === 'correct') return false;
  if (view.outcome !== 'all' && view.outcome !== 'failures' && row.outcome !== view.outcome) return false;
  if (view.database !== 'all' && row.db_id !== view.database) return false;
  if (view.difficulty !== 'all' && row.difficulty !== view.difficulty) return false;
  if (view.text) {
    const haystack =
      `${row.question_id} ${row.db_id} ${row.difficulty} ${outcomeText(row.outcome)} ${row.reason} ${row.predicted_sql}`.toLowerCase();
    if (
      !view.text
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean)
        .every((word) => haystack.includes(word))
    )
      return false;
  }
  return true;
}

/**
 * The rows the filters let through, in the order asked (ties in file order). Skipped questions (no database)
 * always come last: hundreds of them must not hide the scored ones.
 */
export function visibleRows(rows: readonly ReportRow[], view: ReportView, judgements: Readonly<Record<string, JudgeFlag>>): ReportRow[] {
  const { key, descending } = view.sort;
  const value = (row: ReportRow): unknown => {
    if (key === 'outcome') return failureRank(row);
    if (key === 'judge') {
      const judgement = judgementOf(row, judgements);
      return judgement?.sameSql ? judgement.score : undefined;
    }
    if (key === 'first_row_ratio' || key === 'all_rows_ratio') return row[key]?.ratio;
    return row[key];
  };
  const skipped = (row: ReportRow) => (row.outcome === 'skipped' ? 1 : 0);
  return rows
    .filter((row) => matches(row, view))
    .sort((a, b) => {
      const unscored = skipped(a) - skipped(b);
      if (unscored) return unscored;
      if (view.failuresFirst) {
        const rank = failureRank(a) - failureRank(b);
        if (rank) return rank;
      }
      const x = (value(a) ?? -Infinity) as number | string;
      const y = (value(b) ?? -Infinity) as number | string;
      const order =
        typeof x === 'string' || typeof y === 'string'
          ? String(x).localeCompare(String(y), undefined, { numeric: true })
          : x < y
            ? -1
            : x > y
              ? 1
              : 0;
      return (order || a.index - b.index) * (descending ? -1 : 1);
    });
}
