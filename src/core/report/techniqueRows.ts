import pc from 'picocolors';
import { TechniqueGroupScore } from '../eval/techniqueSummary';
import { isError, TECHNIQUES, TechniqueName } from '../results/sqlmorph/types';
import type { EvalSummary } from '../eval/evalSummary';
import type { QuestionResult } from '../eval/types';

const cell = (value: number | null | undefined) => (value === null || value === undefined ? '-' : value.toFixed(2));

/**
 * The score table's extra rows for SQLMorph's techniques: `<technique> EXP`, `EXR`, `F1` (EX for
 * execution_accuracy), each × 100 per group, and `<technique> scored` where a technique left questions out.
 */
export function techniqueRows(summary: EvalSummary): string[][] {
  const rows: string[][] = [];
  for (const name of TECHNIQUES) {
    const per = summary.groups.map((g) => g.techniques?.[name]);
    // A technique that scored nothing (no embedding provider) has no rows: techniqueNotes says why.
    if (per.every((t) => !t?.count)) continue;
    const keys: (keyof TechniqueGroupScore)[] = name === 'execution_accuracy' ? ['EX'] : ['EXP', 'EXR', 'F1'];
    for (const key of keys) rows.push([`${name} ${key}`, ...per.map((t) => cell(t?.[key] as number | null | undefined))]);
    if (summary.groups.some((g) => (g.techniques?.[name]?.count ?? 0) !== g.count))
      rows.push([`${name} scored`, ...summary.groups.map((g) => String(g.techniques?.[name]?.count ?? 0))]);
  }
  return rows;
}

/**
 * Under the tables: why techniques left questions out (grouped by technique and reason), and how many
 * questions scored a value where SQLMorph's own code raises or computes otherwise (each said in --json notes).
 */
export function techniqueNotes(results: readonly QuestionResult[], limit = 4): string {
  const scored = results.filter((r) => r.techniques);
  if (scored.length === 0) return '';
  const lines: string[] = [];
  for (const name of TECHNIQUES as readonly TechniqueName[]) {
    const reasons = new Map<string, number[]>();
    for (const r of scored) {
      const score = r.techniques?.[name];
      if (score && isError(score)) reasons.set(score.error, [...(reasons.get(score.error) ?? []), Number(r.question_id)]);
    }
    for (const [reason, ids] of [...reasons].slice(0, limit))
      lines.push(`  ${name}: ${ids.length} not scored: ${reason}${ids.length <= 5 ? ` (questions ${ids.join(', ')})` : ''}`);
  }
  const differing = scored.filter((r) => r.notes.some((n) => /^[a-z_]+: SQLMorph's/.test(n)));
  if (differing.length)
    lines.push(
      `  ${differing.length} question${differing.length === 1 ? '' : 's'} where SQLMorph's own code raises or reads its result otherwise; VES Lens scores the value the technique means (notes in --json): ${differing
        .slice(0, 10)
        .map((r) => r.question_id)
        .join(', ')}${differing.length > 10 ? ', ...' : ''}`,
    );
  return lines.length ? [pc.bold(`SQLMorph techniques (${scored.length} questions)`), ...lines].join('\n') : '';
}
