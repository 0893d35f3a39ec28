import { SqlValue, TypedValue } from '../database';
import { canonicalNumber } from '../postgres/pythonValues';

/**
 * The server's text-protocol bytes of a value turned into what pymysql (mini_dev's MySQL driver) returns, so
 * EX and Soft-F1 compare them with Python's `==`: integers and YEAR → int (exact beyond 2^53), DECIMAL →
 * Decimal, FLOAT/DOUBLE → float, DATE → date, DATETIME/TIMESTAMP → datetime, TIME → timedelta (each left as the
 * text when Python's types cannot hold it, as pymysql does for `0000-00-00`), a string or blob of the binary
 * character set (63) → bytes, every other string (JSON included) → str.
 */

/** The column metadata a value is read by (mysql2's column definition). */
export interface MysqlField {
  columnType: number;
  characterSet: number;
}

const TYPE = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  NEWDECIMAL: 246,
} as const;

const BINARY_CHARSET = 63;

function integer(text: string): SqlValue {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : new TypedValue('int', text, canonicalNumber(text));
}

/** Python's datetime.date of `YYYY-MM-DD`, or the text where the date is not one (pymysql returns the str then). */
function date(text: string): SqlValue {
  const match = /^(\d{1,4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (!match || !realDate(+match[1], +match[2], +match[3])) return text;
  return new TypedValue('date', text, `${match[1].padStart(4, '0')}-${match[2].padStart(2, '0')}-${match[3].padStart(2, '0')}`);
}

function realDate(year: number, month: number, day: number): boolean {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate(); // the month's length in a leap year
  return day <= (month === 2 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 28 : days);
}

function datetime(text: string): SqlValue {
  const match = /^(\d{1,4}-\d{1,2}-\d{1,2})[T ](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) return date(text);
  const day = date(match[1]);
  if (!(day instanceof TypedValue) || +match[2] > 23 || +match[3] > 59 || +match[4] > 59) return text;
  const clock = [match[2], match[3], match[4]].map((part) => part.padStart(2, '0')).join(':');
  return new TypedValue('datetime', text, `${day.canonical} ${clock}.${(match[5] ?? '').padEnd(6, '0')}`);
}

/** A TIME as pymysql's timedelta (`-838:59:59.000000` to `838:59:59.000000`), in microseconds. */
function timedelta(text: string): SqlValue {
  const match = /^(-)?(\d+):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) return text;
  const micros =
    ((BigInt(match[2]) * 60n + BigInt(match[3])) * 60n + BigInt(match[4])) * 1_000_000n + BigInt((match[5] ?? '').padEnd(6, '0'));
  return new TypedValue('timedelta', text, String(match[1] ? -micros : micros));
}

/** One value as pymysql returns it; NULL (a null buffer) is None. */
export function pythonValue(field: MysqlField, raw: Buffer | null): SqlValue {
  if (raw === null) return null;
  switch (field.columnType) {
    case TYPE.TINY:
    case TYPE.SHORT:
    case TYPE.LONG:
    case TYPE.INT24:
    case TYPE.LONGLONG:
    case TYPE.YEAR:
      return integer(raw.toString('latin1'));
    case TYPE.FLOAT:
    case TYPE.DOUBLE:
      return Number(raw.toString('latin1'));
    case TYPE.DECIMAL:
    case TYPE.NEWDECIMAL: {
      const text = raw.toString('latin1');
      return new TypedValue('Decimal', text, canonicalNumber(text));
    }
    case TYPE.DATE:
    case TYPE.NEWDATE:
      return date(raw.toString('latin1'));
    case TYPE.DATETIME:
    case TYPE.TIMESTAMP:
      return datetime(raw.toString('latin1'));
    case TYPE.TIME:
      return timedelta(raw.toString('latin1'));
    default:
      return field.characterSet === BINARY_CHARSET && field.columnType !== 245 ? Buffer.from(raw) : raw.toString('utf8');
  }
}
