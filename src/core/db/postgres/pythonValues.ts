import { SqlValue, TypedValue } from '../database';

/**
 * PostgreSQL's text output turned into the values psycopg2 (the official scripts' driver) returns, so that EX
 * and Soft-F1 compare them with Python's `==`: int2/int4/int8/oid → int (exact beyond 2^53), numeric →
 * Decimal, float4/float8 → float, bool → bool, date → date, timestamp(tz) → datetime, time(tz) → time,
 * interval → timedelta, bytea → bytes, json → what json.loads gives, arrays → list, everything else → str.
 * Each parser receives the server's text of a non-NULL value (NULL is None before any parser runs).
 */

/** node-postgres's type-parser hook (its `types` option): the parser of a column's type, by OID and format. */
export interface TypeParsers {
  getTypeParser(oid: number, format?: string): (text: string) => SqlValue;
}

const OID = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  oid: 26,
  json: 114,
  float4: 700,
  float8: 701,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  numeric: 1700,
  jsonb: 3802,
} as const;

/** Array types psycopg2 turns into Python lists (its built-in casters'); a list in a row makes set() raise. */
const ARRAY_OIDS = new Set([
  199, 1000, 1001, 1002, 1003, 1005, 1006, 1007, 1009, 1014, 1015, 1016, 1021, 1022, 1028, 1115, 1182, 1183, 1185, 1187, 1231, 1270, 2951,
  3807,
]);

/** An exact number as TypedValue's canonical `<integer>e<exponent>`, trailing zeros moved into the exponent. */
export function canonicalNumber(text: string): string {
  const match = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
  if (!match) {
    if (/^\s*[+-]?nan\s*$/i.test(text)) return 'NaN';
    return /^\s*-/.test(text) ? '-Infinity' : 'Infinity';
  }
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(exponentText) - fraction.length;
  if (digits === '') return '0e0';
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return `${sign === '-' ? '-' : ''}${digits}e${exponent}`;
}

/** An integer's text as a number where it is exact, else as Python's int (an exact TypedValue). */
function parseInteger(text: string): SqlValue {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : new TypedValue('int', text, canonicalNumber(text));
}

const pad = (text: string, length: number) => text.padStart(length, '0');

/** Fraction of a second as six digits (psycopg2 keeps microseconds). */
const micros = (fraction: string | undefined) => (fraction ?? '').slice(0, 6).padEnd(6, '0');

/** A date before year 1 or after 9999: Python's date cannot hold it, and psycopg2 raises when fetching it. */
function outOfRange(type: 'date' | 'datetime', text: string, year: number): TypedValue {
  return new TypedValue(type, text, text, `year ${year} is out of range`);
}

const DATE = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;

function parseDate(text: string): SqlValue {
  if (text === 'infinity') return new TypedValue('date', text, '9999-12-31');
  if (text === '-infinity') return new TypedValue('date', text, '0001-01-01');
  const match = DATE.exec(text);
  if (!match) return text;
  const year = match[4] ? 1 - Number(match[1]) : Number(match[1]);
  if (year < 1 || year > 9999) return outOfRange('date', text, year);
  return new TypedValue('date', text, `${match[1]}-${match[2]}-${match[3]}`);
}

