/**
 * The PostgreSQL type of a SQLite column, from its declared type and from the values it holds: SQLite is loosely
 * typed (any column may hold any value), PostgreSQL is not, and no value may be lost on the way.
 *
 * - INTEGER-like → `bigint`: SQLite computes in 64 bits, and the official gold relies on it (question 761's
 *   `weight_kg * 100` passes 2^31 on superhero, where `integer` arithmetic fails with "integer out of range").
 * - REAL / FLOAT / DOUBLE → `double precision` (SQLite's REAL is an 8-byte float; `real` would lose digits).
 * - NUMERIC / DECIMAL → `numeric`; TEXT / CHAR / CLOB → `text`; BLOB → `bytea`.
 * - DATE → `date` and DATETIME / TIMESTAMP → `timestamp` when every value is an ISO date (time); the official
 *   gold applies EXTRACT and date arithmetic to them. Other values keep such a column `text`.
 * - A value the type cannot hold widens the column instead: text in a numeric column makes it `text` (numbers
 *   written as SQLite writes them), a fraction in an integer column `double precision`, a blob among other
 *   values `bytea` (the others as their text's bytes), as does text holding a NUL character (PostgreSQL's text
 *   cannot). Each widening is said in a note.
 */

import { counted } from '../../text/numberText';

export type PostgresType = 'bigint' | 'double precision' | 'numeric' | 'text' | 'date' | 'timestamp' | 'bytea';

/** What one column holds, counted by SQLite storage class (one aggregate query per table reads it). */
export interface ColumnProfile {
  integers: number;
  reals: number;
  texts: number;
  blobs: number;
  /** Text values holding a NUL character. */
  nulTexts: number;
  /** Text values that are not an ISO date `YYYY-MM-DD` (a real one: no 2019-02-30). */
  nonDateTexts: number;
  /** Text values that are not an ISO date with or without a time (`YYYY-MM-DD[ T]HH:MM[:SS[.fff]]`). */
  nonTimestampTexts: number;
}

/** How a column is loaded: its PostgreSQL type, the SQLite expression that reads its values, and why it differs. */
export interface ColumnLoad {
  type: PostgresType;
  /** Reads the column (quoted as `column`) in the form the PostgreSQL type takes without loss. */
  read: (column: string) => string;
  /** Set when the type is not the declared type's: what the values forced. */
  note?: string;
}

/** What the declared type asks for, before the values are seen. */
type DeclaredKind = 'integer' | 'real' | 'numeric' | 'text' | 'date' | 'timestamp' | 'blob' | 'untyped';

/** SQLite's own affinity rules (the first that matches wins), refined by the names that say date or time. */
export function declaredKind(declared: string): DeclaredKind {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type.includes('BLOB')) return 'blob';
  if (type.trim() === '') return 'untyped';
  if (/REAL|FLOA|DOUB/.test(type)) return 'real';
  if (/DATETIME|TIMESTAMP/.test(type)) return 'timestamp';
  if (/^DATE\b/.test(type.trim())) return 'date';
  if (/NUMERIC|DECIMAL/.test(type)) return 'numeric';
  // Other names with NUMERIC affinity (BOOLEAN, YEAR, ...): the values decide.
  return 'untyped';
}

const AS_IS = (column: string) => column;
// Exact beyond 2^53, where a JavaScript number is not.
const INTEGER_AS_TEXT = (column: string) => `CASE WHEN typeof(${column}) = 'integer' THEN CAST(${column} AS TEXT) ELSE ${column} END`;
const AS_TEXT = (column: string) => `CAST(${column} AS TEXT)`;
const AS_BLOB = (column: string) => `CAST(${column} AS BLOB)`;

