import { Token } from '../sql/lexer';

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
