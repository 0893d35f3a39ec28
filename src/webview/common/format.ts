// Numbers as the panels write them.
import { compactNumber } from '../../core/text/numberText';

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

/** "1 row", "2 rows". */
export function counted(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}
