import { ColumnInfo, SchemaInfo, TableInfo } from '../db/schema';
import { identifierName, significantTokens } from '../sql/lexer';

/** Words that can follow a table name in FROM without being its alias. */
const NOT_ALIASES = new Set([
  'WHERE', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'NATURAL', 'OUTER', 'ON', 'USING', 'GROUP', 'ORDER',
  'LIMIT', 'HAVING', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'INDEXED', 'NOT', 'AS', 'SET', 'VALUES', 'RETURNING',
  'FROM', 'ASC', 'DESC', 'AND', 'OR', 'IS', 'IN', 'LIKE', 'GLOB', 'BETWEEN', 'COLLATE', 'WHEN', 'THEN', 'ELSE', 'END',
]);


/**
 * Maps each name a plan may show (alias or table, lower case) to its real table, for the tables the database
 * has: `FROM superhero AS T1 JOIN colour c` → {t1: superhero, c: colour, superhero: superhero, colour: colour}.
 * Token-based, so it works on SQL that node-sql-parser cannot read.
 */
export function tableAliases(sql: string, tableNames: Iterable<string>): Map<string, string> {
  const tables = new Map<string, string>();
  for (const name of tableNames) tables.set(name.toLowerCase(), name);
  const aliases = new Map<string, string>();
  for (const [lower, name] of tables) aliases.set(lower, name);
  const tokens = significantTokens(sql);
  tokens.forEach((token, i) => {
    if (token.kind !== 'word' && token.kind !== 'quoted') return;
    const table = tables.get(identifierName(token.text).toLowerCase());
    if (!table || tokens[i - 1]?.text === '.' || tokens[i + 1]?.text === '.' || tokens[i + 1]?.text === '(') return;
    let next = tokens[i + 1];
    if (next?.kind === 'word' && next.text.toUpperCase() === 'AS') next = tokens[i + 2];
    if (next && (next.kind === 'word' || next.kind === 'quoted') && !NOT_ALIASES.has(next.text.toUpperCase())) {
      aliases.set(identifierName(next.text).toLowerCase(), table);
    }
  });
  return aliases;
}

/**
 * The table and column a reference in `sql` reads (`T1.name` through its alias, or a bare `name` that exactly one
 * of the statement's tables has); undefined when unknown or ambiguous, as SQLite would also refuse it.
 */
export function resolveColumnIn(schema: SchemaInfo, sql: string, qualifier: string | undefined, columnName: string): { table: TableInfo; column: ColumnInfo } | undefined {
  const aliases = tableAliases(sql, [...schema.tables.values()].map((t) => t.name));
  const candidates = qualifier ? [aliases.get(qualifier.toLowerCase())].filter((t): t is string => Boolean(t)) : [...new Set(aliases.values())];
  const matches = candidates.flatMap((name) => {
    const table = schema.tables.get(name.toLowerCase());
    const column = table?.columns.find((c) => c.name.toLowerCase() === columnName.toLowerCase());
    return table && column ? [{ table, column }] : [];
  });
  return matches.length === 1 ? matches[0] : undefined;
}
