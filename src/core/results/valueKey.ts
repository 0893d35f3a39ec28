import { createHash } from 'crypto';
import { Row, SqlValue, TypedValue } from '../db/database';

/** Keys longer than this are replaced by their SHA-256, so a result of huge values keeps small keys in memory. */
const LONGEST_PLAIN_KEY = 1024;

/** Keys that equal no other key: Python's NaN equals nothing (not even another NaN), and what it cannot hash. */
let uniqueKeys = 0;
const uniqueKey = () => `!${++uniqueKeys}`;

/**
 * A string that is equal for two values exactly when Python's `==` holds for what the official scripts' driver
 * returns (sqlite3, psycopg2), and so their hashes: 1 == 1.0 == True == Decimal('1.00') (JavaScript has one
 * number type already; the exact types meet it where their value is a double exactly), Decimal('0.1') != 0.1
 * (Python compares exactly), -0.0 == 0.0, None == None, text case-sensitive, bytes equal only bytes, a date
 * never equals its text nor a datetime, NaN equals nothing. SQLite never returns NaN (it stores NULL).
 */
export function valueKey(value: SqlValue): string {
  if (value === null) return 'z';
  if (typeof value === 'number') return floatKey(value);
  // Long text and blobs are keyed by their SHA-256 (distinct prefixes keep text and bytes apart): a key is built
  // for every value of every row, and a hex copy of an 8 MB blob would cost 16 MB.
  if (typeof value === 'string') return value.length > LONGEST_PLAIN_KEY ? `S${sha256(value)}` : `s${value}`;
  if (value instanceof TypedValue) return typedKey(value);
  return value.length > LONGEST_PLAIN_KEY / 2 ? `B${sha256(value)}` : `b${value.toString('hex')}`;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('base64');

/** A double's key: its shortest exact decimal form (one per double), -0 as 0; NaN equals nothing. */
function floatKey(value: number): string {
  if (Number.isNaN(value)) return uniqueKey();
  return Object.is(value, -0) ? 'n0' : `n${value}`;
}

function typedKey(value: TypedValue): string {
  if (value.pythonError !== undefined) return uniqueKey();
  switch (value.pythonType) {
    case 'int':
    case 'Decimal':
    case 'bool':
      return exactNumberKey(value.canonical);
    case 'date':
      return `D${value.canonical}`;
    case 'datetime':
      return `T${value.canonical}`;
    case 'time':
      return `t${value.canonical}`;
    case 'timedelta':
      return `I${value.canonical}`;
    default:
      return uniqueKey();
  }
}

/**
 * An exact number's key (`<integer>e<exponent>`): the double's key when the value is exactly a double (so it
 * meets floats and JavaScript numbers), else its canonical form, which no double's key can take.
 */
function exactNumberKey(canonical: string): string {
  if (canonical === 'NaN') return uniqueKey();
  if (canonical === 'Infinity' || canonical === '-Infinity') return `n${canonical}`;
  const double = exactDouble(canonical);
  return double === undefined ? `d${canonical}` : floatKey(double);
}

const bitLength = (n: bigint) => (n === 0n ? 0 : n.toString(2).length);

/** The double an exact `<integer>e<exponent>` value is, or undefined when no double holds it exactly. */
export function exactDouble(canonical: string): number | undefined {
  const [digits, exponentText] = canonical.split('e');
  const exponent = Number(exponentText);
  let coefficient = BigInt(digits);
  if (coefficient === 0n) return 0;
  if (coefficient < 0n) coefficient = -coefficient;
  // value = coefficient × 10^exponent = odd × 2^twos: a double when odd has at most 53 bits and the exponent fits.
  let twos = exponent;
  if (exponent < 0) {
    const fives = 5n ** BigInt(-exponent);
    if (coefficient % fives !== 0n) return undefined; // a factor 1/5 is no binary fraction
    coefficient /= fives;
  } else {
    coefficient *= 5n ** BigInt(exponent);
  }
  while ((coefficient & 1n) === 0n) {
    coefficient >>= 1n;
    twos++;
  }
  const bits = bitLength(coefficient);
  if (bits > 53 || twos < -1074 || bits + twos > 1024) return undefined;
  return Number(`${digits}e${exponent}`);
}

/**
 * A key for a whole row (a Python tuple): same values in the same column order. Long keys are hashed
 * (SHA-256: a collision is not a practical concern), so the distinct-row sets stay small whatever a row holds.
 */
export function rowKey(row: Row): string {
  const key = JSON.stringify(row.map(valueKey));
  return key.length > LONGEST_PLAIN_KEY ? `#${sha256(key)}` : key;
}

/** What Python raises on a row's values (a list in a set, a date before year 1), or undefined. */
export function pythonErrorOf(row: Row): string | undefined {
  for (const value of row) if (value instanceof TypedValue && value.pythonError !== undefined) return value.pythonError;
  return undefined;
}
