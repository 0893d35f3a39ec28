/** The editor's hover over a table or column of a statement: what the database's schema says of it, as Markdown. */
import type { SchemaInfo } from '../core/db/schema';
import { compactNumber } from '../core/report/planText';
import { identifierName, significantTokens } from '../core/sql/lexer';
import { resolveColumnAt } from '../core/sql/scope';
import { splitStatements } from '../core/sql/statements';
import { analysisBoundNote } from '../core/sql/textBounds';

/** Markdown for the table or column under `offset` of a document: row count, columns, indexes. */
export function hoverText(documentText: string, offset: number, schema: SchemaInfo): string | undefined {
  // Names resolve within the statement under the cursor: another statement's aliases mean nothing here.
  const statement = splitStatements(documentText).find((s) => s.start <= offset && offset <= s.start + s.text.length);
  if (!statement) return undefined;
  // A statement past the bounds of SQL analysis is not tokenized (its tokens would take memory beyond the bound): say so.
  const tooLarge = analysisBoundNote(statement.text, 'table and column information', 'tokens');
  if (tooLarge) return tooLarge;
  const at = offset - statement.start;
  const tokens = significantTokens(statement.text);
  const index = tokens.findIndex((t) => t.start <= at && at <= t.end && (t.kind === 'word' || t.kind === 'quoted'));
  if (index === -1) return undefined;
  const name = identifierName(tokens[index].text);
  const table = schema.tables.get(name.toLowerCase());
  const qualified = tokens[index - 1]?.text === '.';
  if (table && !qualified && tokens[index + 1]?.text !== '.') {
    const indexes = table.indexes.map((i) => `\`${i.name}\` (${i.columns.join(', ')})${i.unique ? ' unique' : ''}`);
    return [
      `**${table.name}**: ${table.rowCount.toLocaleString('en-US')} rows, ${table.columns.length} columns`,
      `Indexes: ${indexes.length ? indexes.join('; ') : table.rowidColumn ? `none besides the rowid (\`${table.rowidColumn}\`)` : 'none'}`,
    ].join('\n\n');
  }
  // A column: `alias.column` or a bare column of one of the statement's tables.
  const qualifier = qualified ? identifierName(tokens[index - 2]?.text ?? '') : undefined;
  const resolved = resolveColumnAt(schema, tokens, index, qualifier, name);
  if (resolved) {
    const { table: owner, column } = resolved;
    const indexed = owner.indexes
      .filter((i) => i.columns.some((c) => c.toLowerCase() === column.name.toLowerCase()))
      .map((i) => `\`${i.name}\``);
    const isRowid = owner.rowidColumn?.toLowerCase() === column.name.toLowerCase();
    return [
      `**${owner.name}.${column.name}** ${column.type || 'untyped'}${column.notNull || isRowid ? ', never NULL' : ', nullable'}${column.primaryKey ? ', primary key' : ''}`,
      `${owner.name}: ${compactNumber(owner.rowCount)} rows · ${isRowid ? 'the rowid: every lookup is a SEARCH' : indexed.length ? `indexed by ${indexed.join(', ')}` : 'not indexed: a filter on it scans the table'}`,
    ].join('\n\n');
  }
  return undefined;
}
