/**
 * Name resolution for SQL statements, read from tokens so it works on SQL node-sql-parser cannot read: the FROM
 * items of each SELECT (tables, subqueries, table-valued functions, CTE names), their aliases, how they are
 * joined and which an outer join can fill with NULLs, and which table a column reference reads. Hints, plans,
 * index advice, hover and the judge all resolve names here, with the one keyword set of ./keywords.
 */
import { ColumnInfo, SchemaInfo, TableInfo } from './catalog';
import { Node } from './ast';
import { clauseEnd, closingParen, depths, findClauses } from './clauses';
import { COMPOUND_OPERATORS, FROM_CLAUSE_ENDS, isKeyword, isName, upperWord } from './keywords';
import { identifierName, significantTokens, Token } from './lexer';

/** How a FROM item joins the items before it. */
export type JoinKind = 'first' | 'inner' | 'left' | 'right' | 'full' | 'cross';

export interface FromItem {
  kind: 'table' | 'subquery' | 'function';
  /** The table (or CTE, or table-valued function) as named, without schema or quotes; absent for a subquery. */
  table?: string;
  /** The schema a table is qualified with: `main` in `FROM main.t AS T1`. */
  schema?: string;
  alias?: string;
  join: JoinKind;
  /** True when an outer join can fill this item's columns with NULLs (LEFT/FULL on its right, RIGHT/FULL on its left). */
  nullable: boolean;
  /** A subquery's output column names (lower case), when its select list names them all (no `*`). */
  columns?: string[];
}

/** The name a column is qualified by: the alias, or the table when it has none (an alias hides the table's name). */
export const itemName = (item: FromItem): string | undefined => item.alias ?? item.table;

const JOIN_MODIFIERS = new Set(['LEFT', 'RIGHT', 'FULL', 'OUTER', 'NATURAL', 'INNER', 'CROSS']);

/** The items of the FROM clause whose FROM keyword is at token `from`, read up to token `to` (exclusive). */
export function fromItems(tokens: readonly Token[], from: number, to: number): FromItem[] {
  const depth = depths(tokens);
  const base = depth[from];
  const items: FromItem[] = [];
  for (let i = from; i < to; i++) {
    if (depth[i] !== base) continue;
    const word = upperWord(tokens[i]);
    if (word !== 'FROM' && word !== 'JOIN' && tokens[i].text !== ',') continue;
    let join: JoinKind = word === 'FROM' ? 'first' : word === 'JOIN' ? 'inner' : 'cross';
    for (let k = i - 1; word === 'JOIN' && k > from && JOIN_MODIFIERS.has(upperWord(tokens[k])); k--) {
      const modifier = upperWord(tokens[k]);
      if (modifier === 'LEFT' || modifier === 'RIGHT' || modifier === 'FULL') join = modifier.toLowerCase() as JoinKind;
      else if (modifier === 'CROSS' && join === 'inner') join = 'cross';
    }
    const item: FromItem = { kind: 'subquery', join, nullable: join === 'left' || join === 'full' };
    let j = i + 1;
    if (tokens[j]?.text === '(') {
      // A subquery (or a parenthesised join): only its alias names something.
      const close = closingParen(tokens, j);
      const columns = close === -1 ? undefined : outputColumns(tokens, j + 1, close);
      if (columns) item.columns = columns;
      j = close + 1 || to;
    } else if (isName(tokens[j]) && !isKeyword(tokens[j])) {
      item.kind = 'table';
      item.table = identifierName(tokens[j++].text);
      if (tokens[j]?.text === '.' && isName(tokens[j + 1])) {
        item.schema = item.table;
        item.table = identifierName(tokens[j + 1].text);
        j += 2;
      }
      if (tokens[j]?.text === '(') {
        item.kind = 'function'; // json_each(...): named like a table, its columns unknown
        j = closingParen(tokens, j) + 1 || to;
      }
    } else continue; // a FROM with no item after it: SQL being typed
    if (upperWord(tokens[j]) === 'AS' && isName(tokens[j + 1])) {
      item.alias = identifierName(tokens[j + 1].text); // after AS any name is an alias, keywords too
    } else if (isName(tokens[j]) && !isKeyword(tokens[j])) {
      item.alias = identifierName(tokens[j].text);
    }
    if (join === 'right' || join === 'full') for (const earlier of items) earlier.nullable = true;
    items.push(item);
  }
  return items;
}

/**
 * The output column names (lower case) of the SELECT in tokens [start, end), as SQLite names them: the alias,
 * else a column reference's column, else the expression's text; undefined for `*` or what is not a SELECT.
 */
