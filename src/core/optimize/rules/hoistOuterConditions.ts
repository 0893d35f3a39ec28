import { wordIs } from '../../sql/keywords';
import { comparisonWith, existsIn, NULL_ON_EMPTY, outerQuery, Span, spanReads, spanText, Subquery, subqueryAt } from './subqueryParts';
import { RewriteCandidate, RewriteRule } from './types';
import { StatementContext } from '../../hints/types';
import { closingParen } from '../../sql/clauses';

/**
 * VL022: a condition inside a subquery that reads only the outer query (often a column the subquery's table
 * lacks, which SQLite silently reads from the outer row) makes the subquery correlated: it runs once per outer
 * row. Moved out to the outer WHERE, the subquery no longer depends on the outer row and runs once. Proof
 * conditions (docs/rules/VL022.md): the subquery stands in a top-level AND-ed condition of the outer WHERE as
 * `EXISTS (…)`, `x IN (…)` or `x <op> (SELECT MAX|MIN|SUM|AVG(…) …)` with a NULL-rejecting operator; then when the
 * moved condition is false or NULL the subquery is empty (false, or a NULL aggregate), dropping the row in both
 * forms, and when it is true it filters nothing. A moved condition already among the outer conditions is dropped.
 */
export const hoistOuterConditions: RewriteRule = {
  id: 'VL022',
  title: 'condition on the outer row moved out of a subquery',
  rewrite(context) {
    const { tokens, text } = context;
    const outer = outerQuery(tokens);
    if (!outer?.conjuncts || outer.clauses.where === undefined) return [];
    const outerTexts = new Set(outer.conjuncts.map((c) => normalized(spanText(context, c))));
    const found: RewriteCandidate[] = [];
    for (const conjunct of outer.conjuncts) {
      const sub = movableSubquery(context, conjunct);
      if (!sub?.conjuncts?.length || sub.clauses.where === undefined) continue;
      const moved = sub.conjuncts.filter((c) => {
        const reads = spanReads(context, c, sub.names, outer.names);
        return reads.outer && !reads.inner && !reads.unknown && !reads.nested;
      });
      if (!moved.length) continue;
      const kept = sub.conjuncts.filter((c) => !moved.includes(c));
      const whereStart = tokens[sub.clauses.where].start;
      const whereEnd = tokens[sub.whereEnd! - 1].end;
      const newWhere = kept.length ? `WHERE ${kept.map((c) => spanText(context, c)).join(' AND ')}` : '';
      const conjunctText =
        text.slice(tokens[conjunct.first].start, whereStart) + newWhere + text.slice(whereEnd, tokens[conjunct.last].end);
      const hoisted = moved.map((c) => spanText(context, c)).filter((c) => !outerTexts.has(normalized(c)));
      const replacement = [...hoisted.map((c) => `(${c})`), conjunctText.trim()].join(' AND ');
      const sql = text.slice(0, tokens[conjunct.first].start) + replacement + text.slice(tokens[conjunct.last].end);
      found.push({
        sql,
        rule: 'VL022',
        note: `${moved.map((c) => spanText(context, c)).join(' AND ')} reads only the outer row: ${hoisted.length ? 'moved to the outer WHERE' : 'already an outer condition, dropped'}, so the subquery runs once`,
      });
    }
    return found;
  },
};

const normalized = (sql: string) => sql.replace(/\s+/g, ' ').trim().toLowerCase();

/** The subquery of a top-level conjunct in one of the forms where an outer-only condition may move out. */
function movableSubquery(context: StatementContext, conjunct: Span): Subquery | undefined {
  const { tokens } = context;
  const exists = existsIn(tokens, conjunct);
  if (exists) return exists.negated ? undefined : exists.subquery;
  // x IN (SELECT …), not negated.
  if (tokens[conjunct.last].text === ')') {
    let open = conjunct.last;
    for (let depth = 0; open >= conjunct.first; open--) {
      if (tokens[open].text === ')') depth++;
      else if (tokens[open].text === '(' && --depth === 0) break;
    }
    if (wordIs(tokens[open - 1], 'IN') && !wordIs(tokens[open - 2], 'NOT') && open - 2 >= conjunct.first) {
      const sub = subqueryAt(tokens, open);
      if (sub && sub.close === conjunct.last && sub.clauses.limit === undefined) return sub;
    }
  }
  const comparison = comparisonWith(tokens, conjunct);
  if (!comparison) return undefined;
  const sub = comparison.subquery;
  const agg = tokens[sub.clauses.select + 1];
  if (!wordIs(agg, ...NULL_ON_EMPTY) || tokens[sub.clauses.select + 2]?.text !== '(') return undefined;
  if (closingParen(tokens, sub.clauses.select + 2) + 1 !== sub.clauses.from) return undefined;
  if (sub.clauses.groupBy !== undefined || sub.clauses.limit !== undefined) return undefined;
  return sub;
}
