import { closingParen, depths } from '../../sql/clauses';
import { isKeyword, isName, upperWord, wordIs } from '../../sql/keywords';
import { identifierName } from '../../sql/lexer';
import { itemName, resolveColumnAt } from '../../sql/scope';
import { columnRefAt } from '../../hints/columnReferences';
import { StatementContext } from '../../hints/types';
import { onConditions, outerQuery, Span, spanReads, spanText, splitEquality } from './subqueryParts';
import { RewriteCandidate, RewriteRule } from './types';

/** Aggregates whose value a table's duplicated rows do not change. */
const DUPLICATE_BLIND = ['MIN', 'MAX'];

/**
 * VL023: in an aggregate query, a table joined only through its key columns, and read nowhere else but in
 * conditions on its own columns, multiplies every row it joins by how many rows share the key (a fan-out:
 * bonds × atoms of a molecule). Pre-aggregated to `(SELECT k, COUNT(*) AS vl_n FROM t WHERE <its conditions>
 * GROUP BY k)`, it joins one row per key and the counts are weighted by vl_n: COUNT(*) becomes
 * COALESCE(SUM(vl_n), 0), COUNT(e) COALESCE(SUM(CASE WHEN e IS NOT NULL THEN vl_n ELSE 0 END), 0). Proof
 * conditions (docs/rules/VL023.md): inner joins only (no LEFT/RIGHT/FULL), no DISTINCT select and no window
 * function; every aggregate is COUNT(*), COUNT(e), COUNT(DISTINCT e), MIN or MAX (the others would need
 * weighted sums of floats, which round differently); the table's columns are read only as join keys and in
 * conditions that read nothing else (moved into the derived table).
 */
