import { identifierName, Token } from '../sql/lexer';

/** Positions (token indexes) of a simple SELECT's top-level clauses, outside any parentheses. */
export interface Clauses {
  select: number;
  distinct?: number;
  from?: number;
  where?: number;
  groupBy?: number;
  having?: number;
  orderBy?: number;
  limit?: number;
  /** UNION / EXCEPT / INTERSECT at top level, or a WITH clause: rewrites that need a simple SELECT skip these. */
  compound: boolean;
  withClause: boolean;
}

const upper = (t: Token | undefined) => (t && t.kind === 'word' ? t.text.toUpperCase() : '');

/** Paren depth before each token. */
export function depths(tokens: readonly Token[]): number[] {
  let depth = 0;
  return tokens.map((t) => {
    if (t.text === ')') depth = Math.max(0, depth - 1);
    const here = depth;
    if (t.text === '(') depth++;
    return here;
  });
}

/** The matching `)` for the `(` at index `open`, or -1. */
export function closingParen(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].text === '(') depth++;
    else if (tokens[i].text === ')' && --depth === 0) return i;
  }
  return -1;
}

export function findClauses(tokens: readonly Token[], from = 0, to = tokens.length): Clauses | undefined {
  const depth = depths(tokens);
  const base = depth[from] ?? 0;
  let select = -1;
  const clauses: Partial<Clauses> = { compound: false, withClause: upper(tokens[from]) === 'WITH' };
  for (let i = from; i < to; i++) {
    if (depth[i] !== base) continue;
    const word = upper(tokens[i]);
    if (word === 'SELECT' && select === -1) {
      select = i;
      if (['DISTINCT'].includes(upper(tokens[i + 1]))) clauses.distinct = i + 1;
    } else if (select === -1) continue;
    else if (word === 'FROM' && clauses.from === undefined) clauses.from = i;
    else if (word === 'WHERE' && clauses.where === undefined) clauses.where = i;
    else if (word === 'GROUP' && upper(tokens[i + 1]) === 'BY') clauses.groupBy = i;
    else if (word === 'HAVING') clauses.having = i;
    else if (word === 'ORDER' && upper(tokens[i + 1]) === 'BY') clauses.orderBy = i;
    else if (word === 'LIMIT') clauses.limit = i;
    else if (['UNION', 'EXCEPT', 'INTERSECT'].includes(word)) clauses.compound = true;
  }
  if (select === -1) return undefined;
  return { ...clauses, select } as Clauses;
}

/** Source text from the start of token `a` to the end of token `b` (inclusive), in `text`. */
export function sliceTokens(text: string, tokens: readonly Token[], a: number, b: number): string {
  return text.slice(tokens[a].start, tokens[b].end);
}

/** Index of the token that ends a clause starting at `start` (exclusive): the next clause keyword at its depth, or `end`. */
export function clauseEnd(c: Clauses, start: number, end: number): number {
  return [c.from, c.where, c.groupBy, c.having, c.orderBy, c.limit].filter((i): i is number => i !== undefined && i > start).reduce((a, b) => Math.min(a, b), end);
}

/** AND-separated conditions of a range of tokens at its base depth (the AND of BETWEEN kept); undefined if an OR joins them. */
export function conjuncts(tokens: readonly Token[], from: number, to: number): { first: number; last: number }[] | undefined {
  const depth = depths(tokens);
  const base = depth[from];
  const out: { first: number; last: number }[] = [];
  let start = from;
  let betweenPending = false;
  for (let i = from; i < to; i++) {
    if (depth[i] !== base) continue;
    const word = upper(tokens[i]);
    if (word === 'OR') return undefined;
    if (word === 'BETWEEN') betweenPending = true;
    else if (word === 'AND') {
      if (betweenPending) {
        betweenPending = false;
        continue;
      }
      out.push({ first: start, last: i - 1 });
      start = i + 1;
    }
  }
  if (to > start) out.push({ first: start, last: to - 1 });
  return out;
}

