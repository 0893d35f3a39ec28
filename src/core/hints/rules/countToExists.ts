import { clauseEnd, closingParen, conjuncts, findClauses } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { Token } from '../../sql/lexer';
import { inputWording } from '../../text/inputWording';
import { definedNames, fromClauses, selectScope, visibleScopes } from '../../sql/scope';
import { columnRefAt, mayBeNull, resolveColumn } from '../columnReferences';
import { replaceRange, tokenRange } from '../edits';
import { Hint, HintRule, StatementContext } from '../types';

/** Comparison operators as SQLite spells them, by the canonical form the table below uses. */
const SPELLINGS: Record<string, string> = { '=': '=', '==': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

const COMPARE: Record<string, (left: number, right: number) => boolean> = {
  '=': (left, right) => left === right,
  '!=': (left, right) => left !== right,
  '<': (left, right) => left < right,
  '<=': (left, right) => left <= right,
  '>': (left, right) => left > right,
  '>=': (left, right) => left >= right,
};

/**
 * The comparison operator in tokens [first, last], canonical (`<>` → `!=`, `IS` → `=`, `IS NOT` → `!=`: a
 * count is never NULL, so IS compares as `=` does). The lexer splits `>=` into two tokens: they must touch.
 */
function comparisonOperator(tokens: readonly Token[], first: number, last: number): string | undefined {
  const written = tokens.slice(first, last + 1);
  if (wordIs(written[0], 'IS')) {
    if (written.length === 1) return '=';
    return written.length === 2 && wordIs(written[1], 'NOT') ? '!=' : undefined;
  }
  if (!written.length || written.some((t, k) => t.kind !== 'punct' || (k > 0 && written[k - 1].end !== t.start))) return undefined;
  return SPELLINGS[written.map((t) => t.text).join('')];
}

/**
 * What `count <op> literal` asks of a count: whether a row exists, whether none does, or something else. A count
 * is 0, 1 or more; below a literal of 2 every count from 2 up compares as 2 does, and from 2 up 0 and 1 compare
 * alike, so the answers for 0, 1 and 2 decide it (`> 2` asks something else).
 */
function askedOfCount(compare: (count: number) => boolean): 'exists' | 'none' | undefined {
  const answers = [0, 1, 2].map(compare).join();
  return answers === 'false,true,true' ? 'exists' : answers === 'true,false,false' ? 'none' : undefined;
}

/** `COUNT(*)`, or COUNT of a column never NULL here, between tokens `open` and `close` (the COUNT's parentheses). */
function countsEveryRow(context: StatementContext, open: number, close: number): boolean {
  const { tokens, text } = context;
  if (close === open + 2) return tokens[open + 1].text === '*';
  const first = wordIs(tokens[open + 1], 'DISTINCT', 'ALL') ? open + 2 : open + 1;
  const ref = columnRefAt(tokens, first, text);
  if (!ref || ref.last !== close - 1) return false;
  const resolved = resolveColumn(context, ref);
  return resolved !== undefined && !mayBeNull(tokens, ref, resolved);
}

/** A column the subquery in tokens (open, close) reads from an enclosing query, as written (`T1.id`); undefined when it reads none. */
function outerReference(context: StatementContext, open: number, close: number, outerNames: Set<string>): string | undefined {
  const { tokens, text } = context;
  const innerNames = new Set<string>();
  for (const { from, end } of fromClauses(tokens)) {
    if (from > open && from < close) for (const name of definedNames(tokens, from, Math.min(end, close))) innerNames.add(name);
  }
  for (let i = open + 1; i < close; i++) {
    if (tokens[i + 1]?.text !== '.' || tokens[i - 1]?.text === '.') continue;
    const ref = columnRefAt(tokens, i, text);
    const qualifier = ref?.qualifier?.toLowerCase();
    if (qualifier !== undefined && outerNames.has(qualifier) && !innerNames.has(qualifier)) return ref!.text;
  }
  return undefined;
}

/** Lower-case names (tables and aliases) of every FROM item visible at token `i`. */
function visibleNames(tokens: readonly Token[], i: number): Set<string> {
  const names = new Set<string>();
  for (const item of visibleScopes(tokens, i).flat()) {
    if (item.table) names.add(item.table.toLowerCase());
    if (item.alias) names.add(item.alias.toLowerCase());
  }
  return names;
}

/** The parts of a condition written `(SELECT ...) <op> number` or `number <op> (SELECT ...)`, if it is one. */
function subqueryComparison(
  tokens: readonly Token[],
  first: number,
  last: number,
): { open: number; close: number; compare: (count: number) => boolean } | undefined {
  const subqueryFirst = tokens[first].text === '(';
  const literal = subqueryFirst ? tokens[last] : tokens[first];
  const open = subqueryFirst ? first : tokens.findIndex((t, k) => k > first && k <= last && t.text === '(');
  const close = open === -1 ? -1 : closingParen(tokens, open);
  if (literal.kind !== 'number' || !wordIs(tokens[open + 1], 'SELECT') || close === -1) return undefined;
  if (subqueryFirst ? close >= last : close !== last) return undefined;
  const operator = subqueryFirst ? comparisonOperator(tokens, close + 1, last - 1) : comparisonOperator(tokens, first + 1, open - 1);
  const value = Number(literal.text);
  if (!operator || !Number.isFinite(value)) return undefined;
  const compare = COMPARE[operator];
  return { open, close, compare: (count) => (subqueryFirst ? compare(count, value) : compare(value, count)) };
}

/**
 * VL010: a correlated `(SELECT COUNT(*) FROM ... WHERE inner.k = outer.x ...)` compared with 0 in WHERE (`> 0`,
 * `>= 1`, `<> 0`, `0 <`, ...) only asks whether a row exists: `EXISTS (SELECT 1 FROM ...)`; `= 0` (or `< 1`)
 * asks whether none does: `NOT EXISTS`. The count reads every matching row for every outer row; EXISTS may stop
 * at the first. Exactly equivalent: a COUNT without GROUP BY is never NULL and returns one row, so it fires for
 * COUNT(*) or COUNT of a column never NULL here, with no GROUP BY, HAVING, ORDER BY or LIMIT in the subquery,
 * when the comparison is one of a WHERE clause's AND-ed conditions (of any SELECT in the statement).
 */
export const countToExists: HintRule = {
  id: 'VL010',
  title: 'correlated COUNT compared with 0 that can be EXISTS',
  kind: 'speed',
  check(context) {
    const { tokens, text } = context;
    if (!tokens.some((t) => wordIs(t, 'COUNT'))) return [];
    const hints: Omit<Hint, 'rule' | 'title' | 'kind'>[] = [];
    tokens.forEach((token, where) => {
      if (!wordIs(token, 'WHERE')) return;
      const scope = selectScope(tokens, where);
      const outer = findClauses(tokens, scope.start, scope.end);
      if (!outer || outer.where !== where) return;
      for (const { first, last } of conjuncts(tokens, where + 1, clauseEnd(outer, where, scope.end)) ?? []) {
        const comparison = subqueryComparison(tokens, first, last);
        if (!comparison) continue;
        const { open, close } = comparison;
        const asked = askedOfCount(comparison.compare);
        const countOpen = open + 3;
        if (!asked || !wordIs(tokens[open + 2], 'COUNT') || tokens[countOpen]?.text !== '(') continue;
        const countClose = closingParen(tokens, countOpen);
        const inner = findClauses(tokens, open + 1, close);
        if (
          !inner ||
          inner.from !== countClose + 1 ||
          inner.compound ||
          inner.groupBy !== undefined ||
          inner.having !== undefined ||
          inner.orderBy !== undefined ||
          inner.limit !== undefined ||
          !countsEveryRow(context, countOpen, countClose)
        )
          continue;
        const correlation = outerReference(context, open, close, visibleNames(tokens, where));
        if (!correlation) continue; // an uncorrelated subquery runs once, not once per outer row
        const range = tokenRange(tokens, first, last);
        const test = asked === 'none' ? 'NOT EXISTS' : 'EXISTS';
        const exists = `${test} (SELECT 1 ${text.slice(tokens[inner.from].start, tokens[close].end)}`;
        const count = text.slice(tokens[open + 2].start, tokens[countClose].end);
        const written = text.slice(range.start, tokens[open].start) + '(SELECT ...)' + text.slice(tokens[close].end, range.end);
        hints.push({
          message:
            `${written} only asks whether ${asked === 'none' ? 'no' : 'a'} matching row exists, yet ${count} reads every match, ` +
            `once for every outer row (correlated on ${correlation}); ${test} asks the same and may stop at the first. ` +
            `Whether that is faster depends on the plan: ${inputWording().verification} measures it.`,
          range,
          rewrite: { range, text: exists, statement: replaceRange(text, range, exists) },
        });
      }
    });
    return hints;
  },
};
