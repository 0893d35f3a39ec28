import { wordIs } from '../../sql/keywords';
import { columnRefAt, isLiteralToken } from '../columnReferences';
import { replaceRange, tokenRange } from '../edits';
import { HintRule } from '../types';

const BOUNDARY_BEFORE = ['WHERE', 'ON', 'HAVING', 'WHEN'];
const BOUNDARY_AFTER = ['GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'THEN'];

/**
 * VL007: `x = 1 OR x = 2 OR x = 3` → `x IN (1, 2, 3)`: one IN can be served by an index lookup per value.
 * Fires only where the chain is a whole condition (in parentheses, or all of WHERE / ON / HAVING), since
 * `a AND x = 1 OR x = 2` groups as `(a AND x = 1) OR x = 2`.
 */
export const orChainToIn: HintRule = {
  id: 'VL007',
  title: 'OR chain on one column',
  kind: 'speed',
  // Never measured faster on ×10 copies: SQLite makes the same plan of both forms (bench/results/hints.md, issue 34).
  note: true,
  check({ tokens, text }) {
    const hints = [];
    for (let i = 0; i < tokens.length; i++) {
      const before = tokens[i - 1];
      if (!(before?.text === '(' || BOUNDARY_BEFORE.some((w) => wordIs(before, w)))) continue;
      const values: string[] = [];
      let column: string | undefined;
      let j = i;
      let columnText = '';
      while (true) {
        const ref = columnRefAt(tokens, j, text);
        if (!ref || tokens[ref.last + 1]?.text !== '=' || !isLiteralToken(tokens[ref.last + 2])) break;
        const key = ref.text.toLowerCase().replace(/\s+/g, '');
        if (column !== undefined && key !== column) break;
        column = key;
        columnText = ref.text;
        values.push(tokens[ref.last + 2].text);
        j = ref.last + 3;
        if (!wordIs(tokens[j], 'OR')) break;
        j++;
      }
      const last = j - 1;
      const after = tokens[j];
      const closes =
        before.text === '('
          ? after?.text === ')'
          : after === undefined || after.text === ')' || BOUNDARY_AFTER.some((w) => wordIs(after, w));
      if (values.length < 2 || !closes || wordIs(tokens[last], 'OR')) continue;
      const range = tokenRange(tokens, i, last);
      const replacement = `${columnText} IN (${values.join(', ')})`;
      hints.push({
        message: `${values.length} equality tests on ${columnText} joined by OR read as one IN list, which SQLite can serve with one index lookup per value.`,
        range,
        rewrite: { range, text: replacement, statement: replaceRange(text, range, replacement) },
      });
      i = last;
    }
    return hints;
  },
};
