import { ColumnInfo, TableInfo } from '../db/schema';
import { isKeyword, isName, wordIs } from '../sql/keywords';
import { identifierName, Token } from '../sql/lexer';
import { outerJoinNullable, ResolvedColumn, resolveColumnAt, tableAliases } from '../sql/scope';
import { StatementContext } from './types';

/** A column reference as written in a statement's tokens. */
export interface ColumnRef {
  /** Token indexes of the reference, inclusive. */
  first: number;
  last: number;
  qualifier?: string;
  column: string;
  text: string;
}

/** A column reference (`col`, `t.col`, `"t"."col"`) starting at token `i`, if there is one. */
export function columnRefAt(tokens: readonly Token[], i: number, text: string): ColumnRef | undefined {
  const a = tokens[i];
  if (!isName(a) || isKeyword(a)) return undefined;
  if (tokens[i + 1]?.text === '(') return undefined; // a function call
  const b = tokens[i + 2];
  if (tokens[i + 1]?.text === '.' && isName(b)) {
    return { first: i, last: i + 2, qualifier: identifierName(a.text), column: identifierName(b.text), text: text.slice(a.start, b.end) };
  }
  return { first: i, last: i, column: identifierName(a.text), text: text.slice(a.start, a.end) };
}

/** The column reference ending at token `last` (read backwards), if there is one. */
export function columnRefEndingAt(tokens: readonly Token[], last: number, text: string): ColumnRef | undefined {
  if (tokens[last - 1]?.text === '.') return columnRefAt(tokens, last - 2, text);
  const ref = columnRefAt(tokens, last, text);
  return ref && ref.last === last ? ref : undefined;
}

export const isLiteralToken = (token: Token | undefined) => token?.kind === 'string' || token?.kind === 'number';

/** The table and column a reference reads, in the scope where it stands (undefined without a schema or if unsure). */
export function resolveColumn(context: StatementContext, ref: ColumnRef): ResolvedColumn | undefined {
  return context.schema ? resolveColumnAt(context.schema, context.tokens, ref.first, ref.qualifier, ref.column) : undefined;
}

/** True when a column can never hold NULL: NOT NULL, or the rowid alias. */
export function neverNull(table: TableInfo, column: ColumnInfo): boolean {
  return column.notNull || table.rowidColumn?.toLowerCase() === column.name.toLowerCase();
}

/**
 * True when a reference may read NULL in the statement the tokens hold: the schema allows NULL, or an outer
 * join can fill its table's side with NULLs (`FROM superhero T1 LEFT JOIN publisher T2`: T2.id is NULL for
 * heroes without a publisher, though the column is NOT NULL).
 */
export function mayBeNull(tokens: readonly Token[], ref: ColumnRef, resolved: ResolvedColumn): boolean {
  if (!neverNull(resolved.table, resolved.column) || resolved.item.nullable) return true;
  const { names, tables } = outerJoinNullable(tokens);
  return ref.qualifier !== undefined ? names.has(ref.qualifier.toLowerCase()) : tables.has(resolved.table.name.toLowerCase());
}

/**
 * True when every column the tokens [first, last] reference belongs to a table they name themselves: no
 * hidden correlation with an outer query (`WHERE element IN (...)` where element is the outer table's). An
 * unqualified column needs the schema to be placed; without one the answer is no. `skip` leaves out token
 * ranges (the correlation condition a rule handles itself).
 */
export function selfContained(
  context: StatementContext,
  first: number,
  last: number,
  names: Set<string>,
  skip: { first: number; last: number }[] = [],
): boolean {
  const { tokens, text, schema } = context;
  const columns = new Set<string>();
  if (schema) {
    const own = tableAliases(
      text.slice(tokens[first].start, tokens[last].end),
      [...schema.tables.values()].map((t) => t.name),
    );
    for (const name of names) {
      const table = schema.tables.get((own.get(name) ?? name).toLowerCase());
      for (const c of table?.columns ?? []) columns.add(c.name.toLowerCase());
    }
  }
  for (let i = first; i <= last; i++) {
    if (skip.some((r) => i >= r.first && i <= r.last)) continue;
    if (wordIs(tokens[i - 1], 'AS', 'COLLATE') || tokens[i - 1]?.text === '.') continue;
    const ref = columnRefAt(tokens, i, text);
    if (!ref) continue;
    i = ref.last;
    if (ref.qualifier !== undefined) {
      if (!names.has(ref.qualifier.toLowerCase())) return false;
    } else if (!names.has(ref.column.toLowerCase()) && !columns.has(ref.column.toLowerCase())) {
      return false;
    }
  }
  return true;
}

export interface Correlation {
  /** The condition that ties the subquery to the outer query. */
  condition: { first: number; last: number };
  /** Its subquery side (`T2.hero_id`) and its outer side (`T1.id`), as written. */
  innerSide: string;
  outerSide: string;
}

/**
 * The single `inner.col = outer.col` equality among a subquery's AND-ed conditions, when that is its only tie
 * to the outer query (`outerNames` less `innerNames` are the outer query's tables and aliases). Undefined when
 * there is none, more than one, or another condition reaches outside too.
 */
export function singleCorrelation(
  context: StatementContext,
  conditions: readonly { first: number; last: number }[],
  outerNames: Set<string>,
  innerNames: Set<string>,
): Correlation | undefined {
  const { tokens, text } = context;
  const isOuter = (q?: string) => q !== undefined && outerNames.has(q.toLowerCase()) && !innerNames.has(q.toLowerCase());
  let correlation: Correlation | undefined;
  for (const c of conditions) {
    const left = columnRefAt(tokens, c.first, text);
    const right = columnRefEndingAt(tokens, c.last, text);
    const equality = left && right && tokens[left.last + 1]?.text === '=' && right.first === left.last + 2;
    let pair: [ColumnRef, ColumnRef] | undefined;
    if (equality && isOuter(left.qualifier) && !isOuter(right.qualifier)) pair = [right, left];
    else if (equality && isOuter(right.qualifier) && !isOuter(left.qualifier)) pair = [left, right];
    if (pair && !correlation && pair[0].qualifier !== undefined) {
      correlation = { condition: c, innerSide: pair[0].text, outerSide: pair[1].text };
      continue;
    }
    for (let i = c.first; i < c.last; i++) {
      if (tokens[i + 1].text === '.' && isName(tokens[i]) && isOuter(identifierName(tokens[i].text))) return undefined;
    }
    if (pair) return undefined; // a second correlation
  }
  return correlation;
}
