/**
 * One query run for the editor, outside any pair: its first rows (a preview) and its time alone. Messages are
 * core's words; the face words them for its reader.
 */
import { QueryCancelled, type Row } from '../core/db/database';
import type { DatabaseConnection } from '../core/db/engine';
import { engineFor, timeExecution } from '../core/db/engines';
import { describeFailure, dialectOf, runnableBody } from '../core/db/readQuery';
import { jsonValue } from '../core/results/jsonValue';

/** A query's first rows with its column names, how many rows it has in all (when it ran to the end), or why it did not run. */
export interface QueryPreview {
  columns: string[];
  rows: unknown[][];
  rowCount: number | null;
  truncated: boolean;
  error?: string;
}

/** One query timed alone (the Plan panel's Timing): what the protocol's TimeQueryResult carries. */
export interface TimedAlone {
  /** Median milliseconds per execution and a 95 % interval of that median; how many executions. */
  ms: number;
  low: number;
  high: number;
  runs: number;
  samples: number[];
  /** Milliseconds to the first row (prepare and first step), median. */
  firstRowMs: number;
}

/**
 * The editor's Cancel stopped the work: a statement interrupted (core's QueryCancelled, as the previews, the
 * scoring and the searches end when cancelled) or the request aborted meanwhile.
 */
export function wasCancelled(error: unknown, signal?: AbortSignal): boolean {
  return error instanceof QueryCancelled || signal?.aborted === true;
}

/** Rows a preview shows. */
export const PREVIEW_ROWS = 10;

const quoteless = (sql: string) => sql.replace(/;\s*$/, '');

/**
 * The first rows of a query's result with its column names, and how many rows it has in all. One run streams
 * the rows (values in column order; only the first few kept, so memory stays small); the names are the
 * engine's result columns (DatabaseConnection.resultColumns), the same labels the judge and the techniques show.
 */
export async function resultPreview(
  db: DatabaseConnection,
  sql: string,
  limits: { timeoutMs: number; maxRows: number; signal?: AbortSignal },
): Promise<QueryPreview> {
  const runnable = runnableBody(sql, dialectOf(db.engine));
  if ('status' in runnable) return { columns: [], rows: [], rowCount: null, truncated: false, error: runnable.message };
  if (!runnable.body) return { columns: [], rows: [], rowCount: 0, truncated: false };
  const body = quoteless(runnable.body);
  const rows: Row[] = [];
  let rowCount: number | null = null;
  try {
    const deadline = performance.now() + limits.timeoutMs;
    rowCount = await db.streamRows(
      body,
      (row) => {
        if (rows.length < PREVIEW_ROWS) rows.push(row);
      },
      { deadline, budgetMs: limits.timeoutMs, maxRows: limits.maxRows, signal: limits.signal },
    );
    const named = await db.resultColumns(body, { hasRows: rowCount > 0, deadline }).catch(() => undefined);
    const columns = named ? [...named.names] : [];
    const width = Math.max(columns.length, rows[0]?.length ?? 0);
    while (columns.length < width) columns.push(`column ${columns.length + 1}`);
    return { columns, rows: rows.map((row) => row.map(jsonValue)), rowCount, truncated: rowCount > rows.length };
  } catch (error) {
    if (error instanceof QueryCancelled) throw error;
    return {
      columns: [],
      rows: rows.map((row) => row.map(jsonValue)),
      rowCount,
      truncated: rows.length > 0,
      error: describeFailure(error).message,
    };
  }
}

/** How long to time one query alone: at least this many runs and milliseconds, at most these. */
const ALONE = { minRuns: 7, minMs: 400, maxRuns: 60, budgetMs: 3000 };

function median(sorted: readonly number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * A distribution-free 95 % interval for the median of `n` sorted samples: the order statistics j and k with
 * j, k = n/2 ∓ 1.96·√n/2 (the normal approximation of the binomial; clamped to the samples for small n).
 */
export function medianInterval(sorted: readonly number[]): [number, number] {
  const n = sorted.length;
  const half = (1.96 * Math.sqrt(n)) / 2;
  const j = Math.max(0, Math.floor(n / 2 - half) - 1);
  const k = Math.min(n - 1, Math.ceil(n / 2 + half) - 1);
  return [sorted[j], sorted[k]];
}

/**
 * One query timed alone, as the timing protocols time each side of a pair: every execution on a fresh
 * read-only connection opened outside the timed span, to the last row and closed (mini_dev's quantity), after
 * one untimed warm-up. Runs until both minimums are met (or the budget is spent); the median and its interval.
 */
export async function timeAlone(dbPath: string, sql: string, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<TimedAlone> {
  const runnable = runnableBody(sql, dialectOf(engineFor(dbPath)));
  if ('status' in runnable) throw new Error(runnable.message);
  if (!runnable.body) throw new Error('no statement to time');
  const body = quoteless(runnable.body);
  const run = (quantity: 'first-row' | 'full') =>
    timeExecution(dbPath, body, quantity, {
      deadline: performance.now() + limits.timeoutMs,
      budgetMs: limits.timeoutMs,
      signal: limits.signal,
    });
  await run('full'); // warm-up: the file in the page cache, as for every run after it
  const samples: number[] = [];
  const firstRows: number[] = [];
  const started = performance.now();
  while (samples.length < ALONE.maxRuns) {
    if (limits.signal?.aborted) throw new QueryCancelled();
    const spent = performance.now() - started;
    if (samples.length >= ALONE.minRuns && (spent >= ALONE.minMs || spent >= ALONE.budgetMs)) break;
    if (spent >= ALONE.budgetMs && samples.length >= 3) break;
    samples.push(await run('full'));
    if (firstRows.length < 15) firstRows.push(await run('first-row'));
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const [low, high] = medianInterval(sorted);
  return { ms: median(sorted), low, high, runs: samples.length, samples, firstRowMs: median([...firstRows].sort((a, b) => a - b)) };
}
