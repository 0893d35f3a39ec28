// Numbers as the panels write them.
import { compactNumber } from '../../core/text/numberText';
export { counted } from '../../core/text/numberText';

/** A fixed number of decimals; "–" where there is no value. */
export function fixed(n: number | null | undefined, digits = 2): string {
  return n === null || n === undefined ? '–' : Number(n).toFixed(digits);
}

/** 1234567 → "1.2M"; "–" where there is no finite value. */
export function compact(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return compactNumber(n);
}

/** Milliseconds with the digits a time needs: 250, 12.40, 0.095; "–" where there is no value. */
export function milliseconds(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  return n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3);
}

/** An estimate with its noun: "1 row", "~1.2K rows" style counts written compactly. */
export function compactCounted(n: number, noun: string): string {
  return `${compact(n)} ${n === 1 ? noun : `${noun}s`}`;
}
