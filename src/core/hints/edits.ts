import { Clauses, depths } from '../sql/clauses';
import { upperWord } from '../sql/keywords';
import { Token } from '../sql/lexer';
import { fromItems } from '../sql/scope';
import { Range } from './types';

/** Range covering tokens a..b (inclusive), in statement-relative offsets. */
export function tokenRange(tokens: readonly Token[], a: number, b: number): Range {
  return { start: tokens[a].start, end: tokens[b].end };
}

/** Replaces a range of the statement text. */
export function replaceRange(text: string, range: Range, replacement: string): string {
  return text.slice(0, range.start) + replacement + text.slice(range.end);
}

/**
 * When a join is added to a query, a bare `*` in its select list would gain the joined columns. Returns the
 * edit that pins it to the original FROM items (`*` → `T1.*, T2.*`), nothing when there is no bare `*`, or
 * undefined when a FROM item has no name to pin it to.
 */
export function pinSelectStar(
  tokens: readonly Token[],
  c: Clauses,
  fromEnd: number,
): { start: number; end: number; text: string } | null | undefined {
  if (c.from === undefined) return undefined;
  const from = c.from;
  const depth = depths(tokens);
  // A select item on its own: after SELECT / DISTINCT / ALL or a comma, before a comma or FROM (not `a * b`).
  const isItem = (i: number) => {
    const before = tokens[i - 1];
    const after = tokens[i + 1];
    return (
      (before?.text === ',' || ['SELECT', 'DISTINCT', 'ALL'].includes(upperWord(before))) &&
      (after?.text === ',' || upperWord(after) === 'FROM')
    );
  };
  const star = tokens.findIndex((t, i) => i > c.select && i < from && t.text === '*' && depth[i] === depth[c.select] && isItem(i));
  if (star === -1) return null;
  const items = fromItems(tokens, from, fromEnd);
  if (items.some((item) => !item.alias && !item.table)) return undefined;
  return { start: tokens[star].start, end: tokens[star].end, text: items.map((item) => `${item.alias ?? item.table}.*`).join(', ') };
}

/**
 * The text of a statement with the conditions [first..last] removed from its WHERE clause, AND and all;
 * the whole WHERE goes when it was the only condition.
 */
export function withoutCondition(tokens: readonly Token[], where: number, whereEnd: number, first: number, last: number): Range {
  if (first === where + 1 && last === whereEnd - 1) return { start: tokens[where].start, end: tokens[last].end };
  if (upperWord(tokens[last + 1]) === 'AND' && last + 2 < whereEnd) return { start: tokens[first].start, end: tokens[last + 2].start };
  return { start: tokens[first - 1].start, end: tokens[last].end }; // the AND before it
}
