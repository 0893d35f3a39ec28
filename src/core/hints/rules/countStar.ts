import { ColumnInfo, TableInfo } from '../../db/schema';
import { wordIs } from '../../sql/keywords';
import { Token } from '../../sql/lexer';
import { cteNames, itemName, itemTable, outerJoinNullable, scopeItems, selectScope } from '../../sql/scope';
import { inputWording } from '../../text/inputWording';
import { columnRefAt, mayBeNull, neverNull, resolveColumn } from '../columnReferences';
import { replaceRange, tokenRange } from '../edits';
import { Hint, HintRule, Range, Rewrite, StatementContext } from '../types';

/** An identifier as SQL text: bare when it is a plain word, double-quoted otherwise. */
function sqlName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** The column that identifies a table's rows and is never NULL: the rowid alias, or a one-column NOT NULL primary key. */
function keyColumn(table: TableInfo): ColumnInfo | undefined {
  const rowid = table.rowidColumn && table.columns.find((c) => c.name.toLowerCase() === table.rowidColumn!.toLowerCase());
  if (rowid) return rowid;
  const pk = table.columns.filter((c) => c.primaryKey);
  return pk.length === 1 && neverNull(table, pk[0]) ? pk[0] : undefined;
}

/**
 * The primary key that `COUNT(*)` at token `i` could count instead: of the first table of its own FROM clause
 * that no outer join can fill with NULLs (so COUNT(key) counts every row COUNT(*) counts).
 */
function countableKey(context: StatementContext, i: number): { qualifier: string; table: TableInfo; column: ColumnInfo } | undefined {
  const { tokens, schema } = context;
  if (!schema) return undefined;
  const nullable = outerJoinNullable(tokens);
  const ctes = cteNames(tokens);
  for (const item of scopeItems(tokens, selectScope(tokens, i))) {
    const table = itemTable(schema, item, ctes);
    const name = itemName(item);
    if (!table || !name || item.nullable || nullable.names.has(name.toLowerCase())) continue;
    const column = keyColumn(table);
    if (column) return { qualifier: name, table, column };
  }
  return undefined;
}

function form(text: string, range: Range, replacement: string): Rewrite {
  return { range, text: replacement, statement: replaceRange(text, range, replacement) };
}

const measureAdvice = () =>
  `Which form is faster depends on the table and the plan, so nothing is claimed here: ${inputWording().verification} runs each ` +
  'form on the attached database and offers one only where it measures faster (the BIRD paper advises COUNT(<primary key>) over ' +
  'COUNT(*); SQLite can often count * from its smallest index).';

/**
 * VL002: `COUNT(col)` on a column that is never NULL in the statement counts every row, as `COUNT(*)` and
 * `COUNT(<primary key>)` do; and `COUNT(*)` can be written as `COUNT(<primary key>)`, the BIRD paper's advice.
 * Which is faster depends on the data, so the hint carries every form and claims nothing until measured.
 */
export const countStar: HintRule = {
  id: 'VL002',
  title: 'COUNT(*), COUNT(<primary key>) or COUNT(<NOT NULL column>): same count, measure which is faster',
  kind: 'speed',
  // Faster in 3 of 110 fires (issue 34): SQLite reads both forms through the same plan almost always.
  note: true,
  check(context) {
    const { tokens, text } = context;
    const hints: Omit<Hint, 'rule' | 'title' | 'kind'>[] = [];
    for (let i = 0; i + 3 < tokens.length; i++) {
      if (!wordIs(tokens[i], 'COUNT') || tokens[i + 1].text !== '(') continue;
      if (tokens[i + 2].text === '*' && tokens[i + 3].text === ')') {
        const key = countableKey(context, i);
        if (!key) continue;
        const range = tokenRange(tokens, i, i + 3);
        const keyCount = `COUNT(${sqlName(key.qualifier)}.${sqlName(key.column.name)})`;
        hints.push({
          message: `COUNT(*) counts the same rows as ${keyCount} here (${key.table.name}.${key.column.name} is never NULL and no outer join can make it NULL). ${measureAdvice()}`,
          range,
          rewrite: form(text, range, keyCount),
          alternatives: [form(text, range, keyCount)],
        });
        continue;
      }
      if (wordIs(tokens[i + 2], 'DISTINCT', 'ALL')) continue;
      const ref = columnRefAt(tokens as Token[], i + 2, text);
      if (!ref || tokens[ref.last + 1]?.text !== ')') continue;
      const resolved = resolveColumn(context, ref);
      if (!resolved || mayBeNull(tokens, ref, resolved)) continue;
      const range = tokenRange(tokens, i, ref.last + 1);
      const alternatives = [form(text, range, 'COUNT(*)')];
      const key = keyColumn(resolved.table);
      if (key && key.name.toLowerCase() !== resolved.column.name.toLowerCase()) {
        alternatives.push(
          form(text, range, `COUNT(${ref.qualifier !== undefined ? `${tokens[ref.first].text}.` : ''}${sqlName(key.name)})`),
        );
      }
      hints.push({
        message: `${resolved.table.name}.${resolved.column.name} is never NULL here, so ${text.slice(range.start, range.end)} counts every row, as ${alternatives.map((a) => a.text).join(' and ')} ${alternatives.length > 1 ? 'do' : 'does'}. ${measureAdvice()}`,
        range,
        rewrite: alternatives[0],
        alternatives,
      });
    }
    return hints;
  },
};