const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/;
const OFFSET = /([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/;

/** Microseconds of an `hh:mm:ss[.ffffff]` time of day; 24:00:00 is midnight, as psycopg2 reads it. */
function timeOfDayMicros(text: string): bigint | undefined {
  const match = TIME.exec(text);
  if (!match) return undefined;
  const [, h, m, s, f] = match;
  return ((BigInt(Number(h) % 24) * 60n + BigInt(m)) * 60n + BigInt(s)) * 1_000_000n + BigInt(micros(f));
}

/** A UTC offset (`+05:30`, `-08`, `+00:53:28`) in microseconds, or undefined when the text has none. */
function offsetMicros(text: string): bigint | undefined {
  const match = OFFSET.exec(text);
  if (!match) return undefined;
  const [, sign, h, m = '0', s = '0'] = match;
  return (sign === '-' ? -1n : 1n) * ((BigInt(h) * 60n + BigInt(m)) * 60n + BigInt(s)) * 1_000_000n;
}

const MICROS_PER_DAY = 86_400_000_000n;

/** Days from 1970-01-01 of a proleptic Gregorian date (Python's calendar), for years 1 to 9999. */
function daysFromEpoch(year: number, month: number, day: number): bigint {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return BigInt(Math.round(date.getTime() / 86_400_000));
}

function parseTimestamp(text: string, withZone: boolean): SqlValue {
  if (text === 'infinity' || text === '-infinity') {
    const naive = text === 'infinity' ? '9999-12-31 23:59:59.999999' : '0001-01-01 00:00:00.000000';
    return new TypedValue('datetime', text, withZone ? `@${utcMicros(naive, 0n)}` : naive);
  }
  const bc = text.endsWith(' BC');
  const body = bc ? text.slice(0, -3) : text;
  const match = /^(\d{4,})-(\d{2})-(\d{2}) (.*)$/.exec(body);
  if (!match) return text;
  const year = bc ? 1 - Number(match[1]) : Number(match[1]);
  if (year < 1 || year > 9999) return outOfRange('datetime', text, year);
  const time = TIME.exec(match[4]);
  if (!time) return text;
  const naive = `${match[1]}-${match[2]}-${match[3]} ${time[1]}:${time[2]}:${time[3]}.${micros(time[4])}`;
  if (!withZone) return new TypedValue('datetime', text, naive);
  return new TypedValue('datetime', text, `@${utcMicros(naive, offsetMicros(match[4].slice(time[0].length)) ?? 0n)}`);
}

/** Microseconds since the epoch, UTC, of a `YYYY-MM-DD hh:mm:ss.ffffff` local time at a UTC offset. */
function utcMicros(naive: string, offset: bigint): bigint {
  const [date, time] = naive.split(' ');
  const [year, month, day] = date.split('-').map(Number);
  return daysFromEpoch(year, month, day) * MICROS_PER_DAY + (timeOfDayMicros(time) ?? 0n) - offset;
}

function parseTime(text: string, withZone: boolean): SqlValue {
  const ofDay = timeOfDayMicros(text);
  if (ofDay === undefined) return text;
  if (!withZone) {
    const seconds = ofDay / 1_000_000n;
    const clock = [seconds / 3600n, (seconds / 60n) % 60n, seconds % 60n].map((part) => pad(String(part), 2)).join(':');
    return new TypedValue('time', text, `${clock}.${pad(String(ofDay % 1_000_000n), 6)}`);
  }
  // Python compares aware times after subtracting their offsets, without wrapping around midnight.
  const offset = offsetMicros(text.slice(TIME.exec(text)![0].length)) ?? 0n;
  return new TypedValue('time', text, `@${ofDay - offset}`);
}

/**
 * An interval as psycopg2 reads it (IntervalStyle postgres): years are 365 days and months 30, then days and
 * the clock part; a timedelta, in microseconds.
 */
function parseInterval(text: string): SqlValue {
  let total = 0n;
  const units: Record<string, bigint> = { year: 365n * MICROS_PER_DAY, mon: 30n * MICROS_PER_DAY, day: MICROS_PER_DAY };
  for (const match of text.matchAll(/([+-]?\d+) (year|mon|day)s?/g)) total += BigInt(match[1]) * units[match[2]];
  const clock = /([+-])?(\d+):(\d{2}):(\d{2})(?:\.(\d+))?/.exec(text);
  if (clock) {
    const [, sign, h, m, s, f] = clock;
    const micro = ((BigInt(h) * 60n + BigInt(m)) * 60n + BigInt(s)) * 1_000_000n + BigInt(micros(f));
    total += sign === '-' ? -micro : micro;
  }
  return new TypedValue('timedelta', text, String(total));
}

/** json / jsonb as json.loads returns it: objects and arrays are a dict and a list, which Python cannot hash. */
function parseJson(text: string): SqlValue {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return unhashable('dict', text);
  if (trimmed.startsWith('[')) return unhashable('list', text);
  if (trimmed === 'true' || trimmed === 'false') return new TypedValue('bool', text, trimmed === 'true' ? '1e0' : '0e0');
  if (trimmed === 'null') return null;
  if (/^-?\d+$/.test(trimmed)) return parseInteger(trimmed);
  if (trimmed.startsWith('"')) return JSON.parse(trimmed) as string;
  return Number(trimmed);
}

const unhashable = (type: 'list' | 'dict', text: string) => new TypedValue(type, text, text, `unhashable type: '${type}'`);

function bytea(text: string): Buffer {
  // The server's default output (bytea_output = hex); the escape format only from servers told otherwise.
  if (text.startsWith('\\x')) return Buffer.from(text.slice(2), 'hex');
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '\\') {
      bytes.push(text.charCodeAt(i));
    } else if (text[i + 1] === '\\') {
      bytes.push(92);
      i++;
    } else {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    }
  }
  return Buffer.from(bytes);
}

const PARSERS: Record<number, (text: string) => SqlValue> = {
  [OID.bool]: (text) => new TypedValue('bool', text === 't' ? 'True' : 'False', text === 't' ? '1e0' : '0e0'),
  [OID.bytea]: bytea,
  [OID.int2]: Number,
  [OID.int4]: Number,
  [OID.oid]: Number,
  [OID.int8]: parseInteger,
  [OID.float4]: Number,
  [OID.float8]: Number,
  [OID.numeric]: (text) => new TypedValue('Decimal', text, canonicalNumber(text)),
  [OID.date]: parseDate,
  [OID.timestamp]: (text) => parseTimestamp(text, false),
  [OID.timestamptz]: (text) => parseTimestamp(text, true),
  [OID.time]: (text) => parseTime(text, false),
  [OID.timetz]: (text) => parseTime(text, true),
  [OID.interval]: parseInterval,
  [OID.json]: parseJson,
  [OID.jsonb]: parseJson,
};

const asText = (text: string) => text;
const asList = (text: string) => unhashable('list', text);

/** The parsers VES Lens's PostgreSQL connections read every result with (text format; psycopg2's types). */
export const PYTHON_TYPE_PARSERS: TypeParsers = {
  getTypeParser: (oid) => PARSERS[oid] ?? (ARRAY_OIDS.has(oid) ? asList : asText),
};
