import { closingParen, findClauses } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { columnRefAt, mayBeNull, neverNull, resolveColumn } from '../columnReferences';
import { replaceRange, tokenRange } from '../edits';
import { HintRule } from '../types';

/**
 * VL009: `x NOT IN (SELECT col ...)` where col can be NULL: one NULL in the subquery makes NOT IN unknown for
 * every row, and the query silently returns nothing. A correctness hazard, not a speed one.
 */
export const notInNullable: HintRule = {
  id: 'VL009',
  title: 'NOT IN over a nullable column',
  kind: 'correctness',
  check(context) {
    const { tokens, text } = context;
    const hints = [];
    for (let i = 0; i + 3 < tokens.length; i++) {
      if (!wordIs(tokens[i], 'NOT') || !wordIs(tokens[i + 1], 'IN') || tokens[i + 2].text !== '(' || !wordIs(tokens[i + 3], 'SELECT'))
        continue;
      const close = closingParen(tokens, i + 2);
      const inner = close > 0 ? findClauses(tokens, i + 3, close) : undefined;
      if (!inner || inner.from === undefined || inner.compound) continue;
      // The one selected column, after an optional DISTINCT / ALL (`NOT IN (SELECT DISTINCT col ...)`).
      const first = wordIs(tokens[inner.select + 1], 'DISTINCT', 'ALL') ? inner.select + 2 : inner.select + 1;
      const ref = columnRefAt(tokens, first, text);
      if (!ref || ref.last + 1 !== inner.from) continue;
      // Resolved in the subquery's scope (an unqualified column is the one of its tables that has it).
      const resolved = resolveColumn(context, ref);
      if (!resolved || !mayBeNull(tokens.slice(i + 3, close), ref, resolved)) continue;
      // Insert `ref IS NOT NULL` into the subquery's WHERE (or add one) so NULLs no longer poison NOT IN.
      const end = [inner.groupBy, inner.having, inner.orderBy, inner.limit].find((k) => k !== undefined) ?? close;
      const insertAt = tokens[end - 1].end;
      const filter = inner.where !== undefined ? ` AND ${ref.text} IS NOT NULL` : ` WHERE ${ref.text} IS NOT NULL`;
      const statement = replaceRange(text, { start: insertAt, end: insertAt }, filter);
      hints.push({
        message: `${resolved.table.name}.${resolved.column.name} can be NULL${neverNull(resolved.table, resolved.column) ? ' here (an outer join fills it with NULLs)' : ''}: if the subquery returns one NULL, NOT IN is never true and the query returns no rows. Filter the NULLs out (or use NOT EXISTS) if that is not what is meant.`,
        range: tokenRange(tokens, i, close),
        caveat: 'The rewrite changes the result exactly when the subquery returns a NULL: that is the point.',
        rewrite: { range: { start: insertAt, end: insertAt }, text: filter, statement },
      });
    }
    return hints;
  },
};
