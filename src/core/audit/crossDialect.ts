import { GoldFile } from '../bird/gold';
import { Question } from '../bird/questions';
import { ResultLimits, Row, SqlValue, TypedValue } from '../db/database';
import { ConnectionCache, DatabaseUnavailable } from '../db/connectionCache';
import { QueryRun, readQuery } from '../db/readQuery';
import { DIALECT_NAMES } from '../sql/dialect';
import { DatabaseSource } from '../db/source';
import { jsonValue } from '../results/jsonValue';
import { exactDouble, pythonErrorOf, rowKey, valueKey } from '../results/valueKey';

/**
 * The cross-dialect gold check for annotators: a question's gold in one dialect (the audited gold, say SQLite's)
 * and in another (mini_dev's PostgreSQL gold) must return the same rows, as sets with Python's equality, as the
 * official scripts compare them. Numbers that differ only past the 6th significant digit (a float4 cast, a
 * numeric division against a double's) are reported as such, not as a defect; every other difference is.
 */

/** Significant digits below which two numbers count as a precision difference, not another result. */
export const CROSS_DIALECT_DIGITS = 6;

/** Rows of each result kept as evidence. */
const EVIDENCE_ROWS = 3;

export type CrossDialectStatus = 'same' | 'different' | 'error';

/** One dialect's gold and what it returned. */
export interface DialectResult {
  /** The engine that ran it (`sqlite`, `postgres`). */
  engine: string;
  sql: string;
  /** Rows returned; null when it failed. */
  rows: number | null;
  /** Its first rows, as JSON carries values. */
  first_rows: unknown[][];
  error?: string;
}

export interface CrossDialectCheck {
  status: CrossDialectStatus;
  /** What was found, in a sentence naming both golds. */
  detail: string;
  /** `same` only once numbers are rounded to CROSS_DIALECT_DIGITS significant digits: Python's `==` still tells them apart. */
  precision_only?: true;
  /** Both golds' results; `compared` is null when the other gold could not be run at all (no line, no database). */
  evidence: { gold: DialectResult; compared: DialectResult | null };
}

/** What a gold ran to: its engine, its SQL, and the run (rows or the failure). */
export interface GoldRun {
  engine: string;
  sql: string;
  run: QueryRun;
}

/** How the check names each gold: by dialect (`the SQLite gold`), or, on one engine, the gold and the compared gold. */
export function goldNames(goldEngine: string, comparedEngine: string): { gold: string; compared: string } {
  if (goldEngine === comparedEngine) return { gold: 'the gold', compared: 'the compared gold' };
  const name = (engine: string) => `the ${(DIALECT_NAMES as Record<string, string>)[engine] ?? engine} gold`;
  return { gold: name(goldEngine), compared: name(comparedEngine) };
}

/** What an audit with a compared gold says about the check as a whole. */
export interface CrossDialectSummary {
  compared_gold_file: string;
  gold_engine: string;
  compared_engine: string;
  counts: CrossDialectCounts;
  /** The compared gold's server stopped answering during the audit: why, and how many questions were not compared. */
  server_lost?: { message: string; not_compared: number };
}

/** `the PostgreSQL gold (questions/mini_dev_postgresql_gold.sql)` */
export function comparedGoldName(summary: CrossDialectSummary): string {
  return `${goldNames(summary.gold_engine, summary.compared_engine).compared} (${summary.compared_gold_file})`;
}

/** `cross-dialect check against …: 136 same (3 only past the 6th significant digit), 1 different, 3 failed or not compared`. */
export function crossDialectText(summary: CrossDialectSummary): string {
  const { same, precision_only, different, error } = summary.counts;
  const line =
    `cross-dialect check against ${comparedGoldName(summary)}: ${same} same` +
    `${precision_only ? ` (${precision_only} only past the ${CROSS_DIALECT_DIGITS}th significant digit)` : ''}, ` +
    `${different} different, ${error} failed or not compared`;
  return summary.server_lost !== undefined ? `${line}; its server went away (${summary.server_lost.message})` : line;
}

/** How many questions got each status, and how many of the `same` differ past the 6th digit only. */
export interface CrossDialectCounts {
  same: number;
  precision_only: number;
  different: number;
  error: number;
}

