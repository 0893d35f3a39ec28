/** 1234567 → "1.2M": estimates are orders of magnitude, not counts. */
export function compactNumber(n: number): string {
  return Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

/** "1 row", "2 rows", "1,234 questions": a count with its noun in the right number. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : plural}`;
}

/** A time ratio with the digits it needs: 0.93, 12.4, 250; "–" where there is none. */
export function ratioText(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** Milliseconds with the digits a time needs: 250, 12.40, 0.095. */
export function millisecondsText(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3);
}
