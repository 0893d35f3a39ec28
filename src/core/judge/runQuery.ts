import { ReadOnlyDatabase, Row } from '../db/database';
import { QueryFailure, readQuery, ResultLimits, runnableBody } from '../db/readQuery';
import { ResultView } from './resultTable';

/** A query's whole result for the judge: every row (for the equality rule), its column names, and a view to show. */
export interface JudgedResult extends ResultView {
  rows: Row[];
}

export type JudgedRun = { status: 'ok'; result: JudgedResult } | QueryFailure;

/** Keys of a JavaScript object that it orders before the others, whatever their place (array-index-like). */
const INDEX_LIKE = /^(0|[1-9]\d{0,9})$/;

/**
 * The result's column names, as SQLite names a subquery's columns (a repeated name gets `:1`, shown here as
 * the name again). node-sqlite3 hands names over only as object keys, so one row is read through a LEFT JOIN
 * that yields a row even for an empty result. Where the keys cannot give the order (a column named like an
 * array index, `SELECT 1`) or the query fails here, the columns are numbered instead.
 */
async function columnNames(db: ReadOnlyDatabase, body: string, width: number, timeoutMs: number): Promise<string[]> {
  const numbered = Array.from({ length: width }, (_, i) => `column ${i + 1}`);
  const timer = setTimeout(() => db.interrupt(), timeoutMs);
  try {
    const [row] = await db.all(`SELECT "__ves_lens_r".* FROM (SELECT 1) LEFT JOIN (\n${body}\n) AS "__ves_lens_r" ON 1 LIMIT 1`);
    const keys = row ? Object.keys(row) : [];
    if (keys.length !== width || keys.some((k) => INDEX_LIKE.test(k))) return numbered;
    const seen = new Set<string>();
    return keys.map((key) => {
      const base = key.replace(/:\d+$/, '');
      const name = base !== key && seen.has(base) ? base : key;
      seen.add(name);
      return name;
    });
  } catch {
    return numbered;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one entry read-only within a time limit and a row cap (the engine's readQuery: writes and several
 * statements refused, Python's messages), then reads its column names. An entry with no statement at all is
 * a failure here: it answers nothing.
 */
export async function runForJudge(db: ReadOnlyDatabase, sql: string, limits: { timeoutMs: number; maxRows: number; maxBytes?: number; signal?: AbortSignal }): Promise<JudgedRun> {
  const runnable = runnableBody(sql);
  if ('status' in runnable) return runnable;
  if (runnable.body.trim() === '') return { status: 'error', message: 'the SQL is empty' };
  const resultLimits: ResultLimits = { deadline: performance.now() + limits.timeoutMs, budgetMs: limits.timeoutMs, maxRows: limits.maxRows, maxBytes: limits.maxBytes, signal: limits.signal };
  const run = await readQuery(db, sql, resultLimits);
  if (run.status !== 'ok') return run;
  const width = run.rows[0]?.length ?? (await db.columnCount(runnable.body).catch(() => undefined)) ?? 0;
  const columns = await columnNames(db, runnable.body, width, limits.timeoutMs);
  return { status: 'ok', result: { columns, rows: run.rows, rowCount: run.rows.length, head: run.rows.slice(0, 20) } };
}
