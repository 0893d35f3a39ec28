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
 * The tables a statement reads (lower-case name → name): those named right after FROM or JOIN, or after a comma
 * in a FROM list. An unqualified column can only belong to one of them.
 */
export function mentionedTables(sql: string, tableNames: Iterable<string>): Map<string, string> {
  const tables = new Map<string, string>();
  for (const name of tableNames) tables.set(name.toLowerCase(), name);
  const mentioned = new Map<string, string>();
  const tokens = significantTokens(sql);
  const isWord = (i: number) => tokens[i] && (tokens[i].kind === 'word' || tokens[i].kind === 'quoted');
  tokens.forEach((token, i) => {
    const word = token.kind === 'word' ? token.text.toUpperCase() : '';
    if (word !== 'FROM' && word !== 'JOIN') return;
    let j = i + 1;
    for (;;) {
      if (tokens[j]?.text === '(') {
        let depth = 0;
        for (; j < tokens.length; j++) {
          if (tokens[j].text === '(') depth++;
          else if (tokens[j].text === ')' && --depth === 0) break;
        }
        j++;
      } else if (isWord(j)) {
        let name = identifierName(tokens[j].text);
        if (tokens[j + 1]?.text === '.' && isWord(j + 2)) {
          name = identifierName(tokens[j + 2].text); // schema.table
          j += 2;
        }
        const table = tables.get(name.toLowerCase());
        if (table) mentioned.set(table.toLowerCase(), table);
        j++;
      } else break;
      if (tokens[j]?.kind === 'word' && tokens[j].text.toUpperCase() === 'AS') j++;
      if (isWord(j) && !NOT_ALIASES.has(tokens[j].text.toUpperCase())) j++; // the alias
      if (tokens[j]?.text !== ',') break;
      j++;
    }
  });
  return mentioned;
}

/**
 * The table and column a reference in `sql` reads (`T1.name` through its alias, or a bare `name` that exactly one
 * of the tables the statement reads has); undefined when unknown or ambiguous, as SQLite would also refuse it.
 */
export function resolveColumnIn(schema: SchemaInfo, sql: string, qualifier: string | undefined, columnName: string): { table: TableInfo; column: ColumnInfo } | undefined {
  const names = [...schema.tables.values()].map((t) => t.name);
  const candidates = qualifier
    ? [tableAliases(sql, names).get(qualifier.toLowerCase())].filter((t): t is string => Boolean(t))
    : [...mentionedTables(sql, names).values()];
  const matches = candidates.flatMap((name) => {
    const table = schema.tables.get(name.toLowerCase());
    const column = table?.columns.find((c) => c.name.toLowerCase() === columnName.toLowerCase());
    return table && column ? [{ table, column }] : [];
  });
  return matches.length === 1 ? matches[0] : undefined;
}
