import { RunLimits } from '../../db/database';
import { DatabaseConnection } from '../../db/engine';
import { describeFailure, QueryFailure, runnableBody } from '../../db/readQuery';
import { PyFloat, PyRow, PyValue } from './pyValues';
import { ResultTable } from './types';

/** Integers a double holds exactly; beyond them SQLite's own decimal text is read. */
const SAFE = Number.MAX_SAFE_INTEGER;
/** Columns per type mask (an integer of SQLite's, 64 bits: 50 keeps clear of the sign). */
const MASK_WIDTH = 50;

/** SQLMorph's adapter fails on a statement-less string (`cursor.description` is None): all its techniques score 0. */
export const EMPTY_QUERY = "no statement to run (SQLMorph's adapter fails on it: cursor.description is None)";

/**
 * The query that returns `body`'s rows with what node-sqlite3 loses: which values are REAL (one bit per
 * column in a mask) and the exact digits of integers beyond ±2^53 (as text, only where there are some).
 */
function typedQuery(body: string, columns: number): string {
  const names = Array.from({ length: columns }, (_, i) => `c${i}`);
  const masks: string[] = [];
  for (let start = 0; start < columns; start += MASK_WIDTH) {
    const bits = names.slice(start, start + MASK_WIDTH).map((c, k) => `(typeof(${c}) = 'real') * ${2 ** k}`);
    masks.push(bits.join(' + '));
  }
  const big = (c: string) => `(typeof(${c}) = 'integer' AND (${c} > ${SAFE} OR ${c} < -${SAFE}))`;
  const bigText = `CASE WHEN ${names.map(big).join(' OR ')} THEN json_array(${names.map((c) => `CASE WHEN ${big(c)} THEN CAST(${c} AS TEXT) END`).join(', ')}) END`;
  return `WITH "__ves_lens_typed"(${names.join(', ')}) AS (\n${body}\n)\nSELECT ${names.join(', ')}, ${masks.join(', ')}, ${bigText} FROM "__ves_lens_typed"`;
}

export type TypedRead = { status: 'ok'; table: ResultTable; notes: string[] } | QueryFailure;

/**
 * Runs one query as SQLMorph's SQLite adapter sees it: column names as `cursor.description` gives them and
 * rows with Python's types (INTEGER int, REAL float, TEXT str, BLOB bytes, NULL None), within the same
 * bounds as every other read (rows, bytes, time).
 */
export async function readTypedResult(
  db: DatabaseConnection,
  sql: string,
  limits: RunLimits & { maxRows: number; maxBytes?: number },
): Promise<TypedRead> {
  const runnable = runnableBody(sql);
  if ('status' in runnable) return runnable;
  if (runnable.body === '') return { status: 'error', message: EMPTY_QUERY };
  try {
    const columns = (await db.columnCount(runnable.body)) ?? 0;
    if (columns === 0) return { status: 'error', message: 'the statement returns no columns' };
    const maskCount = Math.ceil(columns / MASK_WIDTH);
    const rows: PyRow[] = [];
    await db.streamRows(
      typedQuery(runnable.body, columns),
      (raw) => {
        const row = raw.slice(0, columns) as PyValue[]; // SQLite's values: no TypedValue among them
        for (let m = 0; m < maskCount; m++) {
          let mask = raw[columns + m] as number;
          for (let k = 0; mask > 0; k++, mask = Math.floor(mask / 2)) {
            if (mask % 2) row[m * MASK_WIDTH + k] = new PyFloat(row[m * MASK_WIDTH + k] as number);
          }
        }
        const bigText = raw[columns + maskCount];
        if (typeof bigText === 'string') {
          (JSON.parse(bigText) as (string | null)[]).forEach((digits, i) => {
            if (digits !== null) row[i] = BigInt(digits);
          });
        }
        rows.push(row);
      },
      limits,
    );
    const names = await db.resultColumns(runnable.body, { hasRows: rows.length > 0, deadline: limits.deadline });
    return { status: 'ok', table: { columns: names.names, rows }, notes: names.note ? [names.note] : [] };
  } catch (error) {
    return describeFailure(error);
  }
}
