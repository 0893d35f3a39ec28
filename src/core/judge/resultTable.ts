import { Row, SqlValue } from '../db/database';

/** A query's result as the judge shows it: column names, the first rows, and how many rows there are in all. */
export interface ResultView {
  columns: string[];
  rowCount: number;
  head: Row[];
}

/** Rows shown to the model, as ROSE's df.head(20). */
export const HEAD_ROWS = 20;
/** Longest value shown; ROSE's pandas cuts at 50 characters. */
const LONGEST_VALUE = 60;

function cell(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (Buffer.isBuffer(value)) return `<blob, ${value.length} bytes>`;
  if (typeof value !== 'string') return value.text; // a server's exact number, boolean, date or time
  if (value === '') return "''";
  const line = value.replace(/\r?\n/g, ' ↵ ').replace(/\|/g, '\\|');
  return line.length > LONGEST_VALUE ? `${line.slice(0, LONGEST_VALUE - 1)}… (${line.length} characters)` : line;
}

/**
 * A result as a Markdown table, the first HEAD_ROWS rows, then the total row count (ROSE shows 20 rows and
 * never says how many there are: a model then cannot tell 20 rows from 20,000). Values as SQLite returns
 * them: numbers in their shortest exact form (pandas rounds floats to 6 places), NULL as NULL, empty text ''.
 */
export function renderResult(view: ResultView, headRows = HEAD_ROWS): string {
  const header = `| ${view.columns.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  const rule = `|${view.columns.map(() => '---').join('|')}|`;
  const lines = [header, rule, ...view.head.slice(0, headRows).map((row) => `| ${row.map(cell).join(' | ')} |`)];
  const shown = Math.min(headRows, view.head.length, view.rowCount);
  const count =
    view.rowCount === 0
      ? 'Total: 0 rows (the result is empty).'
      : shown < view.rowCount
        ? `Total: ${view.rowCount.toLocaleString('en-US')} rows; the first ${shown} are shown.`
        : `Total: ${view.rowCount.toLocaleString('en-US')} row${view.rowCount === 1 ? '' : 's'}.`;
  return [...lines, count].join('\n');
}
