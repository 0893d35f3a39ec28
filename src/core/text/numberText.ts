/** 1234567 → "1.2M": estimates are orders of magnitude, not counts. */
export function compactNumber(n: number): string {
  return Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}