export function outputColumns(tokens: readonly Token[], start: number, end: number): string[] | undefined {
  const clauses = findClauses(tokens, start, end);
  if (!clauses) return undefined;
  const depth = depths(tokens);
  const first =
    clauses.distinct !== undefined ? clauses.distinct + 1 : clauses.select + 1 + (upperWord(tokens[clauses.select + 1]) === 'ALL' ? 1 : 0);
  let last = clauses.from ?? clauseEnd(clauses, clauses.select, end);
  // A compound SELECT is named by its first member.
  for (let k = first; k < last; k++) if (depth[k] === depth[start] && COMPOUND_OPERATORS.has(upperWord(tokens[k]))) last = k;
  const names: string[] = [];
  for (let itemStart = first, k = first; k <= last; k++) {
    if (k < last && !(tokens[k].text === ',' && depth[k] === depth[start])) continue;
    const item = tokens.slice(itemStart, k);
    itemStart = k + 1;
    const name = outputName(item);
    if (name === undefined) return undefined;
    names.push(name.toLowerCase());
  }
  return names;
}

/** The name SQLite gives one select-list item; undefined for `*` and `t.*` (their columns are not known here). */
function outputName(item: readonly Token[]): string | undefined {
  const final = item[item.length - 1];
  if (!final || final.text === '*') return undefined;
  const before = item[item.length - 2];
  if (isName(final) && (upperWord(before) === 'AS' || item.length === 1 || before?.text === '.')) return identifierName(final.text);
  // An alias without AS: a name right after a complete operand (`COUNT(*) n`, `T1.a b`).
  if (
    isName(final) &&
    !isKeyword(final) &&
    (before?.text === ')' || (isName(before) && !isKeyword(before)) || before?.kind === 'number' || before?.kind === 'string')
  ) {
    return identifierName(final.text);
  }
  return item.map((t) => t.text).join('');
}

/** A join as node-sql-parser writes it (`LEFT OUTER JOIN`; nothing for a comma). */
function joinKindOf(written: string): JoinKind {
  const words = written.toUpperCase().split(/\s+/);
  for (const side of ['LEFT', 'RIGHT', 'FULL'] as const) if (words.includes(side)) return side.toLowerCase() as JoinKind;
  return words.includes('JOIN') && !words.includes('CROSS') ? 'inner' : 'cross';
}

/** The FROM items of one SELECT of node-sql-parser's tree (for code that reads the tree rather than tokens). */
export function fromItemsOfSelect(select: Node): FromItem[] {
  const from: Node[] = Array.isArray(select.from) ? select.from : [];
  const items: FromItem[] = [];
  from.forEach((entry, index) => {
    const join = index === 0 ? 'first' : joinKindOf(String(entry.join ?? ''));
    const item: FromItem = {
      kind: typeof entry.table === 'string' ? 'table' : 'subquery',
      join,
      nullable: join === 'left' || join === 'full',
    };
    if (typeof entry.table === 'string') item.table = entry.table;
    if (typeof entry.db === 'string') item.schema = entry.db;
    if (typeof entry.as === 'string') item.alias = entry.as;
    if (join === 'right' || join === 'full') for (const earlier of items) earlier.nullable = true;
    items.push(item);
  });
  return items;
}

/** Where the FROM clause at token `from` ends (exclusive): the next clause keyword at its depth, its `)`, or `limit`. */
export function fromClauseEnd(tokens: readonly Token[], from: number, limit = tokens.length): number {
  const depth = depths(tokens);
  let end = from + 1;
  while (end < limit && depth[end] >= depth[from] && !(depth[end] === depth[from] && FROM_CLAUSE_ENDS.has(upperWord(tokens[end])))) end++;
  return end;
}

/** Every FROM clause of a statement, at any depth (subqueries and CTE bodies too), as token ranges [from, end). */
export function fromClauses(tokens: readonly Token[]): { from: number; end: number }[] {
  const clauses: { from: number; end: number }[] = [];
  tokens.forEach((token, i) => {
    if (upperWord(token) !== 'FROM') return;
    if (upperWord(tokens[i - 1]) === 'DISTINCT' && ['IS', 'NOT'].includes(upperWord(tokens[i - 2]))) return; // IS DISTINCT FROM
    clauses.push({ from: i, end: fromClauseEnd(tokens, i) });
  });
  return clauses;
}

/** Every FROM item of a statement, at any depth. */
export function allFromItems(tokens: readonly Token[]): FromItem[] {
  return fromClauses(tokens).flatMap(({ from, end }) => fromItems(tokens, from, end));
}

