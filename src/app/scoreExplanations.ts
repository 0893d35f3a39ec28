/**
 * Why a scored pair scored what it scored, for the editor: the Score panel's explanations and a report row's one-line
 * reason. Core's own messages in them pass through `word`, the face's wording of core's text.
 */
import type { QuestionResult } from '../core/eval/types';
import { pastLimitMetrics } from '../core/metrics/efficiency';
import { allRowsRatio, firstRowRatio, type RatioWithInterval } from '../core/report/ratios';
import { tokenize } from '../core/sql/lexer';
import { analysisBoundNote } from '../core/sql/textBounds';
import { ratioText } from '../core/text/numberText';
import type { QueryPreview } from './queryRuns';
import type { Wording } from './statementPlan';

/** One question of a report: the JSON contract's fields, plus what the editor needs. */
export type ReportRow = Omit<QuestionResult, 'timings'> & {
  predicted_sql: string;
  /** Why it scored what it scored, in one line. */
  reason: string;
  /** Where its prediction is in the prediction file (0-based line and character), to jump there. */
  location?: { line: number; character: number };
  /** Each timed quantity's ratio with its interval, as core/report/ratios.ts reads them from the row: VES's (to the first row) and R-VES's (every row). */
  first_row_ratio: RatioWithInterval | null;
  all_rows_ratio: RatioWithInterval | null;
};

const asIs: Wording = (text) => text;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const names = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

/**
 * Why a pair scored what it scored, in sentences a person checks first: the columns when their number
 * differs (EX compares whole rows by position, so one extra column fails every row), and Soft-F1 below 1 for a
 * correct result (it pairs rows by position, where EX compares sets).
 */
export function scoreExplanations(
  result: Pick<QuestionResult, 'outcome' | 'ex' | 'f1' | 'difference'>,
  gold: QueryPreview,
  pred: QueryPreview,
  sqls?: { pred: string; gold: string },
): string[] {
  const out: string[] = [];
  const bothRan =
    !gold.error && !pred.error && result.outcome !== 'prediction_error' && result.outcome !== 'gold_error' && result.outcome !== 'refused';
  if (bothRan && gold.columns.length && pred.columns.length && gold.columns.length !== pred.columns.length) {
    out.push(
      `${plural(pred.columns.length, 'column')} vs ${gold.columns.length}: the prediction returns ${names(pred.columns)}, gold returns ${names(gold.columns)}. EX compares whole rows, so no row can match.`,
    );
  }
  if (result.outcome === 'mismatch' && result.difference) {
    const d = result.difference;
    out.push(
      `the prediction returns ${plural(d.pred_rows, 'row')}, gold ${plural(d.gold_rows, 'row')}${d.pred_rows === d.gold_rows ? ' (same count, different values)' : ''}.`,
    );
  }
  // The literal checks tokenize both texts whole: past the bounds of SQL analysis they step aside, and say so.
  const tooLarge =
    result.outcome === 'mismatch' && sqls !== undefined
      ? (analysisBoundNote(sqls.pred, "the prediction's string literals", 'tokens') ??
        analysisBoundNote(sqls.gold, "gold's string literals", 'tokens'))
      : undefined;
  if (tooLarge) out.push(tooLarge);
  const mismatch = result.outcome === 'mismatch' && sqls !== undefined && !tooLarge;
  const literal = mismatch ? caseOrSpaceLiteral(sqls.pred, gold, pred) : undefined;
  const spelling = mismatch && !literal ? literalSpelling(sqls.pred, sqls.gold) : undefined;
  if (literal) {
    out.push(
      'the results differ only in the case or surrounding spaces of a value, ' +
        `and that value is the prediction's literal ${literal.literal}: ` +
        `it returns "${literal.predicted}" where gold has "${literal.gold}". ${EXACT_TEXT}`,
    );
  } else if (spelling) {
    out.push(
      `the prediction's literal ${spelling.predicted} is gold's ${spelling.gold} in another case or with other spaces. ${EXACT_TEXT}`,
    );
  }
  if (result.ex === 1 && result.f1 !== null && result.f1 < 1) {
    out.push(
      `EX is 1 (the same set of rows) but Soft-F1 is ${result.f1.toFixed(3)}: Soft-F1 pairs predicted row i with gold row i, by position, so the same rows in another order (or with duplicates) score lower. EX ignores order and duplicates.`,
    );
  }
  return out;
}

const EXACT_TEXT = 'Text compares exactly (in SQLite and in EX): write the value as the data has it.';

/** A text value with its case folded and its surrounding spaces dropped; other values as they are. */
const looseKey = (value: unknown) => (typeof value === 'string' ? `s:${value.trim().toLowerCase()}` : `v:${JSON.stringify(value)}`);
const exactKey = (value: unknown) => JSON.stringify(value);
const stringLiterals = (sql: string) => [...tokenize(sql)].filter((token) => token.kind === 'string').map((token) => token.text);
const sortedRows = (rows: unknown[][], key: (value: unknown) => string) => rows.map((row) => JSON.stringify(row.map(key))).sort();

