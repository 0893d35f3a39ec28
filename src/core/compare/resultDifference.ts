import { Row, SqlValue } from '../db/database';
import { rowKey } from './valueKey';

/** A value as JSON can carry it: blobs as X'..' literals, infinities as strings. */
export function jsonValue(value: SqlValue): unknown {
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}

/** Up to `sampleSize` gold rows the prediction lacks and predicted rows gold lacks, under set semantics. */
export function sampleDifference(predicted: readonly Row[], gold: readonly Row[], sampleSize = 5) {
  const predictedKeys = new Set(predicted.map(rowKey));
  const goldKeys = new Set(gold.map(rowKey));
  const pick = (rows: readonly Row[], others: Set<string>) => {
    const out: unknown[][] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      if (out.length >= sampleSize) break;
      const key = rowKey(row);
      if (others.has(key) || seen.has(key)) continue;
      seen.add(key);
      out.push(row.map(jsonValue));
    }
    return out;
  };
  return { pred_rows: predicted.length, gold_rows: gold.length, missing: pick(gold, predictedKeys), extra: pick(predicted, goldKeys) };
}