/** Lower-case names of the statement's common table expressions (`WITH name [(columns)] AS [NOT] [MATERIALIZED] (`). */
export function cteNames(tokens: readonly Token[]): Set<string> {
  const names = new Set<string>();
  tokens.forEach((token, i) => {
    if (upperWord(token) !== 'AS') return;
    let body = i + 1;
    if (upperWord(tokens[body]) === 'NOT') body++;
    if (upperWord(tokens[body]) === 'MATERIALIZED') body++;
    if (tokens[body]?.text !== '(' || !['SELECT', 'WITH', 'VALUES'].includes(upperWord(tokens[body + 1]))) return;
    let name = i - 1;
    if (tokens[name]?.text === ')') {
      // a column list: the name is before its `(`
      const depth = depths(tokens);
      while (name > 0 && !(tokens[name].text === '(' && depth[name] === depth[i])) name--;
      name--;
    }
    if (isName(tokens[name])) names.add(identifierName(tokens[name].text).toLowerCase());
  });
  return names;
}

/**
 * The token range [start, end) of the simple SELECT that token `i` belongs to: the innermost parenthesised
 * subquery around it (or the whole statement), narrowed to the compound member holding it.
 */
export function selectScope(tokens: readonly Token[], i: number): { start: number; end: number } {
  const depth = depths(tokens);
  let start = 0;
  let end = tokens.length;
  for (let k = i - 1, d = depth[i] ?? 0; k >= 0; k--) {
    if (tokens[k].text === '(' && depth[k] < d) {
      d = depth[k];
      if (['SELECT', 'WITH', 'VALUES'].includes(upperWord(tokens[k + 1]))) {
        start = k + 1;
        end = closingParen(tokens, k);
        if (end === -1) end = tokens.length;
        break;
      }
    }
  }
  const base = depth[start];
  let memberStart = start;
  let memberEnd = end;
  for (let k = start; k < end; k++) {
    if (depth[k] !== base || !COMPOUND_OPERATORS.has(upperWord(tokens[k]))) continue;
    if (k < i) memberStart = k + 1 + (upperWord(tokens[k + 1]) === 'ALL' ? 1 : 0);
    else {
      memberEnd = k;
      break;
    }
  }
  return { start: memberStart, end: memberEnd };
}

/** The FROM items of the simple SELECT in tokens [start, end) (its own FROM clause, not its subqueries'). */
export function scopeItems(tokens: readonly Token[], scope: { start: number; end: number }): FromItem[] {
  const clauses = findClauses(tokens, scope.start, scope.end);
  if (clauses?.from === undefined) return [];
  return fromItems(tokens, clauses.from, fromClauseEnd(tokens, clauses.from, scope.end));
}

/** The FROM items visible at token `i`: its own SELECT's first, then each SELECT around it, outwards. */
export function visibleScopes(tokens: readonly Token[], i: number): FromItem[][] {
  const depth = depths(tokens);
  const scopes: FromItem[][] = [];
  for (let at = i; ;) {
    const scope = selectScope(tokens, at);
    scopes.push(scopeItems(tokens, scope));
    // The `(` that opens this subquery belongs to the SELECT around it; a top-level SELECT has none.
    at = scope.start - 1;
    while (at >= 0 && !(tokens[at].text === '(' && depth[at] < depth[scope.start])) at--;
    if (at < 0) return scopes;
  }
}

/** The lower-case name of the table a FROM item reads; undefined for a subquery, a function or a CTE. */
function readTableKey(item: FromItem, ctes: ReadonlySet<string>): string | undefined {
  const key = item.kind === 'table' ? item.table?.toLowerCase() : undefined;
  return key === undefined || ctes.has(key) ? undefined : key;
}

/** The database table a FROM item reads; undefined for a subquery, a function, a CTE or a name the schema lacks. */
export function itemTable(schema: SchemaInfo, item: FromItem, ctes: ReadonlySet<string>): TableInfo | undefined {
  const key = readTableKey(item, ctes);
  return key === undefined ? undefined : schema.tables.get(key);
}

export interface ResolvedColumn {
  table: TableInfo;
  column: ColumnInfo;
  /** The FROM item the column is read through (its alias, join and nullability). */
  item: FromItem;
}

/**
 * The table and column a reference reads, as SQLite resolves it: `scopes` are the visible FROM items, innermost
 * first. A qualified name reads the nearest item of that name (an alias hides its table's own name). An
 * unqualified name reads the nearest scope that has it: one table there, or nothing when two tables have it
 * (ambiguous, as SQLite refuses it) or a subquery, CTE or unknown table there might have it too.
 */
