import { createHash } from 'crypto';
import { Row, SqlValue } from '../db/database';

/** Keys longer than this are replaced by their SHA-256, so a result of huge values keeps small keys in memory. */
const LONGEST_PLAIN_KEY = 1024;

/**
 * A string that is equal for two values exactly when Python's `==` holds for what sqlite3 would return:
 * 1 == 1.0 (JavaScript has one number type already), -0.0 == 0.0, None == None, text case-sensitive,
 * bytes equal only bytes. SQLite never returns NaN (it stores NULL), so exact float equality is enough.
 */
export function valueKey(value: SqlValue): string {
  if (value === null) return 'z';
  if (typeof value === 'number') return Object.is(value, -0) ? 'n0' : `n${value}`;
  // Long text and blobs are keyed by their SHA-256 (distinct prefixes keep text and bytes apart): a key is built
  // for every value of every row, and a hex copy of an 8 MB blob would cost 16 MB.
  if (typeof value === 'string') return value.length > LONGEST_PLAIN_KEY ? `S${sha256(value)}` : `s${value}`;
  return value.length > LONGEST_PLAIN_KEY / 2 ? `B${sha256(value)}` : `b${value.toString('hex')}`;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('base64');


/**
 * A key for a whole row (a Python tuple): same values in the same column order. Long keys are hashed
 * (SHA-256: a collision is not a practical concern), so the distinct-row sets stay small whatever a row holds.
 */
export function rowKey(row: Row): string {
  const key = JSON.stringify(row.map(valueKey));
  return key.length > LONGEST_PLAIN_KEY ? `#${sha256(key)}` : key;
}
