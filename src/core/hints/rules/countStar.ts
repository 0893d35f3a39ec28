import { columnRefAt, neverNull, replaceRange, resolveColumn, tokenRange, wordIs } from '../tokens';
import { HintRule } from '../types';

/** VL002: COUNT(col) on a column that is never NULL counts every row: COUNT(*) says so and needs no column reads. */
export const countStar: HintRule = {
  id: 'VL002',
  title: 'COUNT(column) on a NOT NULL column',
  kind: 'speed',
  check(context) {
    const { tokens, text } = context;
    const hints = [];
    for (let i = 0; i + 3 < tokens.length; i++) {
      if (!wordIs(tokens[i], 'COUNT') || tokens[i + 1].text !== '(' || wordIs(tokens[i + 2], 'DISTINCT')) continue;
      const ref = columnRefAt(tokens, i + 2, text);
      if (!ref || tokens[ref.last + 1]?.text !== ')') continue;
      const resolved = resolveColumn(context, ref);
      if (!resolved || !neverNull(resolved.table, resolved.column)) continue;
      const range = tokenRange(tokens, i, ref.last + 1);
      const replacement = 'COUNT(*)';
      hints.push({
        message: `${resolved.table.name}.${resolved.column.name} is never NULL, so ${text.slice(range.start, range.end)} counts every row, as COUNT(*) does; COUNT(*) lets SQLite skip reading the column. Which is faster depends on the table: --verify measures it.`,
        range,
        rewrite: { range, text: replacement, statement: replaceRange(text, range, replacement) },
      });
    }
    return hints;
  },
};
