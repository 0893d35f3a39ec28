import { SchemaInfo, TableInfo } from '../db/schema';
import { Node, parseSql } from '../sql/ast';

/**
 * Equivalence where it can be proved from the SQL and the schema alone. `equivalent`: the two queries return
 * the same set of rows (what EX compares) on every database with this schema, for the reason given;
 * `agrees_on_this_data`: they agree on this database and nothing more is claimed.
 *
 * The subset decided: both queries are rewritten to one normal form and compared. The normal form resolves
 * aliases to table names and unqualified columns to their table (schema), treats inner joins and comma joins
 * as a set of tables with their ON and WHERE conditions as one set of conjuncts, orders the operands of AND,
 * OR, =, <>, + and * and turns a > b into b < a (not where a column declares a collation, which would make
 * the left operand's win), writes COUNT(col) on a NOT NULL column of an inner-joined table as COUNT(*),
 * COUNT(DISTINCT key) on a single table's unique key as COUNT(key), drops output names, DISTINCT, ORDER BY and
 * the order of GROUP BY keys at the top level when there is no LIMIT (EX compares sets of rows), and drops a
 * DISTINCT whose output holds a NOT NULL unique key of its only table. Compound queries, WITH and subqueries
 * in FROM are outside it (they stay "agrees on this data"), as is anything node-sql-parser cannot read.
 */
export interface EquivalenceVerdict {
  verdict: 'equivalent' | 'agrees_on_this_data';
  reason: string;
}

class Unsupported extends Error {}

interface ScopeItem {
  /** The canonical name: depth and table, numbered when a table appears twice in one FROM. */
  canonical: string;
  names: string[];
  table: TableInfo;
  nullable: boolean;
}

interface Context {
  schema: SchemaInfo;
  scopes: ScopeItem[][];
  rules: Set<string>;
  /** A column of the tables read declares a collation: comparison operands keep their sides. */
  collated: boolean;
  /** How each SELECT was written (aliases, table order, ON or WHERE): reasons name only what differs between the two. */
  written: { aliases: string[]; order: string[]; ons: string[] };
}

const lower = (s: unknown) => String(s).toLowerCase();

/** node-sql-parser writes a column name as a string or as {expr: {value}}. */
function columnName(ref: Node): string {
  const column = ref.column;
  if (typeof column === 'string') return column;
  if (column && typeof column === 'object' && column.expr && 'value' in column.expr) return String(column.expr.value);
  throw new Unsupported('column');
}

function resolveColumn(ctx: Context, ref: Node): { item: ScopeItem; column: string } | undefined {
  const name = lower(columnName(ref));
  for (let depth = ctx.scopes.length - 1; depth >= 0; depth--) {
    const scope = ctx.scopes[depth];
    const candidates = ref.table
      ? scope.filter((item) => item.names.includes(lower(ref.table)))
      : scope.filter((item) => item.table.columns.some((c) => lower(c.name) === name));
    if (candidates.length > 1) throw new Unsupported('ambiguous column');
    if (candidates.length === 1) {
      const column = candidates[0].table.columns.find((c) => lower(c.name) === name);
      if (!column) throw new Unsupported('unknown column');
      return { item: candidates[0], column: lower(column.name) };
    }
  }
  return undefined;
}

const COMMUTATIVE = new Set(['AND', 'OR', '=', '!=', '<>', '+', '*', 'IS']);
const COMPARISONS = new Set(['=', '!=', '<>', 'IS', '<', '>', '<=', '>=']);
const FLIPPED: Record<string, string> = { '>': '<', '>=': '<=' };

function flatten(node: Node, operator: string): Node[] {
  return node?.type === 'binary_expr' && String(node.operator).toUpperCase() === operator
    ? [...flatten(node.left, operator), ...flatten(node.right, operator)]
    : [node];
}

function isNotNullColumn(ctx: Context, ref: Node): string | undefined {
  const resolved = resolveColumn(ctx, ref);
  if (!resolved || resolved.item.nullable) return undefined;
  const column = resolved.item.table.columns.find((c) => lower(c.name) === resolved.column)!;
  const rowidAlias = lower(resolved.item.table.rowidColumn ?? '') === resolved.column;
  return column.notNull || rowidAlias ? `${resolved.item.table.name}.${column.name}` : undefined;
}

