import { Row, SqlValue } from '../../db/database';
import type { DatabaseConnection } from '../../db/engine';
import { readQuery } from '../../db/readQuery';
import { sameResultSet } from '../../metrics/executionMatch';
import { distinctRows } from '../../metrics/softF1';
import { valueKey } from '../valueKey';

/** Relative difference below which two doubles differ only in the digits a summation order changes. */
export const FLOAT_DIGITS_TOLERANCE = 1e-9;

/** A mismatch EX counts as wrong although the two results differ only in float digits or in physical row order. */
export interface ExFragile {
  kind: 'float_digits' | 'row_order';
  detail: string;
  max_abs_difference?: number;
  max_relative_difference?: number;
}

const coarse = (value: SqlValue) => (typeof value === 'number' ? `n${Number(value.toPrecision(6))}` : valueKey(value));
const sortKey = (row: Row) => JSON.stringify(row.map(coarse));

/**
 * Pairs the distinct rows of two results after sorting them on values rounded to 6 significant digits, and
 * returns the largest float difference when every pair is equal but for doubles within FLOAT_DIGITS_TOLERANCE
 * (relative); undefined when any pair differs more (or the row or column counts differ).
 */
export function floatDigitsOnly(a: readonly Row[], b: readonly Row[]): { abs: number; relative: number } | undefined {
  const left = distinctRows(a).sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  const right = distinctRows(b).sort((x, y) => sortKey(x).localeCompare(sortKey(y)));
  if (left.length !== right.length || left.length === 0) return undefined;
  let abs = 0;
  let relative = 0;
  for (let i = 0; i < left.length; i++) {
    if (left[i].length !== right[i].length) return undefined;
    for (let j = 0; j < left[i].length; j++) {
      const x = left[i][j];
      const y = right[i][j];
      if (valueKey(x) === valueKey(y)) continue;
      if (typeof x !== 'number' || typeof y !== 'number') return undefined;
      const difference = Math.abs(x - y);
      const scale = Math.max(Math.abs(x), Math.abs(y));
      if (difference > FLOAT_DIGITS_TOLERANCE * scale) return undefined;
      abs = Math.max(abs, difference);
      relative = Math.max(relative, difference / scale);
    }
  }
  return abs > 0 ? { abs, relative } : undefined;
}

export interface FragilityProbe {
  /** A read-only connection to the real database. */
  db: DatabaseConnection;
  /** Opens a fresh read-only connection to it (for SQLite's reversed scan order, a per-connection setting). */
  openFresh: () => Promise<DatabaseConnection>;
  gold: string;
  prediction: string;
  deadline: number;
  maxRows: number;
}

/**
 * Whether a mismatch rests only on float digits (the same rows up to the last digits of doubles) or on the
 * physical row order (the two agree when SQLite reads unordered rows in reverse: a LIMIT through a tie or
 * without ORDER BY, a bare column beside an aggregate). EX compares sets, so duplicates and row order alone
 * never make a mismatch; undefined when neither holds.
 */
export async function exFragility(probe: FragilityProbe): Promise<ExFragile | undefined> {
  const limits = { deadline: probe.deadline, maxRows: probe.maxRows };
  const gold = await readQuery(probe.db, probe.gold, limits);
  const prediction = await readQuery(probe.db, probe.prediction, limits);
  if (gold.status !== 'ok' || prediction.status !== 'ok') return undefined;
  const digits = floatDigitsOnly(prediction.rows, gold.rows);
  if (digits)
    return {
      kind: 'float_digits',
      detail: `the results differ only in float digits: at most ${digits.abs.toPrecision(3)} (${digits.relative.toPrecision(3)} relative), as summing in another order gives`,
      max_abs_difference: digits.abs,
      max_relative_difference: digits.relative,
    };
  const reversed = await probe.openFresh();
  try {
    await reversed.all('PRAGMA reverse_unordered_selects = ON');
    const goldReversed = await readQuery(reversed, probe.gold, limits);
    const predictionReversed = await readQuery(reversed, probe.prediction, limits);
    if (goldReversed.status !== 'ok' || predictionReversed.status !== 'ok') return undefined;
    if (sameResultSet(predictionReversed.rows, goldReversed.rows))
      return {
        kind: 'row_order',
        detail:
          'the two agree when SQLite reads unordered rows in reverse: which rows come out depends on the physical row order (a LIMIT through a tie or without ORDER BY, a bare column beside an aggregate)',
      };
    const reversedDigits = floatDigitsOnly(predictionReversed.rows, goldReversed.rows);
    if (reversedDigits)
      return {
        kind: 'row_order',
        detail: `in reverse row order the two differ only in float digits (at most ${reversedDigits.abs.toPrecision(3)}): the result depends on the physical row order`,
        max_abs_difference: reversedDigits.abs,
        max_relative_difference: reversedDigits.relative,
      };
    return undefined;
  } finally {
    await reversed.close();
  }
}