/** The items of a FROM clause between token indexes: each table (or subquery) and its alias, in order. */
export function fromItems(tokens: readonly Token[], from: number, to: number): { table?: string; alias?: string }[] {
  const items: { table?: string; alias?: string }[] = [];
  const depth = depths(tokens);
  const base = depth[from];
  for (let i = from; i < to; i++) {
    if (depth[i] !== base) continue;
    const word = upper(tokens[i]);
    if (word !== 'FROM' && word !== 'JOIN' && tokens[i].text !== ',') continue;
    const item: { table?: string; alias?: string } = {};
    let j = i + 1;
    if (tokens[j]?.text === '(') j = closingParen(tokens, j) + 1; // a subquery item: only its alias names something
    else if (tokens[j] && (tokens[j].kind === 'word' || tokens[j].kind === 'quoted')) item.table = identifierName(tokens[j++].text);
    if (upper(tokens[j]) === 'AS') j++;
    const alias = tokens[j];
    if (alias && (alias.kind === 'word' || alias.kind === 'quoted') && !CLAUSE_WORDS.has(upper(alias))) item.alias = identifierName(alias.text);
    items.push(item);
  }
  return items;
}

/** Lower-case names (tables and aliases) that a FROM clause between token indexes defines. */
export function definedNames(tokens: readonly Token[], from: number, to: number): Set<string> {
  const names = new Set<string>();
  for (const item of fromItems(tokens, from, to)) {
    if (item.table) names.add(item.table.toLowerCase());
    if (item.alias) names.add(item.alias.toLowerCase());
  }
  return names;
}

/**
 * When a join is added to a query, a bare `*` in its select list would gain the joined columns. Returns the
 * edit that pins it to the original FROM items (`*` → `T1.*, T2.*`), nothing when there is no bare `*`, or
 * undefined when a FROM item has no name to pin it to.
 */
export function pinSelectStar(text: string, tokens: readonly Token[], c: Clauses, fromEnd: number): { start: number; end: number; text: string } | null | undefined {
  if (c.from === undefined) return undefined;
  const depth = depths(tokens);
  // A select item on its own: after SELECT / DISTINCT / ALL or a comma, before a comma or FROM (not `a * b`).
  const isItem = (i: number) => {
    const before = tokens[i - 1];
    const after = tokens[i + 1];
    return (before?.text === ',' || ['SELECT', 'DISTINCT', 'ALL'].includes(upper(before))) && (after?.text === ',' || upper(after) === 'FROM');
  };
  const star = tokens.findIndex((t, i) => i > c.select && i < c.from! && t.text === '*' && depth[i] === depth[c.select] && isItem(i));
  if (star === -1) return null;
  const items = fromItems(tokens, c.from, fromEnd);
  if (items.some((item) => !item.alias && !item.table)) return undefined;
  return { start: tokens[star].start, end: tokens[star].end, text: items.map((item) => `${item.alias ?? item.table}.*`).join(', ') };
}

