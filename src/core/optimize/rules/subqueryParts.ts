/**
 * The parts of a statement that the optimizer's subquery rules take apart: the outer SELECT's top-level WHERE
 * conjuncts, each subquery standing in one of them (EXISTS, IN, or a comparison with a scalar subquery), the
 * subquery's own clauses and conjuncts, and which query each column reference of a conjunct reads (the
 * subquery's own tables, the outer query's, or neither for sure), resolved as SQLite resolves names.
 */
import { Clauses, clauseEnd, closingParen, conjuncts, findClauses } from '../../sql/clauses';
import { upperWord, wordIs } from '../../sql/keywords';
import { Token } from '../../sql/lexer';
import { definedNames, fromClauseEnd, itemName, resolveColumnAt } from '../../sql/scope';
import { columnRefAt } from '../../hints/columnReferences';
import { StatementContext } from '../../hints/types';

/** A token range, inclusive at both ends. */
export interface Span {
  first: number;
  last: number;
}

/** The outer (top-level) simple SELECT of a statement, when it is one: no compound, no WITH. */
export interface OuterQuery {
  clauses: Clauses;
  /** First token after the FROM clause. */
  fromEnd: number;
  /** Lower-case names its FROM clause defines (tables and aliases). */
  names: Set<string>;
  /** Its top-level WHERE conjuncts (empty without a WHERE); undefined when an OR joins them at the top. */
  conjuncts?: Span[];
  whereEnd?: number;
}

export function outerQuery(tokens: readonly Token[]): OuterQuery | undefined {
  const clauses = findClauses(tokens);
  if (!clauses || clauses.compound || clauses.withClause || clauses.from === undefined) return undefined;
  const fromEnd = fromClauseEnd(tokens, clauses.from);
  const names = definedNames(tokens, clauses.from, fromEnd);
  if (clauses.where === undefined) return { clauses, fromEnd, names, conjuncts: [] };
  const whereEnd = clauseEnd(clauses, clauses.where, tokens.length);
  return { clauses, fromEnd, names, conjuncts: conjuncts(tokens, clauses.where + 1, whereEnd), whereEnd };
}

/** A subquery in parentheses: its `(` and `)` token indexes and its own clauses. */
export interface Subquery {
  open: number;
  close: number;
  clauses: Clauses;
  /** First token after its FROM clause. */
  fromEnd: number;
  /** Lower-case names its FROM clause defines. */
  names: Set<string>;
  /** Its WHERE conjuncts (empty without a WHERE); undefined when an OR joins them. */
  conjuncts?: Span[];
  whereEnd?: number;
}

export function subqueryAt(tokens: readonly Token[], open: number): Subquery | undefined {
  if (tokens[open]?.text !== '(' || !wordIs(tokens[open + 1], 'SELECT')) return undefined;
  const close = closingParen(tokens, open);
  if (close < 0) return undefined;
  const clauses = findClauses(tokens, open + 1, close);
  if (!clauses || clauses.compound || clauses.from === undefined) return undefined;
  const fromEnd = fromClauseEnd(tokens, clauses.from, close);
  const names = definedNames(tokens, clauses.from, fromEnd);
  if (clauses.where === undefined) return { open, close, clauses, fromEnd, names, conjuncts: [] };
  const whereEnd = clauseEnd(clauses, clauses.where, close);
  return { open, close, clauses, fromEnd, names, conjuncts: conjuncts(tokens, clauses.where + 1, whereEnd), whereEnd };
}

/** Which query the column references of a span read. */
export interface SpanReads {
  inner: boolean;
  outer: boolean;
  /** A reference that could not be placed for certain (no schema, ambiguous, a subquery's output...). */
  unknown: boolean;
  /** A nested SELECT inside the span: its references are not followed. */
  nested: boolean;
}

/**
 * Which FROM names each column reference in tokens [span] reads: `innerNames` (the subquery's own FROM) or
 * `outerNames` (the query around it). Unqualified names are placed through the schema, as SQLite does: a
 * column the subquery's tables lack is read from the outer query ("outer-bound").
 */
