import { SqlValue, TypedValue } from '../db/database';
import { exactDouble } from './valueKey';

/** A value as JSON can carry it: blobs as X'..' literals, infinities as strings, exact numbers as numbers where a double holds them. */
export function jsonValue(value: SqlValue): unknown {
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (value instanceof TypedValue) {
    if (value.pythonType === 'bool') return value.canonical === '1e0';
    if ((value.pythonType === 'int' || value.pythonType === 'Decimal') && /e/.test(value.canonical))
      return exactDouble(value.canonical) ?? value.text;
    return value.text;
  }
  return value;
}