/** The load of a column declared `declared` that holds `profile`. */
export function columnLoad(declared: string, profile: ColumnProfile): ColumnLoad {
  const kind = declaredKind(declared);
  const numbers = profile.integers + profile.reals;
  const values = numbers + profile.texts + profile.blobs;
  const declaredAs = declared.trim() ? `declared ${declared.trim()}` : 'declared without a type';

  if (profile.blobs > 0) {
    if (profile.blobs === values || kind === 'blob') return { type: 'bytea', read: AS_BLOB };
    return {
      type: 'bytea',
      read: AS_BLOB,
      note: `${declaredAs} but holds ${counted(profile.blobs, 'blob')}: loaded as bytea (other values as their text's bytes)`,
    };
  }
  if (profile.nulTexts > 0) {
    const note = `holds ${counted(profile.nulTexts, 'text value')} with a NUL character, which PostgreSQL's text cannot hold: loaded as bytea`;
    return { type: 'bytea', read: AS_BLOB, note };
  }
  if (kind === 'date' || kind === 'timestamp') {
    if (numbers === 0 && profile.nonDateTexts === 0 && kind === 'date') return { type: 'date', read: AS_IS };
    if (numbers === 0 && profile.nonTimestampTexts === 0) {
      const note = kind === 'date' && profile.texts > 0 ? `${declaredAs} but holds times of day: loaded as timestamp` : undefined;
      return { type: 'timestamp', read: AS_IS, note };
    }
    const odd = numbers > 0 ? counted(numbers, 'number') : counted(profile.nonTimestampTexts, 'value');
    return {
      type: 'text',
      read: numbers > 0 ? AS_TEXT : AS_IS,
      note: `${declaredAs} but holds ${odd} that are no ISO date: loaded as text`,
    };
  }
  if (profile.texts > 0) {
    if (numbers === 0 || kind === 'text') return { type: 'text', read: numbers > 0 ? AS_TEXT : AS_IS };
    return { type: 'text', read: AS_TEXT, note: `${declaredAs} but holds ${counted(profile.texts, 'text value')}: loaded as text` };
  }
  switch (kind) {
    case 'text':
      return { type: 'text', read: AS_IS };
    case 'blob':
      return { type: 'bytea', read: AS_BLOB };
    case 'real':
      return { type: 'double precision', read: INTEGER_AS_TEXT };
    case 'numeric':
      return { type: 'numeric', read: INTEGER_AS_TEXT };
    case 'integer':
      if (profile.reals === 0) return { type: 'bigint', read: INTEGER_AS_TEXT };
      return {
        type: 'double precision',
        read: INTEGER_AS_TEXT,
        note: `${declaredAs} but holds ${counted(profile.reals, 'fractional number')}: loaded as double precision`,
      };
    default:
      // Untyped: the values decide; a column with no value at all stays text.
      if (profile.reals > 0) return { type: 'double precision', read: INTEGER_AS_TEXT };
      if (profile.integers > 0) return { type: 'bigint', read: INTEGER_AS_TEXT };
      return { type: 'text', read: AS_IS };
  }
}

const ISO_DATE = "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'";

/**
 * The aggregates that fill a ColumnProfile for `column` (quoted, declared `declared`), as SQL select items in
 * ColumnProfile's field order; dates are only checked in columns declared as dates or times. A date must survive SQLite's own date() unchanged (which rejects 2019-13-01 and rolls 2019-02-30 over);
 * a time must be well formed with nothing after its digits (a zone suffix would be dropped by PostgreSQL's
 * `timestamp`, and SQLite would apply it).
 */
export function profileSelectItems(column: string, declared: string): string[] {
  const isText = `typeof(${column}) = 'text'`;
  const isDate = `(${column} GLOB ${ISO_DATE} AND date(${column}) IS ${column})`;
  const time = `substr(${column}, 12)`;
  const isTime =
    `(substr(${column}, 11, 1) IN (' ', 'T') AND date(substr(${column}, 1, 10)) IS substr(${column}, 1, 10) AND ` +
    `substr(${column}, 1, 10) GLOB ${ISO_DATE} AND (${time} GLOB '[0-2][0-9]:[0-5][0-9]' OR ${time} GLOB '[0-2][0-9]:[0-5][0-9]:[0-5][0-9]' OR ` +
    `(${time} GLOB '[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9]*' AND NOT substr(${column}, 21) GLOB '*[^0-9]*')) AND ` +
    `time(${time}) IS NOT NULL AND substr(${time}, 1, 2) < '24')`;
  return [
    `coalesce(sum(typeof(${column}) = 'integer'), 0)`,
    `coalesce(sum(typeof(${column}) = 'real'), 0)`,
    `coalesce(sum(${isText}), 0)`,
    `coalesce(sum(typeof(${column}) = 'blob'), 0)`,
    `coalesce(sum(${isText} AND instr(${column}, char(0)) > 0), 0)`,
    ...(['date', 'timestamp'].includes(declaredKind(declared))
      ? [`coalesce(sum(${isText} AND NOT ${isDate}), 0)`, `coalesce(sum(${isText} AND NOT (${isDate} OR ${isTime})), 0)`]
      : ['0', '0']),
  ];
}

/** The number of select items profileSelectItems gives for one column. */
export const PROFILE_ITEMS = 7;

/** A ColumnProfile from the values of profileSelectItems, in order. */
export function profileOf(values: readonly unknown[]): ColumnProfile {
  const [integers, reals, texts, blobs, nulTexts, nonDateTexts, nonTimestampTexts] = values.map(Number);
  return { integers, reals, texts, blobs, nulTexts, nonDateTexts, nonTimestampTexts };
}
