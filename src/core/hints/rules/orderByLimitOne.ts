import { findClauses } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { tokenRange } from '../edits';
import { HintRule } from '../types';

/**
 * VL003: `ORDER BY x DESC LIMIT 1` sorts (or top-1 scans) the whole filtered set; `x = (SELECT MAX(x) ...)`
 * is two index probes when x is indexed. Fires on a plain SELECT (no GROUP BY, DISTINCT or compound).
 */
export const orderByLimitOne: HintRule = {
  id: 'VL003',
  title: 'ORDER BY ... LIMIT 1 instead of MAX / MIN',
  kind: 'speed',
  check({ tokens, text }) {
    const c = findClauses(tokens);
    if (!c || c.withClause || c.compound || c.from === undefined || c.orderBy === undefined || c.limit === undefined) return [];
    if (c.distinct !== undefined || c.groupBy !== undefined || c.having !== undefined || c.limit < c.orderBy) return [];
    // LIMIT 1, nothing after it (no OFFSET).
    if (tokens[c.limit + 1]?.text !== '1' || c.limit + 2 !== tokens.length) return [];
    // One ORDER BY term: an expression, optionally ASC / DESC.
    let termEnd = c.limit - 1;
    let descending = false;
    if (wordIs(tokens[termEnd], 'DESC', 'ASC')) {
      descending = wordIs(tokens[termEnd], 'DESC');
      termEnd--;
    }
    const termStart = c.orderBy + 2;
    if (termEnd < termStart) return [];
    let depth = 0;
    for (let i = termStart; i <= termEnd; i++) {
      if (tokens[i].text === '(') depth++;
      if (tokens[i].text === ')') depth--;
      if (depth === 0 && (tokens[i].text === ',' || wordIs(tokens[i], 'NULLS', 'COLLATE'))) return [];
    }
    const term = text.slice(tokens[termStart].start, tokens[termEnd].end);
    if (/^\d+$/.test(term)) return []; // ORDER BY 2: a column position, not an expression
    const aggregate = descending ? 'MAX' : 'MIN';
    const head = text.slice(tokens[c.select].start, tokens[c.from].start).trimEnd();
    const fromClause = text.slice(tokens[c.from].start, tokens[(c.where ?? c.orderBy) - 1].end);
    const whereBody = c.where !== undefined ? text.slice(tokens[c.where + 1].start, tokens[c.orderBy - 1].end) : undefined;
    const subquery = `(SELECT ${aggregate}(${term}) ${fromClause}${whereBody ? ` WHERE ${whereBody}` : ''})`;
    const statement = `${head} ${fromClause} WHERE ${whereBody ? `(${whereBody}) AND ` : ''}${term} = ${subquery}`;
    return [
      {
        message: `ORDER BY ${term}${descending ? ' DESC' : ''} LIMIT 1 ranks every matching row to keep one; ${term} = (SELECT ${aggregate}(${term}) ...) can be answered from an index on ${term} in two lookups.`,
        range: tokenRange(tokens, c.orderBy, c.limit + 1),
        caveat: `Ties: the rewrite returns every row sharing the ${descending ? 'largest' : 'smallest'} value, LIMIT 1 only one. NULLs: ${descending ? 'DESC puts NULLs last, as MAX ignores them' : 'ASC puts NULLs first, where MIN ignores them'}.`,
        rewrite: { range: { start: 0, end: text.length }, text: statement, statement },
      },
    ];
  },
};
