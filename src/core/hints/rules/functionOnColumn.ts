import { wordIs } from '../../sql/keywords';
import { ColumnRef, columnRefAt, isLiteralToken, resolveColumn } from '../columnReferences';
import { replaceRange, tokenRange } from '../edits';
import { Hint, HintRule, StatementContext } from '../types';

/** The smallest string above every string that starts with `prefix` (increment its last character). */
export function prefixUpperBound(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

const sqlString = (value: string) => `'${value.replace(/'/g, "''")}'`;
const stringValue = (literal: string) => literal.slice(1, -1).replace(/''/g, "'");
const NUMERIC_TYPES = /INT|REAL|FLOA|DOUB|NUM|DEC/i;

function indexNote(context: StatementContext, ref: ColumnRef): string {
  const resolved = resolveColumn(context, ref);
  if (!resolved) return '';
  const indexed = resolved.table.indexes.some((i) => i.columns[0]?.toLowerCase() === resolved.column.name.toLowerCase());
  return indexed
    ? ` (${resolved.table.name} has an index on ${resolved.column.name})`
    : ` (there is no index on ${resolved.table.name}.${resolved.column.name} yet: \`ves-lens indexes\` checks whether one would help)`;
}

/**
 * VL004: a function or cast wrapped around a column in a condition hides the column from every index.
 * - STRFTIME('%Y', d) = '2012' and SUBSTR(d, 1, 4) = '2012' → d >= '2012' AND d < '2013' (text that starts with it);
 * - CAST(n AS REAL) > 5 on a numeric column → n > 5.
 */
export const functionOnColumn: HintRule = {
  id: 'VL004',
  title: 'function or cast on a column in a condition',
  kind: 'speed',
  // Never measured faster on ×10 copies: SQLite makes the same plan of both forms (bench/results/hints.md, issue 34).
  note: true,
  check(context) {
    const { tokens, text } = context;
    const hints: Omit<Hint, 'rule' | 'title' | 'kind'>[] = [];
    for (let i = 0; i + 5 < tokens.length; i++) {
      if (tokens[i + 1]?.text !== '(') continue;
      let ref: ColumnRef | undefined;
      let prefix: string | undefined;
      let close: number;
      if (wordIs(tokens[i], 'STRFTIME') && tokens[i + 2].kind === 'string' && tokens[i + 3]?.text === ',') {
        // STRFTIME('%Y' | '%Y-%m' | '%Y-%m-%d', col) = 'literal of the same shape'
        const format = stringValue(tokens[i + 2].text);
        ref = columnRefAt(tokens, i + 4, text);
        if (!ref || tokens[ref.last + 1]?.text !== ')' || !['%Y', '%Y-%m', '%Y-%m-%d'].includes(format)) continue;
        close = ref.last + 1;
        const literal = tokens[close + 2];
        const shape = { '%Y': /^\d{4}$/, '%Y-%m': /^\d{4}-\d{2}$/, '%Y-%m-%d': /^\d{4}-\d{2}-\d{2}$/ }[format]!;
        if (tokens[close + 1]?.text !== '=' || literal?.kind !== 'string' || !shape.test(stringValue(literal.text))) continue;
        prefix = stringValue(literal.text);
      } else if (wordIs(tokens[i], 'SUBSTR', 'SUBSTRING')) {
        // SUBSTR(col, 1, n) = 'literal of length n'
        ref = columnRefAt(tokens, i + 2, text);
        if (!ref || tokens[ref.last + 1]?.text !== ',' || tokens[ref.last + 2]?.text !== '1' || tokens[ref.last + 3]?.text !== ',')
          continue;
        const length = Number(tokens[ref.last + 4]?.text);
        close = ref.last + 5;
        const literal = tokens[close + 2];
        if (
          tokens[close]?.text !== ')' ||
          tokens[close + 1]?.text !== '=' ||
          literal?.kind !== 'string' ||
          stringValue(literal.text).length !== length ||
          length < 1
        )
          continue;
        prefix = stringValue(literal.text);
      } else if (wordIs(tokens[i], 'CAST')) {
        // CAST(col AS REAL) <op> number, on a column declared numeric
        ref = columnRefAt(tokens, i + 2, text);
        if (
          !ref ||
          !wordIs(tokens[ref.last + 1], 'AS') ||
          !wordIs(tokens[ref.last + 2], 'REAL', 'FLOAT', 'DOUBLE', 'NUMERIC') ||
          tokens[ref.last + 3]?.text !== ')'
        )
          continue;
        close = ref.last + 3;
        const op = tokens[close + 1]?.text;
        const value = tokens[close + 2];
        const resolved = resolveColumn(context, ref);
        if (
          !['=', '<', '>', '<=', '>=', '<>', '!='].includes(op ?? '') ||
          value?.kind !== 'number' ||
          !resolved ||
          !NUMERIC_TYPES.test(resolved.column.type)
        )
          continue;
        const range = tokenRange(tokens, i, close);
        hints.push({
          message: `${resolved.column.name} is declared ${resolved.column.type}, so the CAST changes nothing in this comparison but hides the column from any index${indexNote(context, ref)}.`,
          range: tokenRange(tokens, i, close + 2),
          caveat: 'Values stored as text in a numeric column compare differently without the CAST.',
          rewrite: { range, text: ref.text, statement: replaceRange(text, range, ref.text) },
        });
        continue;
      } else continue;
      if (!ref || prefix === undefined || !isLiteralToken(tokens[close + 2])) continue;
      const resolved = resolveColumn(context, ref);
      if (resolved && NUMERIC_TYPES.test(resolved.column.type)) continue; // numbers compare below all text: no range on text
      const range = tokenRange(tokens, i, close + 2);
      const replacement = `(${ref.text} >= ${sqlString(prefix)} AND ${ref.text} < ${sqlString(prefixUpperBound(prefix))})`;
      hints.push({
        message: `${text.slice(tokens[i].start, tokens[close].end)} hides ${ref.text} from any index; a range on the column itself selects the same text values${indexNote(context, ref)}.`,
        range,
        caveat:
          'Equivalent for values stored as text that start with the date or prefix; values in other date formats (Julian days, Unix times) are not matched by the range.',
        rewrite: { range, text: replacement, statement: replaceRange(text, range, replacement) },
      });
    }
    return hints;
  },
};