/**
 * When two whole results differ only in the case or surrounding spaces of text values (`'stealth'` vs
 * `'Stealth'`), the prediction's string literal that gives such a value, and the two spellings; else nothing.
 */
export function caseOrSpaceLiteral(
  predSql: string,
  gold: QueryPreview,
  pred: QueryPreview,
): { literal: string; predicted: string; gold: string } | undefined {
  const whole = (preview: QueryPreview) => !preview.error && !preview.truncated && preview.rows.length === preview.rowCount;
  if (!whole(gold) || !whole(pred) || gold.columns.length !== pred.columns.length) return undefined;
  const same = (key: (value: unknown) => string) =>
    JSON.stringify(sortedRows(gold.rows, key)) === JSON.stringify(sortedRows(pred.rows, key));
  if (same(exactKey) || !same(looseKey)) return undefined;
  const goldTexts = new Set(gold.rows.flat().filter((v): v is string => typeof v === 'string'));
  const goldByLooseKey = new Map([...goldTexts].map((text) => [looseKey(text), text]));
  const literals = stringLiterals(predSql);
  for (const value of new Set(pred.rows.flat())) {
    if (typeof value !== 'string' || goldTexts.has(value)) continue;
    const literal = literals.find((text) => text.slice(1, -1).replace(/''/g, "'") === value);
    const goldSpelling = goldByLooseKey.get(looseKey(value));
    if (literal && goldSpelling !== undefined) return { literal, predicted: value, gold: goldSpelling };
  }
  return undefined;
}

/** A string literal of the prediction that gold spells in another case or with other spaces (`'stealth'`, `'Stealth'`). */
export function literalSpelling(predSql: string, goldSql: string): { predicted: string; gold: string } | undefined {
  const goldLiterals = stringLiterals(goldSql);
  for (const predicted of stringLiterals(predSql)) {
    if (goldLiterals.includes(predicted)) continue;
    const gold = goldLiterals.find((literal) => looseKey(literal.slice(1, -1)) === looseKey(predicted.slice(1, -1)));
    if (gold) return { predicted, gold };
  }
  return undefined;
}

/** "0.74× gold's speed to the first row (VES), 65× over all rows (R-VES)": each timed ratio, named by what it times. */
function speedText(result: QuestionResult): string {
  const first = firstRowRatio(result);
  const all = allRowsRatio(result);
  const named = [first && `${ratioText(first.ratio)}× to the first row (VES)`, all && `${ratioText(all.ratio)}× over all rows (R-VES)`];
  const said = named.filter(Boolean).join(', ');
  return said ? said.replace('×', "× gold's speed") : `${ratioText(result.time_ratio)}× gold's speed`;
}

/** One line for a report row: why it scored what it scored. */
export function reportReason(result: QuestionResult, word: Wording = asIs): string {
  if (result.error) return word(result.error);
  if (result.outcome === 'mismatch' && result.difference) {
    const d = result.difference;
    return `${plural(d.pred_rows, 'row')} vs ${d.gold_rows.toLocaleString('en-US')} in gold${d.pred_rows === d.gold_rows ? ', different values' : ''}`;
  }
  if (result.outcome === 'correct') {
    const untimed = result.notes.find((note) => note.startsWith('timing failed'));
    if (untimed) return word(untimed);
    if (result.same_program) return 'same program as gold: ratio 1, not timed';
    if (result.past_official_limit)
      return `correct, but its official timing loop would outlast the limit: ${pastLimitMetrics(result.past_official_limit)} 0, as officially (${result.time_ratio?.toPrecision(2)}× gold's speed)`;
    if (result.f1 !== null && result.f1 < 1) return `same set of rows; Soft-F1 ${result.f1.toFixed(3)} (it pairs rows by position)`;
    if (result.time_ratio !== null) return `correct; ${speedText(result)}`;
    return 'correct';
  }
  if (result.outcome === 'skipped') return 'database missing: not scored';
  return result.notes[0] ? word(result.notes[0]) : result.outcome.replace('_', ' ');
}

/** A scored question as a report row: its reason, its prediction and where it is, each timed quantity's ratio. */
export function reportRow(result: QuestionResult, predictedSql: string, location?: ReportRow['location'], word: Wording = asIs): ReportRow {
  const { timings: _timings, ...row } = result;
  return {
    ...row,
    error: row.error === null ? null : word(row.error),
    notes: row.notes.map(word),
    predicted_sql: predictedSql,
    reason: reportReason(result, word),
    location,
    first_row_ratio: firstRowRatio(result),
    all_rows_ratio: allRowsRatio(result),
  };
}