/** Single-column UNIQUE keys (INTEGER PRIMARY KEY, PRIMARY KEY, UNIQUE) of a table, lower case. */
function uniqueColumns(table: TableInfo): Set<string> {
  const keys = new Set<string>();
  if (table.rowidColumn) keys.add(lower(table.rowidColumn));
  for (const index of table.indexes) if (index.unique && !index.partial && index.columns.length === 1) keys.add(lower(index.columns[0]));
  return keys;
}

function expr(ctx: Context, node: Node | undefined | null, aliases?: Map<string, Node>): string {
  if (node === null || node === undefined) return '∅';
  if (Array.isArray(node)) return `[${node.map((n) => expr(ctx, n, aliases)).join(',')}]`;
  if (typeof node !== 'object') return JSON.stringify(node);
  switch (node.type) {
    case 'select':
      return select(ctx, node, false);
    case 'column_ref': {
      if (node.column === '*') return node.table ? `${lower(node.table)}.*` : '*';
      const resolved = resolveColumn(ctx, node);
      const collate = node.collate ? ` COLLATE ${expr(ctx, node.collate)}` : '';
      if (resolved) return `${resolved.item.canonical}.${resolved.column}${collate}`;
      const alias = !node.table ? aliases?.get(lower(columnName(node))) : undefined;
      if (alias) return `${expr(ctx, alias)}${collate}`;
      throw new Unsupported('unresolved column');
    }
    case 'number':
      return `n:${node.value}${node.suffix ? expr(ctx, node.suffix) : ''}`;
    case 'single_quote_string':
    case 'string':
      return `s:${JSON.stringify(node.value)}${node.suffix ? expr(ctx, node.suffix) : ''}`;
    case 'null':
      return 'null';
    case 'bool':
      return `b:${node.value}`;
    case 'binary_expr': {
      let operator = String(node.operator).toUpperCase();
      if (operator === '<>') operator = '!=';
      const orderable = !ctx.collated || !COMPARISONS.has(operator);
      if ((operator === 'AND' || operator === 'OR') && orderable) {
        const parts = flatten(node, operator).map((n) => expr(ctx, n, aliases));
        return `(${[...new Set(parts)].sort().join(` ${operator} `)})`;
      }
      let left = expr(ctx, node.left, aliases);
      let right = expr(ctx, node.right, aliases);
      if (orderable && FLIPPED[operator]) {
        [left, right] = [right, left];
        operator = FLIPPED[operator];
      }
      if (orderable && COMMUTATIVE.has(operator) && left > right) [left, right] = [right, left];
      return `(${left} ${operator} ${right})`;
    }
    case 'aggr_func': {
      const name = String(node.name).toUpperCase();
      let distinct = node.args?.distinct ? 'DISTINCT ' : '';
      const argument: Node | undefined = node.args?.expr;
      if (name === 'COUNT' && argument?.type === 'column_ref' && argument.column !== '*') {
        const scope = ctx.scopes[ctx.scopes.length - 1];
        const resolved = resolveColumn(ctx, argument);
        if (
          distinct &&
          resolved &&
          scope.length === 1 &&
          scope[0] === resolved.item &&
          uniqueColumns(resolved.item.table).has(resolved.column)
        ) {
          ctx.rules.add(`DISTINCT on the key ${resolved.item.table.name}.${resolved.column} counts nothing twice`);
          distinct = '';
        }
        const notNull = !distinct ? isNotNullColumn(ctx, argument) : undefined;
        if (notNull) {
          ctx.rules.add(`COUNT(${notNull}) on a NOT NULL column is COUNT(*)`);
          return 'COUNT(*)';
        }
      }
      if (name === 'COUNT' && argument?.type === 'star') return 'COUNT(*)';
      return `${name}(${distinct}${expr(ctx, argument, aliases)}${node.args?.orderby ? expr(ctx, node.args.orderby, aliases) : ''})${node.over ? expr(ctx, node.over, aliases) : ''}`;
    }
    case 'function': {
      const name = typeof node.name === 'string' ? node.name : (node.name?.name ?? []).map((n: Node) => n.value).join('.');
      return `${lower(name)}(${expr(ctx, node.args, aliases)})${node.over ? expr(ctx, node.over, aliases) : ''}`;
    }
    default: {
      // Any other node (CASE, CAST, IN lists, unary operators...): its fields in key order, each normalised.
      const fields = Object.keys(node)
        .filter((key) => !['loc', 'parentheses', 'tableList', 'columnList'].includes(key))
        .sort()
        .map((key) => `${key}=${expr(ctx, node[key], aliases)}`);
      return `{${fields.join(';')}}`;
    }
  }
}