/** Whether a check is a finding an annotator should look at (not a gold the audit already flags, nor one not compared). */
export function isCrossDialectFinding(check: CrossDialectCheck | undefined): boolean {
  if (!check || check.status === 'same') return false;
  if (check.status === 'different') return true;
  // An error is a finding when the audited gold ran and the compared one failed (or Python raises on its rows).
  return check.evidence.gold.error === undefined && check.evidence.compared?.error !== undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function dialectResult(run: GoldRun): DialectResult {
  const base = { engine: run.engine, sql: run.sql };
  if (run.run.status !== 'ok') return { ...base, rows: null, first_rows: [], error: run.run.message };
  return { ...base, rows: run.run.rows.length, first_rows: run.run.rows.slice(0, EVIDENCE_ROWS).map((row) => row.map(jsonValue)) };
}

/** A number rounded to CROSS_DIALECT_DIGITS significant digits; whole numbers stay exact (ids, counts). */
function approximateKey(value: SqlValue): string {
  if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value))
    return valueKey(Number(value.toPrecision(CROSS_DIALECT_DIGITS)));
  if (value instanceof TypedValue && value.pythonType === 'Decimal' && value.pythonError === undefined) {
    const exact = exactDouble(value.canonical);
    const number = exact ?? Number(value.text);
    if (Number.isFinite(number) && !Number.isInteger(number)) return valueKey(Number(number.toPrecision(CROSS_DIALECT_DIGITS)));
  }
  return valueKey(value);
}

const approximateRowKey = (row: Row) => JSON.stringify(row.map(approximateKey));

/** A value as Python shows it, so that a float and a Decimal of the same digits read apart: `Decimal('3.84615')`. */
function pythonText(value: SqlValue): string {
  if (value instanceof TypedValue) return value.pythonType === 'Decimal' ? `Decimal('${value.text}')` : value.text;
  return JSON.stringify(jsonValue(value));
}

/** The first value two rows that round alike differ in, as Python shows each. */
function firstDifference(gold: Row, compared: Row): [string, string] | undefined {
  for (let i = 0; i < gold.length; i++)
    if (valueKey(gold[i]) !== valueKey(compared[i])) return [pythonText(gold[i]), pythonText(compared[i])];
  return undefined;
}

/** Distinct rows of a result by a key, first occurrence kept. */
function distinctBy(rows: readonly Row[], key: (row: Row) => string): Map<string, Row> {
  const distinct = new Map<string, Row>();
  for (const row of rows) {
    const k = key(row);
    if (!distinct.has(k)) distinct.set(k, row);
  }
  return distinct;
}

/**
 * Compares two golds' runs as the official scripts compare results (`set(a) == set(b)` with Python's `==`), and
 * says what differs: a gold that fails, a result Python cannot put in a set, rows only one gold returns, or only
 * digits past the 6th significant one.
 */
export function compareGoldRuns(gold: GoldRun, compared: GoldRun): CrossDialectCheck {
  const names = goldNames(gold.engine, compared.engine);
  const evidence = { gold: dialectResult(gold), compared: dialectResult(compared) };
  const error = (detail: string): CrossDialectCheck => ({ status: 'error', detail, evidence });
  if (gold.run.status !== 'ok') return error(`${names.gold} fails (${gold.run.message}): not compared`);
  if (compared.run.status !== 'ok') return error(`${names.compared} fails: ${compared.run.message}`);
  const rowsOf = { gold: gold.run.rows, compared: compared.run.rows };
  for (const side of ['gold', 'compared'] as const) {
    const raised = rowsOf[side].map(pythonErrorOf).find((message) => message !== undefined);
    if (raised === undefined) continue;
    evidence[side].error = `Python raises "${raised}" on its result`;
    return error(`Python raises "${raised}" on ${names[side]}'s result, so no set of its rows can be compared`);
  }
  const goldRows = distinctBy(gold.run.rows, rowKey);
  const comparedRows = distinctBy(compared.run.rows, rowKey);
  const counts = `${names.gold} returns ${plural(gold.run.rows.length, 'row')}, ${names.compared} ${plural(compared.run.rows.length, 'row')}`;
  const onlyGold = [...goldRows.keys()].filter((key) => !comparedRows.has(key));
  const onlyCompared = [...comparedRows.keys()].filter((key) => !goldRows.has(key));
  if (onlyGold.length === 0 && onlyCompared.length === 0)
    return { status: 'same', detail: `same rows: ${counts} (the same set)`, evidence };

  const goldApproximate = distinctBy(gold.run.rows, approximateRowKey);
  const comparedApproximate = distinctBy(compared.run.rows, approximateRowKey);
  const sameWhenRounded =
    goldApproximate.size === comparedApproximate.size && [...goldApproximate.keys()].every((key) => comparedApproximate.has(key));
  if (sameWhenRounded) {
    const example = goldRows.get(onlyGold[0] ?? '') ?? comparedRows.get(onlyCompared[0])!;
    const partner = onlyGold.length
      ? comparedApproximate.get(approximateRowKey(example))!
      : goldApproximate.get(approximateRowKey(example))!;
    const [goldValue, comparedValue] = onlyGold.length ? firstDifference(example, partner)! : firstDifference(partner, example)!;
    return {
      status: 'same',
      precision_only: true,
      detail:
        `same rows once numbers are rounded to ${CROSS_DIALECT_DIGITS} significant digits (${counts}), not a defect; ` +
        `past that they differ (${goldValue} in ${names.gold}, ${comparedValue} in ${names.compared}), which Python's == tells apart`,
      evidence,
    };
  }
  const common = goldRows.size - onlyGold.length;
  return {
    status: 'different',
    detail:
      `the results differ: ${counts}; ${common === 0 ? 'no row in common' : `${plural(common, 'row')} in common`}, ` +
      `${onlyGold.length} only in ${names.gold}'s, ${onlyCompared.length} only in ${names.compared}'s`,
    evidence,
  };
}

