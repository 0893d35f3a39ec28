import { AST } from 'node-sql-parser';
// The SQLite-only build: the full package bundles every dialect (megabytes the CLI and server would load for nothing).
import type { Parser } from 'node-sql-parser/build/sqlite';
import { analysisBoundNote } from './textBounds';

/** Made on first use: loading the parser is a tenth of the command line's start-up, and `eval` never parses. */
let parser: Parser | undefined;
function sqliteParser(): Parser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  parser ??= new (require('node-sql-parser/build/sqlite') as typeof import('node-sql-parser/build/sqlite')).Parser();
  return parser;
}
const cache = new Map<string, ParsedSql>();
const CACHE_LIMIT = 5000;

export type ParsedSql = { ok: true; ast: AST } | { ok: false; error: string };

/**
 * node-sql-parser's syntax tree of one SQLite statement (cached: the language server re-parses on every
 * keystroke). A statement it cannot read gives the reason instead; callers degrade, they never throw.
 */
export function parseSql(sql: string): ParsedSql {
  const cached = cache.get(sql);
  if (cached) return cached;
  const tooLarge = analysisBoundNote(sql, 'node-sql-parser');
  if (tooLarge) return { ok: false, error: tooLarge };
  let parsed: ParsedSql;
  try {
    const ast = sqliteParser().astify(sql, { database: 'sqlite' });
    parsed = Array.isArray(ast)
      ? ast.length === 1
        ? { ok: true, ast: ast[0] }
        : { ok: false, error: `${ast.length} statements` }
      : { ok: true, ast };
  } catch (error) {
    parsed = { ok: false, error: (error as Error).message.split('\n')[0] };
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(sql, parsed);
  return parsed;
}

/** Forgets cached trees (benchmarks time cold parses with it). */
export function clearParseCache(): void {
  cache.clear();
}

/** An untyped view of AST nodes: node-sql-parser's typings do not cover every node SQLite produces. */
export type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every object node below `root`, depth first, with its parent. */
export function* walkAst(root: unknown, parent?: Node): Generator<{ node: Node; parent?: Node }> {
  if (Array.isArray(root)) {
    for (const item of root) yield* walkAst(item, parent);
    return;
  }
  if (!root || typeof root !== 'object') return;
  const node = root as Node;
  yield { node, parent };
  for (const [key, value] of Object.entries(node)) {
    if (key === 'tableList' || key === 'columnList' || key === 'loc') continue;
    if (value && typeof value === 'object') yield* walkAst(value, node);
  }
}

/** Every SELECT in a statement: the main one, compound parts (`_next`), subqueries and CTE bodies. */
export function selectsOf(ast: unknown): Node[] {
  const out: Node[] = [];
  for (const { node } of walkAst(ast)) if (node.type === 'select') out.push(node);
  return out;
}

/** True for a literal operand (number, string, boolean, NULL, parameter). */
export function isLiteral(node: Node | undefined): boolean {
  if (!node) return false;
  return ['number', 'single_quote_string', 'string', 'double_quote_string', 'bool', 'null', 'param', 'natural_string'].includes(node.type);
}
