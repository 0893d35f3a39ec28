import type { QuestionResult } from '../core/eval/types';
import { ReportRow, ResultPreview } from '../shared/protocol';
import { editorText } from './editorText';
import { pastLimitMetrics } from '../core/metrics/efficiency';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const names = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

/**
 * Why a pair scored what it scored, in sentences a person checks first: the columns when their number
 * differs (EX compares whole rows by position, so one extra column fails every row), and Soft-F1 below 1 for a
 * correct result (it pairs rows by position, where EX compares sets).
 */
export function scoreExplanations(result: Pick<QuestionResult, 'outcome' | 'ex' | 'f1' | 'difference'>, gold: ResultPreview, pred: ResultPreview): string[] {
  const out: string[] = [];
  const bothRan = !gold.error && !pred.error && result.outcome !== 'prediction_error' && result.outcome !== 'gold_error' && result.outcome !== 'refused';
  if (bothRan && gold.columns.length && pred.columns.length && gold.columns.length !== pred.columns.length) {
    out.push(`${plural(pred.columns.length, 'column')} vs ${gold.columns.length}: the prediction returns ${names(pred.columns)}, gold returns ${names(gold.columns)}. EX compares whole rows, so no row can match.`);
  }
  if (result.outcome === 'mismatch' && result.difference) {
    const d = result.difference;
    out.push(`the prediction returns ${plural(d.pred_rows, 'row')}, gold ${plural(d.gold_rows, 'row')}${d.pred_rows === d.gold_rows ? ' (same count, different values)' : ''}.`);
  }
  if (result.ex === 1 && result.f1 !== null && result.f1 < 1) {
    out.push(`EX is 1 (the same set of rows) but Soft-F1 is ${result.f1.toFixed(3)}: Soft-F1 pairs predicted row i with gold row i, by position, so the same rows in another order (or with duplicates) score lower. EX ignores order and duplicates.`);
  }
  return out;
}

/** One line for a report row: why it scored what it scored. */
export function reportReason(result: QuestionResult): string {
  if (result.error) return editorText(result.error);
  if (result.outcome === 'mismatch' && result.difference) {
    const d = result.difference;
    return `${plural(d.pred_rows, 'row')} vs ${d.gold_rows.toLocaleString('en-US')} in gold${d.pred_rows === d.gold_rows ? ', different values' : ''}`;
  }
  if (result.outcome === 'correct') {
    const untimed = result.notes.find((note) => note.startsWith('timing failed'));
    if (untimed) return editorText(untimed);
    if (result.same_program) return 'same program as gold: ratio 1, not timed';
    if (result.past_official_limit) return `correct, but its official timing loop would outlast the limit: ${pastLimitMetrics(result.past_official_limit)} 0, as officially (${result.time_ratio?.toPrecision(2)}× gold's speed)`;
    if (result.f1 !== null && result.f1 < 1) return `same set of rows; Soft-F1 ${result.f1.toFixed(3)} (it pairs rows by position)`;
    if (result.time_ratio !== null) return `correct; ${result.time_ratio.toFixed(2)}× gold's speed`;
    return 'correct';
  }
  if (result.outcome === 'skipped') return 'database missing: not scored';
  return result.notes[0] ? editorText(result.notes[0]) : result.outcome.replace('_', ' ');
}

export function reportRow(result: QuestionResult, predictedSql: string, location?: ReportRow['location']): ReportRow {
  const { timings: _timings, ...row } = result;
  return { ...row, error: row.error === null ? null : editorText(row.error), notes: row.notes.map(editorText), predicted_sql: predictedSql, reason: reportReason(result), location };
}
