import { clauseEnd, Clauses, closingParen, conjuncts, findClauses } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { Token } from '../../sql/lexer';
import { definedNames } from '../../sql/scope';
import { selfContained, singleCorrelation } from '../columnReferences';
import { pinSelectStar, tokenRange, withoutCondition } from '../edits';
import { Hint, HintRule } from '../types';

/** Builds the statement with one WHERE condition removed, a join added after the FROM clause, and `*` pinned. */
function rewriteWithJoin(
  text: string,
  tokens: readonly Token[],
  outer: Clauses,
  where: number,
  whereEnd: number,
  condition: { first: number; last: number },
  join: string,
): string | undefined {
  const star = pinSelectStar(tokens, outer, where);
  if (star === undefined) return undefined;
  const removed = withoutCondition(tokens, where, whereEnd, condition.first, condition.last);
  const fromEnd = tokens[where - 1].end;
  const head = star ? text.slice(0, star.start) + star.text + text.slice(star.end, fromEnd) : text.slice(0, fromEnd);
  return (head + join + text.slice(fromEnd, removed.start) + text.slice(removed.end)).trimEnd();
}

/**
 * VL001: a semi-join written as a correlated `EXISTS (SELECT ... WHERE inner.k = outer.x)` → an INNER JOIN with a
 * de-duplicated derived table. The DISTINCT keeps each outer row at most once, as the semi-join did. A correlated
 * EXISTS re-runs its subquery for every outer row; the join runs it once. A plain uncorrelated `x IN (SELECT ...)`
 * is left alone: SQLite already runs it once into an ephemeral index, and the join measured slower in all 9 of
 * its slower verdicts (issue 34, down to 0.44×).
 */
export const semiJoinToJoin: HintRule = {
  id: 'VL001',
  title: 'correlated EXISTS subquery that can be a JOIN',
  kind: 'speed',
  check(context) {
    const { tokens, text } = context;
    const outer = findClauses(tokens);
    if (!outer || outer.compound || outer.withClause || outer.from === undefined || outer.where === undefined) return [];
    const where = outer.where;
    const whereEnd = clauseEnd(outer, where, tokens.length);
    const conditions = conjuncts(tokens, where + 1, whereEnd);
    if (!conditions) return [];
    const outerNames = definedNames(tokens, outer.from, where);
    const hints: Omit<Hint, 'rule' | 'title' | 'kind'>[] = [];
    conditions.forEach((condition, n) => {
      const { first, last } = condition;
      const alias = `vl_semi${n + 1}`;
      // EXISTS (SELECT ... FROM inner WHERE inner.k = outer.x [AND inner-only conditions])
      if (
        !wordIs(tokens[first], 'EXISTS') ||
        tokens[first + 1]?.text !== '(' ||
        closingParen(tokens, first + 1) !== last ||
        wordIs(tokens[first - 1], 'NOT')
      )
        return;
      const inner = findClauses(tokens, first + 2, last);
      if (
        !inner ||
        inner.from === undefined ||
        inner.where === undefined ||
        inner.compound ||
        inner.groupBy !== undefined ||
        inner.limit !== undefined
      )
        return;
      const innerWhereEnd = clauseEnd(inner, inner.where, last);
      const innerNames = definedNames(tokens, inner.from, inner.where);
      const innerConditions = conjuncts(tokens, inner.where + 1, innerWhereEnd);
      if (!innerConditions) return;
      const correlation = singleCorrelation(context, innerConditions, outerNames, innerNames);
      if (!correlation || !selfContained(context, first + 2, last - 1, innerNames, [correlation.condition])) return;
      const kept = innerConditions
        .filter((c) => c !== correlation.condition)
        .map((c) => text.slice(tokens[c.first].start, tokens[c.last].end));
      const innerFrom = text.slice(tokens[inner.from].start, tokens[inner.where - 1].end);
      const tail = innerWhereEnd < last ? ` ${text.slice(tokens[innerWhereEnd].start, tokens[last - 1].end)}` : '';
      const join = ` INNER JOIN (SELECT DISTINCT ${correlation.innerSide} AS vl_key ${innerFrom}${kept.length ? ` WHERE ${kept.join(' AND ')}` : ''}${tail}) AS ${alias} ON ${alias}.vl_key = ${correlation.outerSide}`;
      const statement = rewriteWithJoin(text, tokens, outer, where, whereEnd, condition, join);
      if (!statement) return;
      hints.push({
        message: `this correlated EXISTS re-runs its subquery for every outer row; joining the de-duplicated subquery on ${correlation.outerSide} runs it once.`,
        range: tokenRange(tokens, first, last),
        rewrite: { range: { start: 0, end: text.length }, text: statement, statement },
      });
    });
    return hints;
  },
};