export const preAggregateFanOut: RewriteRule = {
  id: 'VL023',
  title: 'a fanned-out join pre-aggregated before the join',
  rewrite(context) {
    const { tokens, text, schema } = context;
    if (!schema) return [];
    const outer = outerQuery(tokens);
    if (!outer || !outer.conjuncts) return [];
    if (tokens.some((t) => wordIs(t, 'LEFT', 'RIGHT', 'FULL', 'OVER', 'NATURAL', 'USING'))) return [];
    const from = outer.clauses.from!;
    const depth = depths(tokens);
    const base = depth[from];
    // Aggregate calls at this query's level (not in subqueries).
    const calls: { name: string; open: number; close: number }[] = [];
    for (let i = outer.clauses.select; i < tokens.length; i++) {
      if (tokens[i].text === '(' && wordIs(tokens[i + 1], 'SELECT')) {
        i = closingParen(tokens, i); // a nested query's aggregates are its own
        if (i < 0) return [];
        continue;
      }
      if (depth[i] < base || tokens[i + 1]?.text !== '(' || tokens[i].kind !== 'word') continue;
      const name = tokens[i].text.toUpperCase();
      if (!['COUNT', 'SUM', 'AVG', 'TOTAL', 'GROUP_CONCAT', 'STRING_AGG', 'MIN', 'MAX'].includes(name)) continue;
      calls.push({ name, open: i + 1, close: closingParen(tokens, i + 1) });
    }
    if (calls.some((c) => c.close < 0)) return [];
    // Where a joined row's repeats show: in COUNTs (weighted below) and in plain rows (then none may repeat).
    const distinctRows = outer.clauses.distinct !== undefined || (outer.clauses.groupBy !== undefined && calls.length === 0);
    if (outer.clauses.distinct !== undefined && calls.length) return [];
    if (!distinctRows && !calls.length) return [];
    if (calls.some((c) => !['COUNT', ...DUPLICATE_BLIND].includes(c.name))) return [];
    // The table items of the FROM clause, with the token of their name.
    const items: { name: string; written: string; table: string; at: number; end: number }[] = [];
    for (let i = from; i < outer.fromEnd; i++) {
      if (depth[i] !== base || !(wordIs(tokens[i], 'FROM', 'JOIN') || tokens[i].text === ',')) continue;
      const at = i + 1;
      if (!isName(tokens[at]) || isKeyword(tokens[at]) || tokens[at + 1]?.text === '.' || tokens[at + 1]?.text === '(') continue;
      let end = at;
      let alias: string | undefined;
      if (wordIs(tokens[at + 1], 'AS') && isName(tokens[at + 2])) {
        alias = identifierName(tokens[at + 2].text);
        end = at + 2;
      } else if (isName(tokens[at + 1]) && !isKeyword(tokens[at + 1])) {
        alias = identifierName(tokens[at + 1].text);
        end = at + 1;
      }
      const table = identifierName(tokens[at].text);
      items.push({ name: (alias ?? table).toLowerCase(), written: tokens[end].text, table, at, end });
    }
    if (items.length < 2) return [];
    const found: RewriteCandidate[] = [];
    const conditions = [...onConditions(tokens, from, outer.fromEnd).flatMap((on) => splitAnd(context, on)), ...outer.conjuncts];
    for (const item of items) {
      if (!schema.tables.has(item.table.toLowerCase())) continue;
      const own = new Set([item.name]);
      const others = new Set(items.filter((x) => x !== item).map((x) => x.name));
      // Conditions that read only this table move inside; equalities with another table give the keys.
      const keys = new Set<string>();
      const moved: Span[] = [];
      let usable = true;
      for (const condition of conditions) {
        const reads = spanReads(context, condition, own, others);
        if (reads.unknown || reads.nested) {
          if (referencesItem(context, condition, item.name)) usable = false;
          continue;
        }
        if (!reads.inner) continue;
        if (!reads.outer) {
          moved.push(condition);
          continue;
        }
        const sides = splitEquality(tokens, condition);
        const key = sides?.map((side) => spanReads(context, side, own, others)).findIndex((r) => r.inner && !r.outer && !r.unknown);
        const otherSide = key === undefined || key < 0 ? undefined : spanReads(context, sides![1 - key], own, others);
        const keyRef = key === undefined || key < 0 ? undefined : columnRefAt(tokens, sides![key].first, text);
        if (!otherSide || otherSide.inner || !keyRef || keyRef.last !== sides![key!].last) {
          usable = false;
          break;
        }
        keys.add(keyRef.column.toLowerCase());
      }
      if (!usable || keys.size === 0) continue;
      // Elsewhere (select list, GROUP BY, HAVING, ORDER BY, aggregates) the table may be read through its keys only.
      const elsewhere = outsideConditions(context, conditions, outer.clauses.select, tokens.length - 1, from, outer.fromEnd);
      if (elsewhere.some((span) => readsNonKey(context, span, item.name, keys))) continue;
      const alias = item.written;
      const keyList = [...keys].join(', ');
      const derived = `(SELECT ${keyList}, COUNT(*) AS vl_n FROM ${item.table}${moved.length ? ` WHERE ${moved.map((m) => spanText(context, m).replace(new RegExp(`\\b${escapeRegExp(item.name)}\\.`, 'gi'), '')).join(' AND ')}` : ''} GROUP BY ${keyList}) AS ${alias}`;
      // Edits, applied from the end backwards.
      const edits: { start: number; end: number; text: string }[] = [
        { start: tokens[item.at].start, end: tokens[item.end].end, text: derived },
        ...moved.map((m) => withoutConjunct(context, m)),
      ];
      for (const call of calls.filter((c) => c.name === 'COUNT')) {
        if (wordIs(tokens[call.open + 1], 'DISTINCT')) continue;
        const argument = text.slice(tokens[call.open + 1].start, tokens[call.close - 1].end);
        const weighted =
          argument.trim() === '*'
            ? `COALESCE(SUM(${alias}.vl_n), 0)`
            : `COALESCE(SUM(CASE WHEN (${argument}) IS NOT NULL THEN ${alias}.vl_n ELSE 0 END), 0)`;
        edits.push({ start: tokens[call.open - 1].start, end: tokens[call.close].end, text: weighted });
      }
      edits.sort((a, b) => b.start - a.start);
      let sql = text;
      for (const edit of edits) sql = sql.slice(0, edit.start) + edit.text + sql.slice(edit.end);
      found.push({ sql, rule: 'VL023', note: `${item.table} counted once per ${keyList} before the join (COUNTs weighted by it)` });
    }
    return found;
  },
};

/**
 * The edit that removes an AND-ed condition with its AND (the WHERE too when it was the only one; `1` in place of
 * an ON condition that was all of its ON).
 */
