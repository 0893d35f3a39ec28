import { SqlValue } from '../db/database';

/** A value as JSON can carry it: blobs as X'..' literals, infinities as strings. */
export function jsonValue(value: SqlValue): unknown {
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}