const CLAUSE_WORDS = new Set(['WHERE', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'NATURAL', 'ON', 'USING', 'GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'INDEXED', 'NOT']);

/**
 * The text of a statement with the conditions [first..last] removed from its WHERE clause, AND and all;
 * the whole WHERE goes when it was the only condition.
 */
export function withoutCondition(text: string, tokens: readonly Token[], where: number, whereEnd: number, first: number, last: number): { start: number; end: number } {
  if (first === where + 1 && last === whereEnd - 1) return { start: tokens[where].start, end: tokens[last].end };
  if (upper(tokens[last + 1]) === 'AND' && last + 2 < whereEnd) return { start: tokens[first].start, end: tokens[last + 2].start };
  return { start: tokens[first - 1].start, end: tokens[last].end }; // the AND before it
}

/** How a FROM item joins the items before it. */
export type JoinKind = 'first' | 'inner' | 'left' | 'right' | 'full' | 'cross';

export interface JoinedItem {
  table?: string;
  alias?: string;
  join: JoinKind;
  /** True when an outer join can fill this item's columns with NULLs (LEFT/FULL on its right, RIGHT/FULL on its left). */
  nullable: boolean;
}

/** The items of a FROM clause (tokens from `from` to `to`) with how each is joined and whether an outer join makes it nullable. */
export function joinedItems(tokens: readonly Token[], from: number, to: number): JoinedItem[] {
  const depth = depths(tokens);
  const base = depth[from];
  const items: JoinedItem[] = [];
  for (let i = from; i < to; i++) {
    if (depth[i] !== base) continue;
    const word = upper(tokens[i]);
    if (word !== 'FROM' && word !== 'JOIN' && tokens[i].text !== ',') continue;
    let join: JoinKind = word === 'FROM' ? 'first' : tokens[i].text === ',' ? 'cross' : 'inner';
    if (word === 'JOIN') {
      for (let k = i - 1; k > from && ['LEFT', 'RIGHT', 'FULL', 'OUTER', 'NATURAL', 'INNER', 'CROSS'].includes(upper(tokens[k])); k--) {
        const w = upper(tokens[k]);
        if (w === 'LEFT') join = 'left';
        else if (w === 'RIGHT') join = 'right';
        else if (w === 'FULL') join = 'full';
        else if (w === 'CROSS' && join === 'inner') join = 'cross';
      }
    }
    const item: JoinedItem = { join, nullable: join === 'left' || join === 'full' };
    let j = i + 1;
    if (tokens[j]?.text === '(') j = closingParen(tokens, j) + 1;
    else if (tokens[j] && (tokens[j].kind === 'word' || tokens[j].kind === 'quoted')) {
      item.table = identifierName(tokens[j++].text);
      if (tokens[j]?.text === '.' && tokens[j + 1]) {
        item.table = identifierName(tokens[j + 1].text); // schema.table
        j += 2;
      }
    }
    if (upper(tokens[j]) === 'AS') j++;
    const alias = tokens[j];
    if (alias && (alias.kind === 'word' || alias.kind === 'quoted') && !CLAUSE_WORDS.has(upper(alias)) && upper(alias) !== 'OUTER') item.alias = identifierName(alias.text);
    if (join === 'right' || join === 'full') for (const earlier of items) earlier.nullable = true;
    items.push(item);
  }
  return items;
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
  if (!tokens.some((t) => ['LEFT', 'RIGHT', 'FULL'].includes(upper(t)))) return { names, tables };
  const depth = depths(tokens);
  tokens.forEach((token, i) => {
    if (upper(token) !== 'FROM') return;
    let end = i + 1;
    while (end < tokens.length && depth[end] >= depth[i] && !(depth[end] === depth[i] && FROM_ENDS.has(upper(tokens[end])))) end++;
    for (const item of joinedItems(tokens, i, end)) {
      if (!item.nullable) continue;
      if (item.alias ?? item.table) names.add((item.alias ?? item.table)!.toLowerCase());
      if (item.table) tables.add(item.table.toLowerCase());
    }
  });
  return { names, tables };
}

const FROM_ENDS = new Set(['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'RETURNING']);

/**
 * The token range [start, end) of the simple SELECT that token `i` belongs to: the innermost parenthesised
 * subquery around it (or the whole statement), narrowed to the compound member holding it.
 */
export function selectScope(tokens: readonly Token[], i: number): { start: number; end: number } {
  const depth = depths(tokens);
  let start = 0;
  let end = tokens.length;
  for (let k = i - 1, d = depth[i]; k >= 0; k--) {
    if (tokens[k].text === '(' && depth[k] < d) {
      d = depth[k];
      if (upper(tokens[k + 1]) === 'SELECT' || upper(tokens[k + 1]) === 'WITH' || upper(tokens[k + 1]) === 'VALUES') {
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
    if (depth[k] !== base || !['UNION', 'EXCEPT', 'INTERSECT'].includes(upper(tokens[k]))) continue;
    if (k < i) memberStart = k + 1 + (upper(tokens[k + 1]) === 'ALL' ? 1 : 0);
    else {
      memberEnd = k;
      break;
    }
  }
  return { start: memberStart, end: memberEnd };
}
