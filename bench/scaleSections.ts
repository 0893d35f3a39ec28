// A results file holding one section per scale (×1, ×10, ...), each rewritten by its own run of a bench: the
// ×1 and ×10 runs can be made apart (bench/hints.ts, bench/costVsTime.ts).
import * as fs from 'fs';

/** A whole-number option of at least 1 (`--scale 10`), or the fallback. */
export function countOption(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: a whole number of at least 1`);
  return value;
}

/** The section's first lines: its markers make it replaceable. */
export const sectionStart = (scale: number) => `<!-- scale ${scale} -->`;
export const sectionEnd = (scale: number) => `<!-- end scale ${scale} -->`;

/** Writes `file` as `header` and its sections in scale order, this scale's replaced (or added). */
export function writeScaleSection(file: string, header: string, scale: number, section: string): void {
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const sections = new Map<number, string>();
  for (const m of existing.matchAll(/<!-- scale (\d+) -->[\s\S]*?<!-- end scale \1 -->/g)) sections.set(Number(m[1]), m[0]);
  sections.set(scale, section);
  const body = [...sections.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text);
  fs.writeFileSync(file, `${header}\n${body.join('\n\n')}\n`);
}
