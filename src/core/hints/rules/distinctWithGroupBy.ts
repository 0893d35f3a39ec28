import { findClauses } from '../../sql/clauses';
import { tokenRange } from '../edits';
import { HintRule } from '../types';

/** Comma-separated items between token indexes (exclusive end), split at depth 0, as lower-case text. */
function items(text: string, tokens: readonly { text: string; start: number; end: number }[], from: number, to: number): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = from;
  for (let i = from; i <= to; i++) {
    const t = tokens[i];
    if (i === to || (t.text === ',' && depth === 0)) {
      if (i > start)
        out.push(
          text
            .slice(tokens[start].start, tokens[i - 1].end)
            .replace(/\s+/g, '')
            .toLowerCase(),
        );
      start = i + 1;
      continue;
    }
    if (t.text === '(') depth++;
    if (t.text === ')') depth--;
  }
  return out;
}

/** VL008: SELECT DISTINCT over exactly the GROUP BY columns: each group is one row already, so DISTINCT only adds a sort. */
export const distinctWithGroupBy: HintRule = {
  id: 'VL008',
  title: 'DISTINCT made redundant by GROUP BY',
  kind: 'speed',
  check({ tokens, text }) {
    const clauses = findClauses(tokens);
    if (!clauses || clauses.distinct === undefined || clauses.groupBy === undefined || clauses.from === undefined || clauses.compound)
      return [];
    const groupEnd = [clauses.having, clauses.orderBy, clauses.limit].find((i) => i !== undefined && i > clauses.groupBy!) ?? tokens.length;
    const selected = items(text, tokens, clauses.distinct + 1, clauses.from);
    const grouped = items(text, tokens, clauses.groupBy + 2, groupEnd);
    // Every select item a plain column, and every GROUP BY term among them: distinct groups give distinct rows.
    const plainColumns = selected.every((item) => /^[\w."`[\]]+$/.test(item));
    if (!plainColumns || selected.length === 0 || !grouped.every((g) => selected.includes(g))) return [];
    const range = tokenRange(tokens, clauses.distinct, clauses.distinct);
    const statement = text.slice(0, range.start) + text.slice(tokens[clauses.distinct + 1].start);
    return [
      {
        message:
          'every GROUP BY column is selected, so each group is already one distinct row: DISTINCT only adds a second de-duplication pass.',
        range,
        rewrite: { range: { start: range.start, end: tokens[clauses.distinct + 1].start }, text: '', statement },
      },
    ];
  },
};
