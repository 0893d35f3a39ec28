import { closingParen } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { pinSelectStar } from '../../hints/edits';
import {
  comparisonWith,
  correlationKeys,
  keptConditions,
  NULL_ON_EMPTY,
  onConditions,
  outerQuery,
  readsOutside,
  Span,
  spanText,
} from './subqueryParts';
import { RewriteCandidate, RewriteRule } from './types';

/** Aggregates that return a number over no rows: joined with LEFT JOIN, a key without rows reads that number. */
const ZERO_ON_EMPTY: Record<string, string> = { COUNT: '0', TOTAL: '0.0' };

/**
 * VL021: `x <op> (SELECT MAX(v) FROM t WHERE t.k = outer.k AND <conditions on t>)` in the outer WHERE runs the
 * aggregate once per outer row; a join to `(SELECT t.k, MAX(v) FROM t WHERE <conditions> GROUP BY t.k)`
 * aggregates every key in one pass. Proof conditions (docs/rules/VL021.md): the comparison is AND-ed at the top
 * of the WHERE and NULL-rejecting (=, <, >, <=, >=, <>); the aggregate is MAX, MIN, SUM or AVG (NULL over no
 * rows: a key without rows drops the outer row in both forms, so an inner JOIN), or COUNT or TOTAL through a
 * LEFT JOIN and COALESCE(…, 0) (a key without rows reads 0, as the subquery does); the correlation is one or more
 * equalities `inner = outer` and nothing else in the subquery reads the outer query. The grouped derived table
 * has one row per key, so the join never repeats an outer row.
 */
export const aggregateToJoin: RewriteRule = {
  id: 'VL021',
  title: 'correlated aggregate in WHERE as a pre-aggregated join',
  rewrite(context) {
    const { tokens, text } = context;
    const outer = outerQuery(tokens);
    if (!outer?.conjuncts) return [];
    const found: RewriteCandidate[] = [];
    let n = 0;
    for (const conjunct of outer.conjuncts) {
      const comparison = comparisonWith(tokens, conjunct);
      if (!comparison) continue;
      const sub = comparison.subquery;
      const c = sub.clauses;
      if (!sub.conjuncts || c.groupBy !== undefined || c.having !== undefined || c.limit !== undefined || c.orderBy !== undefined) continue;
      // The select list is one aggregate call: AGG( ... ) and nothing else.
      const agg = tokens[c.select + 1];
      const zero = ZERO_ON_EMPTY[agg?.text.toUpperCase() ?? ''];
      if ((!wordIs(agg, ...NULL_ON_EMPTY) && zero === undefined) || tokens[c.select + 2]?.text !== '(') continue;
      const aggClose = closingParen(tokens, c.select + 2);
      if (aggClose + 1 !== c.from) continue;
      const aggSpan: Span = { first: c.select + 1, last: aggClose };
      if (readsOutside(context, aggSpan, sub.names, outer.names)) continue;
      if (onConditions(tokens, c.from!, sub.fromEnd).some((on) => readsOutside(context, on, sub.names, outer.names))) continue;
      const keys = correlationKeys(context, sub.conjuncts, sub.names, outer.names);
      if (!keys?.length) continue;
      n++;
      const alias = `vl_agg${n}`;
      const kept = keptConditions(
        context,
        sub.conjuncts,
        keys.map((k) => k.conjunct),
      );
      const keyList = keys.map((k, i) => `${k.inner} AS vl_k${i + 1}`).join(', ');
      const innerFrom = text.slice(tokens[c.from!].start, tokens[sub.fromEnd - 1].end);
      const derived = `(SELECT ${keyList}, ${spanText(context, aggSpan)} AS vl_value ${innerFrom}${kept.length ? ` WHERE ${kept.join(' AND ')}` : ''} GROUP BY ${keys.map((k) => k.inner).join(', ')})`;
      const on = keys.map((k, i) => `${alias}.vl_k${i + 1} = ${k.outer}`).join(' AND ');
      const other = spanText(context, comparison.other);
      const value = zero === undefined ? `${alias}.vl_value` : `COALESCE(${alias}.vl_value, ${zero})`;
      const compared = comparison.subqueryFirst ? `${value} ${comparison.op} ${other}` : `${other} ${comparison.op} ${value}`;
      const star = pinSelectStar(tokens, outer.clauses, outer.fromEnd);
      if (star === undefined) continue;
      const insertAt = tokens[outer.fromEnd - 1].end;
      // Edits from the end backwards, so earlier offsets stay valid.
      const edits = [
        { start: tokens[conjunct.first].start, end: tokens[conjunct.last].end, text: compared },
        { start: insertAt, end: insertAt, text: ` ${zero === undefined ? '' : 'LEFT '}JOIN ${derived} AS ${alias} ON ${on}` },
        ...(star ? [star] : []),
      ].sort((a, b) => b.start - a.start);
      let sql = text;
      for (const edit of edits) sql = sql.slice(0, edit.start) + edit.text + sql.slice(edit.end);
      found.push({
        sql,
        rule: 'VL021',
        note: `the correlated ${agg.text.toUpperCase()} computed once per key and joined on ${keys.map((k) => k.outer).join(', ')}`,
      });
    }
    return found;
  },
};