export function spanReads(context: StatementContext, span: Span, innerNames: Set<string>, outerNames: Set<string>): SpanReads {
  const { tokens, text, schema } = context;
  const reads: SpanReads = { inner: false, outer: false, unknown: false, nested: false };
  for (let i = span.first; i <= span.last; i++) {
    if (tokens[i].text === '(' && wordIs(tokens[i + 1], 'SELECT')) {
      reads.nested = true;
      const close = closingParen(tokens, i);
      if (close < 0 || close > span.last) return { ...reads, unknown: true };
      i = close;
      continue;
    }
    if (wordIs(tokens[i - 1], 'AS', 'COLLATE') || tokens[i - 1]?.text === '.') continue;
    // CAST(x AS type): the type's words are not columns; nor are the words of a CASE or a literal keyword.
    const ref = columnRefAt(tokens, i, text);
    if (!ref) continue;
    i = ref.last;
    if (
      ['NULL', 'TRUE', 'FALSE', 'CURRENT_DATE', 'CURRENT_TIME', 'CURRENT_TIMESTAMP'].includes(upperWord(tokens[ref.first])) &&
      !ref.qualifier
    )
      continue;
    let name: string | undefined;
    if (ref.qualifier !== undefined) {
      name = ref.qualifier.toLowerCase();
      // A qualifier both queries define reads the nearest, the subquery's.
      if (!innerNames.has(name) && !outerNames.has(name)) reads.unknown = true;
      else if (innerNames.has(name)) reads.inner = true;
      else reads.outer = true;
      continue;
    }
    const resolved = schema ? resolveColumnAt(schema, tokens, ref.first, undefined, ref.column) : undefined;
    name = resolved ? itemName(resolved.item)?.toLowerCase() : undefined;
    if (name === undefined) reads.unknown = true;
    else if (innerNames.has(name)) reads.inner = true;
    else if (outerNames.has(name)) reads.outer = true;
    else reads.unknown = true;
  }
  return reads;
}

/** The text of tokens [first, last]. */
export const spanText = (context: StatementContext, span: Span): string =>
  context.text.slice(context.tokens[span.first].start, context.tokens[span.last].end);

/** The text of a subquery's WHERE conjuncts other than `dropped`, AND-ed (empty when none is left). */
export function keptConditions(context: StatementContext, all: readonly Span[], dropped: readonly Span[]): string[] {
  return all.filter((c) => !dropped.includes(c)).map((c) => spanText(context, c));
}

/** A top-level WHERE conjunct of the outer query that is `[NOT] EXISTS (subquery)`. */
export function existsIn(tokens: readonly Token[], conjunct: Span): { negated: boolean; subquery: Subquery } | undefined {
  let at = conjunct.first;
  const negated = wordIs(tokens[at], 'NOT');
  if (negated) at++;
  if (!wordIs(tokens[at], 'EXISTS')) return undefined;
  const subquery = subqueryAt(tokens, at + 1);
  return subquery && subquery.close === conjunct.last ? { negated, subquery } : undefined;
}

/** Aggregates that return NULL over no rows (so "no rows for this key" drops the outer row in a NULL-rejecting comparison). */
export const NULL_ON_EMPTY = ['MAX', 'MIN', 'SUM', 'AVG'];

/** Comparison operators that are false or NULL (never true) when either side is NULL. */
export const NULL_REJECTING = new Set(['=', '==', '<', '>', '<=', '>=', '<>', '!=']);

/**
 * A top-level WHERE conjunct `<left> <op> (SELECT ...)` (or the subquery on the left): the operator, the other
 * side's span and the subquery.
 */
export function comparisonWith(
  tokens: readonly Token[],
  conjunct: Span,
): { op: string; other: Span; subquery: Subquery; subqueryFirst: boolean } | undefined {
  // Operators are single punctuation tokens or two in a row (<=, >=, <>, !=, ==).
  const opAt = (i: number): { op: string; width: number } | undefined => {
    const a = tokens[i]?.text;
    const b = tokens[i + 1]?.text;
    if (a && b && NULL_REJECTING.has(a + b) && tokens[i].end === tokens[i + 1].start) return { op: a + b, width: 2 };
    return a && NULL_REJECTING.has(a) ? { op: a, width: 1 } : undefined;
  };
  if (tokens[conjunct.last].text === ')') {
    // <left> <op> (SELECT ...)
    let open = conjunct.last;
    for (let depth = 0; open >= conjunct.first; open--) {
      if (tokens[open].text === ')') depth++;
      else if (tokens[open].text === '(' && --depth === 0) break;
    }
    const subquery = subqueryAt(tokens, open);
    if (subquery && subquery.close === conjunct.last) {
      for (const width of [2, 1]) {
        const op = opAt(open - width);
        if (op && op.width === width && open - width - 1 >= conjunct.first)
          return { op: op.op, other: { first: conjunct.first, last: open - width - 1 }, subquery, subqueryFirst: false };
      }
    }
  }
  if (tokens[conjunct.first].text === '(') {
    const subquery = subqueryAt(tokens, conjunct.first);
    const op = subquery ? opAt(subquery.close + 1) : undefined;
    if (subquery && op && subquery.close + op.width < conjunct.last)
      return { op: op.op, other: { first: subquery.close + 1 + op.width, last: conjunct.last }, subquery, subqueryFirst: true };
  }
  return undefined;
}

