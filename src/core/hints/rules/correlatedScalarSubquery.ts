import { clauseEnd, closingParen, conjuncts, findClauses } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { definedNames } from '../../sql/scope';
import { selfContained, singleCorrelation } from '../columnReferences';
import { pinSelectStar, tokenRange } from '../edits';
import { Hint, HintRule } from '../types';

const AGGREGATES = ['COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'TOTAL'];

/**
 * VL005: `(SELECT AGG(x) FROM t WHERE t.k = outer.k ...)` in the select list re-runs once per outer row. A
 * LEFT JOIN to `(SELECT k, AGG(x) ... GROUP BY k)` aggregates once; COUNT and TOTAL keep their 0 for keys
 * with no rows through COALESCE.
 */
export const correlatedScalarSubquery: HintRule = {
  id: 'VL005',
  title: 'correlated scalar subquery that can be a pre-aggregated join',
  kind: 'speed',
  check(context) {
    const { tokens, text } = context;
    const outer = findClauses(tokens);
    if (!outer || outer.compound || outer.withClause || outer.from === undefined) return [];
    const fromEnd = clauseEnd(outer, outer.from, tokens.length);
    const outerNames = definedNames(tokens, outer.from, fromEnd);
    const hints: Omit<Hint, 'rule' | 'title' | 'kind'>[] = [];
    let count = 0;
    for (let open = outer.select + 1; open < outer.from; open++) {
      if (tokens[open].text !== '(' || !wordIs(tokens[open + 1], 'SELECT')) continue;
      const close = closingParen(tokens, open);
      const agg = tokens[open + 2];
      if (close < 0 || !wordIs(agg, ...AGGREGATES) || tokens[open + 3]?.text !== '(') continue;
      const aggClose = closingParen(tokens, open + 3);
      const inner = findClauses(tokens, open + 1, close);
      if (
        !inner ||
        inner.from !== aggClose + 1 ||
        inner.where === undefined ||
        inner.compound ||
        inner.groupBy !== undefined ||
        inner.limit !== undefined ||
        inner.orderBy !== undefined
      )
        continue;
      const innerNames = definedNames(tokens, inner.from, inner.where);
      const whereEnd = clauseEnd(inner, inner.where, close);
      const conditions = conjuncts(tokens, inner.where + 1, whereEnd);
      if (!conditions) continue;
      const correlation = singleCorrelation(context, conditions, outerNames, innerNames);
      if (!correlation || !selfContained(context, open + 1, close - 1, innerNames, [correlation.condition])) continue;
      count++;
      const alias = `vl_agg${count}`;
      const aggregate = text.slice(agg.start, tokens[aggClose].end);
      const kept = conditions.filter((c) => c !== correlation!.condition).map((c) => text.slice(tokens[c.first].start, tokens[c.last].end));
      const innerFrom = text.slice(tokens[inner.from].start, tokens[inner.where - 1].end);
      const join = ` LEFT JOIN (SELECT ${correlation.innerSide} AS vl_key, ${aggregate} AS vl_value ${innerFrom}${kept.length ? ` WHERE ${kept.join(' AND ')}` : ''} GROUP BY ${correlation.innerSide}) AS ${alias} ON ${alias}.vl_key = ${correlation.outerSide}`;
      const value = wordIs(agg, 'COUNT')
        ? `COALESCE(${alias}.vl_value, 0)`
        : wordIs(agg, 'TOTAL')
          ? `COALESCE(${alias}.vl_value, 0.0)`
          : `${alias}.vl_value`;
      const insertAt = tokens[fromEnd - 1].end;
      const star = pinSelectStar(tokens, outer, fromEnd);
      if (star === undefined) continue;
      const head =
        star && star.start < tokens[open].start
          ? text.slice(0, star.start) + star.text + text.slice(star.end, tokens[open].start)
          : text.slice(0, tokens[open].start);
      const middle =
        star && star.start > tokens[close].end
          ? text.slice(tokens[close].end, star.start) + star.text + text.slice(star.end, insertAt)
          : text.slice(tokens[close].end, insertAt);
      const statement = head + value + middle + join + text.slice(insertAt);
      hints.push({
        message: `this scalar subquery runs once for every outer row (correlated on ${correlation.outerSide}); aggregating ${aggregate} once per key and joining it avoids the repeats.`,
        range: tokenRange(tokens, open, close),
        rewrite: { range: { start: 0, end: text.length }, text: statement, statement },
      });
      open = close;
    }
    // Several rewrites each start from the original text; offer only the first when there are more.
    return hints.slice(0, 1);
  },
};
