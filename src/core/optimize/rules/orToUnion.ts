import { depths } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { outerQuery } from './subqueryParts';
import { RewriteRule } from './types';

/**
 * VL025: `SELECT DISTINCT … WHERE A OR B` whose branches filter different tables cannot use either branch's
 * selective condition to drive the joins: SQLite joins everything, then tests the OR. As `SELECT … WHERE A UNION
 * SELECT … WHERE B`, each branch is planned on its own conditions. Proof conditions (docs/rules/VL025.md): the
 * outer SELECT is DISTINCT (UNION removes duplicates as DISTINCT does) with no aggregate, GROUP BY, HAVING,
 * ORDER BY, LIMIT, window or compound part; its WHERE is an OR at the top. A row passes `A OR B` exactly when it
 * passes A or passes B (a NULL branch keeps it out of that branch only, as `NULL OR x` is true only when x is).
 */
export const orToUnion: RewriteRule = {
  id: 'VL025',
  title: 'OR across tables as a UNION of its branches',
  rewrite(context) {
    const { tokens, text } = context;
    const outer = outerQuery(tokens);
    if (!outer || outer.conjuncts !== undefined || outer.clauses.where === undefined || outer.clauses.distinct === undefined) return [];
    const c = outer.clauses;
    const where = c.where!; // checked above
    if (c.groupBy !== undefined || c.having !== undefined || c.orderBy !== undefined || c.limit !== undefined) return [];
    if (tokens.some((t) => wordIs(t, 'OVER', 'COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'TOTAL', 'GROUP_CONCAT'))) return [];
    const depth = depths(tokens);
    const base = depth[where];
    const whereEnd = outer.whereEnd ?? tokens.length;
    const branches: string[] = [];
    let start = where + 1;
    for (let i = start; i <= whereEnd; i++) {
      if (i === whereEnd || (depth[i] === base && wordIs(tokens[i], 'OR'))) {
        if (i === start) return [];
        branches.push(text.slice(tokens[start].start, tokens[i - 1].end));
        start = i + 1;
      }
    }
    if (branches.length < 2 || branches.length > 4) return [];
    const head = text.slice(0, tokens[where].start);
    const tail = whereEnd < tokens.length ? text.slice(tokens[whereEnd - 1].end) : '';
    const sql = branches.map((branch) => `${head}WHERE ${branch}${tail}`).join(' UNION ');
    return [{ sql, rule: 'VL025', note: `the WHERE's ${branches.length} OR branches planned each on its own, as a UNION` }];
  },
};