/** The text of the statement with tokens [first, last] replaced. */
export function replaceSpan(context: StatementContext, span: Span, replacement: string): string {
  const { text, tokens } = context;
  return text.slice(0, tokens[span.first].start) + replacement + text.slice(tokens[span.last].end);
}

/** `a = b` at the span's own depth (one `=` or `==`, no other top-level comparison): the two sides. */
export function splitEquality(tokens: readonly Token[], span: Span): [Span, Span] | undefined {
  let depth = 0;
  let at = -1;
  let width = 1;
  for (let i = span.first; i <= span.last; i++) {
    const t = tokens[i].text;
    if (t === '(') depth++;
    else if (t === ')') depth--;
    else if (
      depth === 0 &&
      (t === '=' || t === '<' || t === '>' || t === '!' || wordIs(tokens[i], 'AND', 'OR', 'IS', 'IN', 'LIKE', 'BETWEEN', 'NOT'))
    ) {
      if (t !== '=' || at !== -1) return undefined;
      at = i;
      if (tokens[i + 1]?.text === '=' && tokens[i + 1].start === tokens[i].end) {
        width = 2;
        i++;
      }
    }
  }
  if (at <= span.first || at + width > span.last) return undefined;
  return [
    { first: span.first, last: at - 1 },
    { first: at + width, last: span.last },
  ];
}

/** The ON conditions of a FROM clause's joins (tokens [from, fromEnd)), each up to the next join. */
export function onConditions(tokens: readonly Token[], from: number, fromEnd: number): Span[] {
  const spans: Span[] = [];
  let depth = 0;
  let start = -1;
  const close = (end: number) => {
    if (start !== -1 && end >= start) spans.push({ first: start, last: end });
    start = -1;
  };
  for (let i = from + 1; i < fromEnd; i++) {
    const t = tokens[i].text;
    if (t === '(') depth++;
    else if (t === ')') depth--;
    if (depth !== 0) continue;
    if (wordIs(tokens[i], 'ON')) {
      close(i - 1);
      start = i + 1;
    } else if (t === ',' || wordIs(tokens[i], 'JOIN', 'LEFT', 'RIGHT', 'FULL', 'INNER', 'CROSS', 'NATURAL', 'USING')) close(i - 1);
  }
  close(fromEnd - 1);
  return spans;
}

/** True when a span reads the outer query or something not placed for certain. */
export function readsOutside(context: StatementContext, span: Span, innerNames: Set<string>, outerNames: Set<string>): boolean {
  const reads = spanReads(context, span, innerNames, outerNames);
  return reads.outer || reads.unknown;
}

/**
 * The conjuncts `<inner> = <outer>` that tie a subquery to the outer query, when every other conjunct reads the
 * subquery's own tables only; undefined when some other conjunct reaches outside.
 */
export function correlationKeys(
  context: StatementContext,
  conjuncts: readonly Span[],
  innerNames: Set<string>,
  outerNames: Set<string>,
): { conjunct: Span; inner: string; outer: string }[] | undefined {
  const keys: { conjunct: Span; inner: string; outer: string }[] = [];
  for (const conjunct of conjuncts) {
    const reads = spanReads(context, conjunct, innerNames, outerNames);
    if (reads.unknown) return undefined;
    if (!reads.outer) continue;
    const sides = splitEquality(context.tokens, conjunct);
    if (!sides) return undefined;
    const [left, right] = sides.map((side) => spanReads(context, side, innerNames, outerNames));
    if (left.nested || right.nested || left.unknown || right.unknown) return undefined;
    if (left.inner && !left.outer && right.outer && !right.inner)
      keys.push({ conjunct, inner: spanText(context, sides[0]), outer: spanText(context, sides[1]) });
    else if (right.inner && !right.outer && left.outer && !left.inner)
      keys.push({ conjunct, inner: spanText(context, sides[1]), outer: spanText(context, sides[0]) });
    else return undefined;
  }
  return keys;
}