export function resolveColumnIn(
  schema: SchemaInfo,
  scopes: readonly (readonly FromItem[])[],
  qualifier: string | undefined,
  columnName: string,
  ctes: ReadonlySet<string> = new Set(),
): ResolvedColumn | undefined {
  const tableOf = (item: FromItem) => itemTable(schema, item, ctes);
  const columnOf = (table: TableInfo | undefined) => table?.columns.find((c) => c.name.toLowerCase() === columnName.toLowerCase());
  for (const items of scopes) {
    if (qualifier !== undefined) {
      const item = items.find((candidate) => itemName(candidate)?.toLowerCase() === qualifier.toLowerCase());
      if (!item) continue;
      const table = tableOf(item);
      const column = columnOf(table);
      return table && column ? { table, column, item } : undefined;
    }
    // A subquery, CTE or unknown table might hold the name too (a subquery whose outputs are known and lack it cannot).
    const unknown = items.some((item) => !tableOf(item) && !(item.columns && !item.columns.includes(columnName.toLowerCase())));
    if (unknown) return undefined;
    const matches = items.flatMap((item) => {
      const table = tableOf(item);
      const column = columnOf(table);
      return table && column ? [{ table, column, item }] : [];
    });
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) return undefined;
  }
  return undefined;
}

/** The table and column the reference at token `i` of a statement's tokens reads (see resolveColumnIn). */
export function resolveColumnAt(
  schema: SchemaInfo,
  tokens: readonly Token[],
  i: number,
  qualifier: string | undefined,
  columnName: string,
): ResolvedColumn | undefined {
  return resolveColumnIn(schema, visibleScopes(tokens, i), qualifier, columnName, cteNames(tokens));
}

/** Lower-case name → table, for the database's tables. */
function tablesByLowerName(tableNames: Iterable<string>): Map<string, string> {
  const tables = new Map<string, string>();
  for (const name of tableNames) tables.set(name.toLowerCase(), name);
  return tables;
}

/**
 * Maps each name a plan may show (alias or table, lower case) to its real table, for the tables the database
 * has, over every FROM clause of the statement: `FROM superhero AS T1 JOIN colour c` → {t1: superhero,
 * c: colour, superhero: superhero, colour: colour}.
 */
export function tableAliases(sql: string, tableNames: Iterable<string>): Map<string, string> {
  const tables = tablesByLowerName(tableNames);
  const aliases = new Map(tables);
  const tokens = significantTokens(sql);
  const ctes = cteNames(tokens);
  for (const item of allFromItems(tokens)) {
    const table = tables.get(readTableKey(item, ctes) ?? '');
    if (table && item.alias) aliases.set(item.alias.toLowerCase(), table);
  }
  return aliases;
}

/**
 * The database's tables a statement reads (lower-case name → name), in any of its FROM clauses, and after a
 * JOIN out of place (`... LIMIT 1 JOIN t`: SQL a model wrote wrongly still names the tables it meant).
 */
export function tablesRead(sql: string, tableNames: Iterable<string>): Map<string, string> {
  const tables = tablesByLowerName(tableNames);
  const tokens = significantTokens(sql);
  const ctes = cteNames(tokens);
  const clauses = fromClauses(tokens);
  const inClause = (i: number) => clauses.some(({ from, end }) => i > from && i < end);
  tokens.forEach((token, i) => {
    if (upperWord(token) === 'JOIN' && !inClause(i)) clauses.push({ from: i, end: fromClauseEnd(tokens, i) });
  });
  const read = new Map<string, string>();
  for (const item of clauses.flatMap(({ from, end }) => fromItems(tokens, from, end))) {
    const table = tables.get(readTableKey(item, ctes) ?? '');
    if (table) read.set(table.toLowerCase(), table);
  }
  return read;
}

/** Lower-case names (tables and aliases) that the FROM clause in tokens [from, to) defines. */
export function definedNames(tokens: readonly Token[], from: number, to: number): Set<string> {
  const names = new Set<string>();
  for (const item of fromItems(tokens, from, to)) {
    if (item.table) names.add(item.table.toLowerCase());
    if (item.alias) names.add(item.alias.toLowerCase());
  }
  return names;
}

/**
 * Lower-case names that an outer join anywhere in the statement can fill with NULLs: `names` are what a
 * column is qualified by (the alias, or the table without one), `tables` the real tables behind them.
 * Scope-blind on purpose: a name nullable in any FROM clause counts, so a rule never calls a column "never
 * NULL" when it may be NULL.
 */
export function outerJoinNullable(tokens: readonly Token[]): { names: Set<string>; tables: Set<string> } {
  const names = new Set<string>();
  const tables = new Set<string>();
  if (!tokens.some((t) => ['LEFT', 'RIGHT', 'FULL'].includes(upperWord(t)))) return { names, tables };
  for (const item of allFromItems(tokens)) {
    if (!item.nullable) continue;
    const name = itemName(item);
    if (name) names.add(name.toLowerCase());
    if (item.table) tables.add(item.table.toLowerCase());
  }
  return { names, tables };
}