const INNER_JOINS = new Set(['INNER JOIN', 'JOIN', 'CROSS JOIN']);

function select(ctx: Context, node: Node, top: boolean): string {
  if (node.with || node._next || node.set_op) throw new Unsupported('WITH or a compound query');
  const from: Node[] = node.from ?? [];
  if (from.some((item) => !item.table || item.expr)) throw new Unsupported('a subquery in FROM');
  const depth = ctx.scopes.length;
  const seen = new Map<string, number>();
  let afterOuter = false;
  const scope: ScopeItem[] = from.map((item, i) => {
    const table = ctx.schema.tables.get(lower(item.table));
    if (!table) throw new Unsupported('a table not in the schema');
    const join = item.join ? String(item.join).toUpperCase() : '';
    if (i > 0 && join && !INNER_JOINS.has(join)) afterOuter = true;
    const k = (seen.get(lower(table.name)) ?? 0) + 1;
    seen.set(lower(table.name), k);
    const names = [lower(item.table), ...(item.as ? [lower(item.as)] : [])];
    return { canonical: `${depth}:${lower(table.name)}${k > 1 ? `#${k}` : ''}`, names, table, nullable: afterOuter };
  });
  // A RIGHT or FULL join makes the tables before it nullable too; then no NOT NULL reasoning at all.
  if (from.some((item) => /RIGHT|FULL/i.test(String(item.join ?? '')))) scope.forEach((item) => (item.nullable = true));
  const allInner = from.every((item, i) => i === 0 || !item.join || INNER_JOINS.has(String(item.join).toUpperCase()));
  ctx.written.aliases.push(from.map((item) => lower(item.as ?? '')).join());
  ctx.scopes.push(scope);
  try {
    const aliases = new Map<string, Node>();
    const columns: Node[] = node.columns === '*' ? [] : (node.columns ?? []);
    for (const column of columns) if (column.as) aliases.set(lower(column.as), column.expr);
    const star = node.columns === '*' || columns.some((c) => c.expr?.type === 'column_ref' && c.expr.column === '*');
    const outputs = node.columns === '*' ? ['*'] : columns.map((c) => expr(ctx, c.expr));
    const hasLimit = Boolean(node.limit?.value?.length);
    const conditions = (where: Node | null | undefined) => (where ? flatten(where, 'AND').map((n) => expr(ctx, n, aliases)) : []);

    let fromText: string;
    let filters: string[];
    if (allInner && !star) {
      const ons = from.flatMap((item) => conditions(item.on));
      const sorted = scope.map((item) => item.canonical).sort();
      ctx.written.order.push(scope.map((item) => item.canonical).join());
      ctx.written.ons.push(ons.join(' AND '));
      fromText = sorted.join(',');
      filters = [...new Set([...ons, ...conditions(node.where)])].sort();
    } else {
      fromText = from.map((item, i) => `${item.join ?? ''} ${scope[i].canonical} ON ${expr(ctx, item.on, aliases)}`).join(' ');
      filters = [...new Set(conditions(node.where))].sort();
    }
    const groupKeys = (node.groupby?.columns ?? node.groupby ?? []) as Node[];
    let groups = (Array.isArray(groupKeys) ? groupKeys : []).map((g) => orderKey(ctx, g, columns, aliases));
    let distinct = Boolean(node.distinct);
    let orders: string[] = (node.orderby ?? []).map(
      (o: Node) => `${orderKey(ctx, o.expr, columns, aliases, true)} ${String(o.type ?? 'ASC').toUpperCase()}`,
    );
    if (top && !hasLimit) {
      if (distinct) ctx.rules.add('DISTINCT at the top (EX compares sets of rows)');
      if (orders.length) ctx.rules.add('ORDER BY without LIMIT (EX ignores row order)');
      distinct = false;
      orders = [];
      groups = [...groups].sort();
    }
    if (distinct && scope.length === 1 && groups.length === 0 && !scope[0].nullable) {
      const keys = uniqueColumns(scope[0].table);
      const notNullKey = [...keys].find((key) => {
        const column = scope[0].table.columns.find((c) => lower(c.name) === key);
        const isRowid = lower(scope[0].table.rowidColumn ?? '') === key;
        return (column?.notNull || isRowid) && outputs.includes(`${scope[0].canonical}.${key}`);
      });
      if (notNullKey) {
        ctx.rules.add(`DISTINCT over the key ${scope[0].table.name}.${notNullKey}`);
        distinct = false;
      }
    }
    return [
      `SELECT${distinct ? ' DISTINCT' : ''} ${outputs.join(', ')}`,
      `FROM ${fromText}`,
      `WHERE ${filters.join(' AND ')}`,
      `GROUP ${groups.join(', ')}`,
      `HAVING ${expr(ctx, node.having, aliases)}`,
      `ORDER ${orders.join(', ')}`,
      `LIMIT ${expr(ctx, node.limit?.value ?? null)}`,
    ].join(' ');
  } finally {
    ctx.scopes.pop();
  }
}

/** An ORDER BY or GROUP BY key: `1` is the first output column; in ORDER BY an output name comes before a column. */
function orderKey(ctx: Context, key: Node, columns: Node[], aliases: Map<string, Node>, outputFirst = false): string {
  if (key?.type === 'number' && Number.isInteger(key.value) && columns[key.value - 1]) return expr(ctx, columns[key.value - 1].expr);
  if (outputFirst && key?.type === 'column_ref' && !key.table) {
    const alias = aliases.get(lower(columnName(key)));
    if (alias) return expr(ctx, alias);
  }
  return expr(ctx, key, aliases);
}

function normalForm(sql: string, schema: SchemaInfo, collated: boolean): { form: string; rules: Set<string>; written: Context['written'] } {
  const parsed = parseSql(sql);
  if (!parsed.ok) throw new Unsupported(`node-sql-parser cannot read it (${parsed.error})`);
  if (parsed.ast.type !== 'select') throw new Unsupported('not a SELECT');
  const ctx: Context = { schema, scopes: [], rules: new Set(), collated, written: { aliases: [], order: [], ons: [] } };
  return { form: select(ctx, parsed.ast as Node, true), rules: ctx.rules, written: ctx.written };
}

/** Whether two queries (EX-correct on this data) are provably equivalent for EX on every database with this schema. */
export function decideEquivalence(gold: string, prediction: string, schema: SchemaInfo, sameProgram?: boolean | null): EquivalenceVerdict {
  if (sameProgram) return { verdict: 'equivalent', reason: 'they compile to the same SQLite program' };
  const collated = [gold, prediction, ...[...schema.tables.values()].map((t) => t.sql)].some((sql) => /\bCOLLATE\b/i.test(sql));
  try {
    const a = normalForm(gold, schema, collated);
    const b = normalForm(prediction, schema, collated);
    if (a.form !== b.form)
      return {
        verdict: 'agrees_on_this_data',
        reason: 'no proof: they differ beyond aliases, inner-join order, keys and NOT NULL columns',
      };
    const differs = (key: keyof Context['written']) => a.written[key].join('|') !== b.written[key].join('|');
    const rules = [
      ...(differs('aliases') ? ['alias names'] : []),
      ...(differs('order') ? ['inner joins in another order'] : []),
      ...(differs('ons') ? ['inner-join conditions moved between ON and WHERE'] : []),
      ...new Set([...a.rules, ...b.rules]),
    ];
    return {
      verdict: 'equivalent',
      reason: rules.length ? `the same query up to ${rules.join('; ')}` : 'the same query up to spacing, case and quoting of names',
    };
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    return { verdict: 'agrees_on_this_data', reason: `no proof: outside the subset VES Lens decides (${error.message})` };
  }
}