function withoutConjunct(context: StatementContext, span: Span): { start: number; end: number; text: string } {
  const { tokens } = context;
  const before = tokens[span.first - 1];
  const after = tokens[span.last + 1];
  if (wordIs(after, 'AND')) return { start: tokens[span.first].start, end: tokens[span.last + 2]?.start ?? after.end, text: '' };
  if (wordIs(before, 'AND')) return { start: before.start, end: tokens[span.last].end, text: '' };
  if (wordIs(before, 'WHERE')) return { start: before.start, end: tokens[span.last].end, text: '' };
  return { start: tokens[span.first].start, end: tokens[span.last].end, text: '1' };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A span's AND-ed parts at its own depth (the whole span when an OR joins them). */
export function splitAnd(context: StatementContext, span: Span): Span[] {
  const { tokens } = context;
  const parts: Span[] = [];
  let depth = 0;
  let start = span.first;
  let between = false;
  for (let i = span.first; i <= span.last; i++) {
    if (tokens[i].text === '(') depth++;
    else if (tokens[i].text === ')') depth--;
    else if (depth === 0 && wordIs(tokens[i], 'OR')) return [span];
    else if (depth === 0 && wordIs(tokens[i], 'BETWEEN')) between = true;
    else if (depth === 0 && wordIs(tokens[i], 'AND')) {
      if (between) {
        between = false;
        continue;
      }
      parts.push({ first: start, last: i - 1 });
      start = i + 1;
    }
  }
  parts.push({ first: start, last: span.last });
  return parts;
}

/** The parts of tokens [first, last] that are neither the FROM clause nor one of the conditions. */
function outsideConditions(
  context: StatementContext,
  conditions: readonly Span[],
  first: number,
  last: number,
  from: number,
  fromEnd: number,
): Span[] {
  const covered = [...conditions, { first: from, last: fromEnd - 1 }].sort((a, b) => a.first - b.first);
  const spans: Span[] = [];
  let at = first;
  for (const c of covered) {
    if (c.first > at) spans.push({ first: at, last: c.first - 1 });
    at = Math.max(at, c.last + 1);
  }
  if (at <= last) spans.push({ first: at, last });
  return spans.filter((s) => s.first <= s.last && s.last < context.tokens.length);
}

/** True when the span names the item (qualified) anywhere. */
function referencesItem(context: StatementContext, span: Span, name: string): boolean {
  const { tokens } = context;
  for (let i = span.first; i < span.last; i++)
    if (tokens[i + 1].text === '.' && isName(tokens[i]) && identifierName(tokens[i].text).toLowerCase() === name) return true;
  return false;
}

/** True when the span reads a column of the item other than its keys (or a `*` of it, or a name not placed). */
function readsNonKey(context: StatementContext, span: Span, name: string, keys: Set<string>): boolean {
  const { tokens, text, schema } = context;
  for (let i = span.first; i <= span.last; i++) {
    // `*` as a select item or `<name>.*` reads every column; `a * b` and COUNT(*) do not.
    if (tokens[i].text === '*') {
      const before = tokens[i - 1];
      if (before?.text === '.' && identifierName(tokens[i - 2]?.text ?? '').toLowerCase() === name) return true;
      if (before?.text === ',' || wordIs(before, 'SELECT', 'DISTINCT', 'ALL')) return true;
      continue;
    }
    if (wordIs(tokens[i - 1], 'AS', 'COLLATE') || tokens[i - 1]?.text === '.') continue;
    const ref = columnRefAt(tokens, i, text);
    if (!ref) continue;
    i = ref.last;
    if (ref.qualifier !== undefined) {
      if (ref.qualifier.toLowerCase() === name && !keys.has(ref.column.toLowerCase())) return true;
      continue;
    }
    if (upperWord(tokens[ref.first]) === 'NULL') continue;
    const resolved = schema ? resolveColumnAt(schema, tokens, ref.first, undefined, ref.column) : undefined;
    if (!resolved) {
      // An output alias (ORDER BY n) or an unknown name: unsafe only if the item's table has that column.
      const table = schema?.tables.get(name) ?? undefined;
      if (table?.columns.some((c) => c.name.toLowerCase() === ref.column.toLowerCase())) return true;
      continue;
    }
    if (itemName(resolved.item)?.toLowerCase() === name && !keys.has(ref.column.toLowerCase())) return true;
  }
  return false;
}
