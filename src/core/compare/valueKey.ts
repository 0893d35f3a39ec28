import { Row, SqlValue } from '../db/database';

/**
 * A string that is equal for two values exactly when Python's `==` holds for what sqlite3 would return:
 * 1 == 1.0 (JavaScript has one number type already), -0.0 == 0.0, None == None, text case-sensitive,
 * bytes equal only bytes. SQLite never returns NaN (it stores NULL), so exact float equality is enough.
 */
export function valueKey(value: SqlValue): string {
  if (value === null) return 'z';
  if (typeof value === 'number') return Object.is(value, -0) ? 'n0' : `n${value}`;
  if (typeof value === 'string') return `s${value}`;
  return `b${value.toString('hex')}`;
}

/** A key for a whole row (a Python tuple): same values in the same column order. */
export function rowKey(row: Row): string {
  return JSON.stringify(row.map(valueKey));
}
