/**
 * Values as CPython's sqlite3 hands them to SQLMorph, and the three Python behaviours its techniques rely on:
 * `==` and `hash` (1 == 1.0), `<` on tuples (which raises for None against a number), and `str()` ("1" vs "1.0").
 *
 * An INTEGER is a JavaScript number (a bigint beyond ±2^53, where a double would round it); a REAL is a
 * PyFloat, so that `str()` can print `1.0` where SQLite stored a REAL; TEXT is a string, a BLOB a Buffer,
 * NULL is null.
 */
export class PyFloat {
  constructor(readonly value: number) {}
}

export type PyValue = number | bigint | PyFloat | string | Buffer | null;
export type PyRow = readonly PyValue[];

/** The numeric value of an int or float, or undefined for anything else. */
function numeric(value: PyValue): number | bigint | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  if (value instanceof PyFloat) return value.value;
  return undefined;
}

/**
 * A string equal for two values exactly when Python's `==` holds (and so their hashes): ints and floats of
 * the same value share one key (1, 1.0 and True would), -0.0 equals 0, text is case-sensitive, bytes equal
 * only bytes. SQLite never returns NaN.
 */
export function pyKey(value: PyValue): string {
  if (value === null) return 'z';
  if (typeof value === 'string') return `s${value}`;
  if (Buffer.isBuffer(value)) return `b${value.toString('hex')}`;
  const n = numeric(value)!;
  // Integral doubles below 1e21 print every digit in JavaScript, as a bigint of the same value does; larger
  // doubles can equal no SQLite integer (at most 2^63), so their exponent form is a key of their own.
  if (typeof n === 'number') return `n${Object.is(n, -0) ? 0 : n}`;
  return `n${n.toString()}`;
}

/** Key of a whole tuple: same values (Python `==`) in the same order. */
export function pyRowKey(row: PyRow): string {
  let key = '';
  for (const value of row) {
    const part = pyKey(value);
    key += `${part.length}:${part}`;
  }
  return key;
}

/** Python's `a == b`. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && compareNumbers(x, y) === 0;
  if (typeof a === 'string' || typeof b === 'string') return false;
  return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
}

/** Exact comparison of ints and floats, as Python compares them (no rounding of big ints to doubles). */
function compareNumbers(x: number | bigint, y: number | bigint): number {
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  const [big, float, sign] = typeof x === 'bigint' ? [x, y as number, 1] : [y as bigint, x, -1];
  if (float === Infinity) return -sign;
  if (float === -Infinity) return sign;
  // Compare the bigint with the float's integer part, then the fraction decides a tie.
  const whole = BigInt(Math.trunc(float));
  if (big !== whole) return (big < whole ? -1 : 1) * sign;
  const fraction = float - Math.trunc(float);
  return fraction === 0 ? 0 : (fraction > 0 ? -1 : 1) * sign;
}

/** Python's rank of a type where `<` is refused between types: None, numbers, str, bytes (SQLite's own order). */
function typeRank(value: PyValue): number {
  if (value === null) return 0;
  if (typeof value === 'string') return 2;
  if (Buffer.isBuffer(value)) return 3;
  return 1;
}

/** Code-point order of two strings (Python's), which differs from UTF-16 order above U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF: they sort after 0xE000-0xFFFF.
    const fix = (u: number) => (u >= 0xe000 ? u - 0x800 : u >= 0xd800 ? u + 0x2000 : u);
    return fix(x) - fix(y);
  }
  return a.length - b.length;
}

/**
 * A total order that agrees with Python's `<` wherever Python can compare: numbers by value, str by code
 * point, bytes by byte; between types Python refuses, NULL < numbers < text < bytes (SQLite's ORDER BY).
 */
export function compareValues(a: PyValue, b: PyValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 1) return compareNumbers(numeric(a)!, numeric(b)!);
  if (ra === 2) return compareCodePoints(a as string, b as string);
  return Buffer.compare(a as Buffer, b as Buffer);
}

/**
 * Python's tuple comparison: the first position where the values differ (`!=`) decides. `comparable` is
 * false when Python's `<` would raise TypeError there (None against a number, str against int...).
 */
export function compareRows(a: PyRow, b: PyRow): { order: number; comparable: boolean } {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (pyEquals(a[i], b[i])) continue;
    return { order: compareValues(a[i], b[i]), comparable: typeRank(a[i]) === typeRank(b[i]) };
  }
  return { order: a.length - b.length, comparable: true };
}

/**
 * `list.sort()` of tuples, stable as Python's. A comparison sort must compare every two neighbours of its
 * result (else swapping them would go unnoticed), and a pair Python cannot order always has such a
 * neighbour pair between them: so Python's sort raises exactly when two neighbours of the sorted list are
 * not comparable. `raises` says so; the list is still sorted by the extended order (the value SQLMorph means).
 */
export function sortRows<T extends PyRow>(rows: T[]): { sorted: T[]; raises: boolean } {
  const sorted = [...rows].sort((a, b) => compareRows(a, b).order);
  let raises = false;
  for (let i = 1; i < sorted.length && !raises; i++) raises = !compareRows(sorted[i - 1], sorted[i]).comparable;
  return { sorted, raises };
}

/** Python's `repr(float)` (which `str()` prints): shortest round-trip digits, `.0` on whole numbers, `1e+16`, `1e-05`. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const decpt = Number(exponent) + 1; // the value is 0.<digits> × 10^decpt
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${body}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/** Python's `repr(bytes)`: b'...' with \\x escapes, double quotes when the bytes hold ' but no ". */
export function pyBytesRepr(bytes: Buffer): string {
  const quote = bytes.includes(0x27) && !bytes.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const c of bytes) {
    if (c === quote.charCodeAt(0) || c === 0x5c) out += `\\${String.fromCharCode(c)}`;
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  return out + quote;
}

/** Python's `str()` of a value as sqlite3 returns it. */
export function pyStr(value: PyValue): string {
  if (value === null) return 'None';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  return pyBytesRepr(value);
}

/** A value as JSON can carry it (for reports): floats and ints as numbers (big ints as strings), bytes as hex. */
export function pyJson(value: PyValue): unknown {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value)) return `x'${value.toString('hex')}'`;
  return value;
}
