import { COMPOUND_OPERATORS, upperWord } from './keywords';
import { Token } from './lexer';

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

// Token arrays are never changed once read, so each one's depths are computed once (scope lookups ask often).
const depthCache = new WeakMap<readonly Token[], number[]>();

/** Paren depth before each token. */
export function depths(tokens: readonly Token[]): number[] {
  const cached = depthCache.get(tokens);
  if (cached) return cached;
  let depth = 0;
  const computed = tokens.map((t) => {
    if (t.text === ')') depth = Math.max(0, depth - 1);
    const here = depth;
    if (t.text === '(') depth++;
    return here;
  });
  depthCache.set(tokens, computed);
  return computed;
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

/** The clauses of the simple SELECT in tokens [from, to), read at the depth of token `from`. */
export function findClauses(tokens: readonly Token[], from = 0, to = tokens.length): Clauses | undefined {
  const depth = depths(tokens);
  const base = depth[from] ?? 0;
  let select = -1;
  const clauses: Partial<Clauses> = { compound: false, withClause: upperWord(tokens[from]) === 'WITH' };
  for (let i = from; i < to; i++) {
    if (depth[i] !== base) continue;
    const word = upperWord(tokens[i]);
    if (word === 'SELECT' && select === -1) {
      select = i;
      if (upperWord(tokens[i + 1]) === 'DISTINCT') clauses.distinct = i + 1;
    } else if (select === -1) continue;
    else if (word === 'FROM' && clauses.from === undefined) clauses.from = i;
    else if (word === 'WHERE' && clauses.where === undefined) clauses.where = i;
    else if (word === 'GROUP' && upperWord(tokens[i + 1]) === 'BY') clauses.groupBy = i;
    else if (word === 'HAVING') clauses.having = i;
    else if (word === 'ORDER' && upperWord(tokens[i + 1]) === 'BY') clauses.orderBy = i;
    else if (word === 'LIMIT') clauses.limit = i;
    else if (COMPOUND_OPERATORS.has(word)) clauses.compound = true;
  }
  if (select === -1) return undefined;
  return { ...clauses, select } as Clauses;
}

/** Index of the token that ends a clause starting at `start` (exclusive): the next clause keyword at its depth, or `end`. */
export function clauseEnd(c: Clauses, start: number, end: number): number {
  return [c.from, c.where, c.groupBy, c.having, c.orderBy, c.limit]
    .filter((i): i is number => i !== undefined && i > start)
    .reduce((a, b) => Math.min(a, b), end);
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
    const word = upperWord(tokens[i]);
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