/** The other gold, and the databases it runs on. */
export interface ComparedGoldInput {
  gold: GoldFile;
  source: DatabaseSource;
}

/**
 * Runs each question's compared gold (its line in the other gold file, by position as BIRD pairs gold) on the
 * compared source, one connection per database, and compares it with the audited gold's run. A server that
 * goes away ends the asking: every later question is not compared, said once through `serverLost`.
 */
export class ComparedGold {
  private readonly connections: ConnectionCache;
  /** Why the compared source's server stopped answering, once it did, and the questions not compared since. */
  private serverLost: string | undefined;
  private notComparedSinceServerLost = 0;

  constructor(private readonly input: ComparedGoldInput) {
    this.connections = ConnectionCache.connections({ source: input.source });
  }

  get engine(): string {
    return this.input.source.engine.name;
  }

  /** The check of one question, given what its audited gold ran to on `goldEngine`. */
  async check(question: Question, gold: GoldRun, limits: ResultLimits): Promise<CrossDialectCheck> {
    const names = goldNames(gold.engine, this.engine);
    const notCompared = (why: string): CrossDialectCheck => ({
      status: 'error',
      detail: `not compared: ${why}`,
      evidence: { gold: dialectResult(gold), compared: null },
    });
    const entry = this.input.gold.entries[question.index];
    if (!entry) return notCompared(`${this.input.gold.file} has no line for this question (line ${question.index + 1})`);
    if (question.dbId && entry.dbId !== question.dbId)
      return notCompared(`${this.input.gold.file} line ${entry.line} names database ${entry.dbId}, the question ${question.dbId}`);
    const serverGone = (message: string) => {
      this.serverLost ??= message;
      this.notComparedSinceServerLost++;
      return notCompared(`the server of ${names.compared} went away (${this.serverLost})`);
    };
    if (this.serverLost !== undefined) return serverGone(this.serverLost);
    const opened = await this.connections.forQuestion(entry.dbId);
    if (opened instanceof DatabaseUnavailable)
      return opened.serverUnavailable ? serverGone(opened.message) : notCompared(`${names.compared}'s ${opened.message}`);
    const run = await readQuery(opened.db, entry.sql, limits);
    if (run.status !== 'ok' && run.serverUnavailable) return serverGone(run.message);
    return compareGoldRuns(gold, { engine: this.engine, sql: entry.sql, run });
  }

  /** The audit's account of the check: the files, the engines, the counts, and a server that went away. */
  summary(goldEngine: string, checks: readonly (CrossDialectCheck | undefined)[]): CrossDialectSummary {
    return {
      compared_gold_file: this.input.gold.file,
      gold_engine: goldEngine,
      compared_engine: this.engine,
      counts: crossDialectCounts(checks),
      ...(this.serverLost !== undefined
        ? { server_lost: { message: this.serverLost, not_compared: this.notComparedSinceServerLost } }
        : {}),
    };
  }

  close(): Promise<void> {
    return this.connections.closeAll();
  }
}

/** The counts of an audit's checks (questions not audited have none). */
export function crossDialectCounts(checks: readonly (CrossDialectCheck | undefined)[]): CrossDialectCounts {
  const counts: CrossDialectCounts = { same: 0, precision_only: 0, different: 0, error: 0 };
  for (const check of checks) {
    if (!check) continue;
    counts[check.status]++;
    if (check.precision_only) counts.precision_only++;
  }
  return counts;
}
