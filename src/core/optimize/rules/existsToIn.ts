import { wordIs } from '../../sql/keywords';
import { StatementContext } from '../../hints/types';
import { correlationKeys, existsIn, keptConditions, onConditions, outerQuery, readsOutside, replaceSpan, Span } from './subqueryParts';
import { RewriteCandidate, RewriteRule } from './types';

/**
 * VL020: `EXISTS (SELECT … FROM t WHERE t.k = outer.x AND <conditions on t>)`, a top-level condition of the
 * outer WHERE, runs the subquery once per outer row; `outer.x IN (SELECT t.k FROM t WHERE <conditions on t>)`
 * computes it once (SQLite keeps the list as an ephemeral index). `NOT EXISTS` becomes
 * `(outer.x IS NULL OR outer.x NOT IN (SELECT t.k … AND t.k IS NOT NULL))`, true or false exactly where NOT EXISTS
 * is. Proof conditions (docs/rules/VL020.md): the EXISTS is AND-ed at the top of the WHERE (where NULL and false
 * both drop the row), the equality is the subquery's only tie to the outer query, and the subquery has no GROUP
 * BY, HAVING, LIMIT or compound part.
 */
export const existsToIn: RewriteRule = {
  id: 'VL020',
  title: 'correlated EXISTS computed once as IN',
  rewrite(context) {
    const { tokens } = context;
    const outer = outerQuery(tokens);
    if (!outer?.conjuncts) return [];
    const found: RewriteCandidate[] = [];
    for (const conjunct of outer.conjuncts) {
      const exists = existsIn(tokens, conjunct);
      if (!exists) continue;
      const sub = exists.subquery;
      const c = sub.clauses;
      if (!sub.conjuncts || c.groupBy !== undefined || c.having !== undefined || c.limit !== undefined || c.distinct !== undefined)
        continue;
      const correlation = singleEqualityCorrelation(context, sub.conjuncts, sub.names, outer.names);
      if (!correlation) continue;
      // The FROM clause's ON conditions must stay inside the subquery's own tables.
      if (onConditions(tokens, c.from!, sub.fromEnd).some((on) => readsOutside(context, on, sub.names, outer.names))) continue;
      const innerFrom = context.text.slice(tokens[c.from!].start, tokens[sub.fromEnd - 1].end);
      const kept = keptConditions(context, sub.conjuncts, [correlation.conjunct]);
      // NOT EXISTS: no inner row equals a NULL, so a NULL outer value keeps the row; and the list must hold no NULL,
      // which would make NOT IN unknown for every other value.
      const conditions = exists.negated ? [...kept, `${correlation.inner} IS NOT NULL`] : kept;
      const list = `(SELECT ${correlation.inner} ${innerFrom}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''})`;
      const replacement = exists.negated
        ? `(${correlation.outer} IS NULL OR ${correlation.outer} NOT IN ${list})`
        : `${correlation.outer} IN ${list}`;
      found.push({
        sql: replaceSpan(context, conjunct, replacement),
        rule: 'VL020',
        note: exists.negated
          ? `NOT EXISTS correlated on ${correlation.outer} computed once as NOT IN over the non-NULL keys (a NULL ${correlation.outer} kept, as NOT EXISTS keeps it)`
          : `EXISTS correlated on ${correlation.outer} computed once as ${correlation.outer} IN (SELECT ${correlation.inner} …)`,
      });
    }
    return found;
  },
};

/**
 * The one conjunct `<inner expression> = <outer expression>` (either way round) that ties a subquery to the
 * outer query, when every other conjunct reads the subquery's own tables only.
 */
export function singleEqualityCorrelation(
  context: StatementContext,
  conjuncts: readonly Span[],
  innerNames: Set<string>,
  outerNames: Set<string>,
): { conjunct: Span; inner: string; outer: string } | undefined {
  const keys = correlationKeys(context, conjuncts, innerNames, outerNames);
  return keys?.length === 1 && !wordIs(context.tokens[keys[0].conjunct.first], 'NOT') ? keys[0] : undefined;
}
