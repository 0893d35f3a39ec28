import { DatabaseConnection } from '../db/engine';
import { PostgresScratch } from '../db/postgres/scratchDatabase';
import { dialectOf, runnableBody } from '../db/readQuery';
import { quoteIdentifier, SchemaInfo, TableInfo } from '../db/schema';
import { WritableDatabase } from '../db/sqlite/writableDatabase';
import { isLiteral, Node, parseSql, selectsOf, walkAst } from '../sql/ast';
import { significantTokens } from '../sql/lexer';
import { cteNames, FromItem, fromItemsOfSelect, resolveColumnIn } from '../sql/scope';
import { DEFAULT_FAST_TIMING, FastTimingOptions, freshConnectionTimer, measurePair } from '../timing/fast';
import { TimingResult } from '../timing/types';
import { ExplainedPlan, explainTree, walkPlan } from './explain';

export interface IndexCandidate {
  table: string;
  columns: string[];
  /** Why it might help: the clause it serves. */
  reason: string;
  name: string;
  createSql: string;
}

export interface IndexVerdict {
  candidate: IndexCandidate;
  /** Would SQLite's planner use it (checked on a schema-only copy)? */
  used: boolean;
  plan?: ExplainedPlan;
  /** --measure: t_without / t_with on a temporary copy (above 1: the index helps). */
  measured?: TimingResult;
}

export interface IndexAdvice {
  sql: string;
  baseline?: ExplainedPlan;
  verdicts: IndexVerdict[];
  /** Why no advice could be given (unparsable SQL, refused statement). */
  error?: string;
  /**
   * Candidates proposed but not checked, and why: on a PostgreSQL server no index can be tried without
   * writing, so without a scratch copy the candidates are only listed.
   */
  unchecked?: { candidates: IndexCandidate[]; reason: string };
  /** How the planner's use was checked and the gain measured (PostgreSQL: on which scratch copy, and how). */
  method?: string;
}

/** What index advice needs on PostgreSQL, said where it cannot be given. */
export const NEEDS_SCRATCH =
  'index advice on PostgreSQL needs a scratch copy to try each index in (the server at --db-url is never written): build one with `ves-lens load --from <db-root> --to <throwaway url>` and give it as --scratch-url';

export interface IndexAdviceOptions {
  measure?: boolean;
  timeoutMs?: number;
  /** PostgreSQL: a scratch database holding the same tables (a throwaway `ves-lens load` copy), where candidates are created and rolled back. */
  scratchTarget?: string;
}

interface ColumnUse {
  equality: Set<string>;
  range: Set<string>;
  join: Set<string>;
  order: Set<string>;
}

const RANGE_OPERATORS = new Set(['>', '<', '>=', '<=', 'BETWEEN', 'NOT BETWEEN']);

/** Which table a column reference of node-sql-parser's tree reads, among its SELECT's FROM items. */
function resolveColumn(
  ref: Node,
  items: readonly FromItem[],
  schema: SchemaInfo,
  ctes: ReadonlySet<string>,
): { table: TableInfo; column: string } | undefined {
  const column = String(ref.column?.expr?.value ?? ref.column ?? '');
  if (!column) return undefined;
  const resolved = resolveColumnIn(schema, [items], ref.table ? String(ref.table) : undefined, column, ctes);
  return resolved && { table: resolved.table, column: resolved.column.name };
}

function usageFor(map: Map<string, ColumnUse>, table: TableInfo): ColumnUse {
  let use = map.get(table.name);
  if (!use) {
    use = { equality: new Set(), range: new Set(), join: new Set(), order: new Set() };
    map.set(table.name, use);
  }
  return use;
}

/** How each table's columns are used by WHERE, JOIN ... ON, ORDER BY and GROUP BY, over every SELECT. */
function columnUses(ast: Node, schema: SchemaInfo, ctes: ReadonlySet<string>): Map<string, ColumnUse> {
  const uses = new Map<string, ColumnUse>();
  for (const select of selectsOf(ast)) {
    const items = fromItemsOfSelect(select);
    const note = (ref: Node, kind: keyof ColumnUse) => {
      const resolved = resolveColumn(ref, items, schema, ctes);
      if (resolved) usageFor(uses, resolved.table)[kind].add(resolved.column);
    };
    const conditions = [select.where, ...(Array.isArray(select.from) ? select.from.map((f: Node) => f.on) : [])];
    for (const { node } of walkAst(conditions)) {
      if (node.type !== 'binary_expr' || node.left?.type !== 'column_ref') continue;
      const op = String(node.operator).toUpperCase();
      if (op === '=' && node.right?.type === 'column_ref') {
        note(node.left, 'join');
        note(node.right, 'join');
      } else if ((op === '=' || op === 'IN' || op === 'IS') && (isLiteral(node.right) || node.right?.type === 'expr_list')) {
        note(node.left, 'equality');
      } else if (RANGE_OPERATORS.has(op)) {
        note(node.left, 'range');
      }
    }
    for (const item of [...(select.orderby ?? []), ...(select.groupby?.columns ?? select.groupby ?? [])]) {
      const expr = item?.expr ?? item;
      if (expr?.type === 'column_ref') note(expr, 'order');
    }
  }
  return uses;
}

/** True when an existing index (or the rowid) already leads with these columns. */
function alreadyIndexed(table: TableInfo, columns: string[]): boolean {
  if (columns.length === 1 && table.rowidColumn?.toLowerCase() === columns[0].toLowerCase()) return true;
  return table.indexes.some((index) => columns.every((c, i) => index.columns[i]?.toLowerCase() === c.toLowerCase()));
}

function candidate(table: TableInfo, columns: string[], reason: string): IndexCandidate {
  const name = `ves_lens_${table.name}_${columns.join('_')}`.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 60);
  return {
    table: table.name,
    columns,
    reason,
    name,
    createSql: `CREATE INDEX ${quoteIdentifier(name)} ON ${quoteIdentifier(table.name)} (${columns.map(quoteIdentifier).join(', ')})`,
  };
}

/** Indexes worth trying for a query: equality columns first, then one range or order column; join columns alone. */
export function proposeIndexes(sql: string, schema: SchemaInfo): IndexCandidate[] | { error: string } {
  const parsed = parseSql(sql);
  if (!parsed.ok) return { error: `node-sql-parser cannot read this statement (${parsed.error})` };
  const proposals: IndexCandidate[] = [];
  const seen = new Set<string>();
  const add = (table: TableInfo, columns: string[], reason: string) => {
    const key = `${table.name}|${columns.join(',').toLowerCase()}`;
    if (columns.length === 0 || seen.has(key) || alreadyIndexed(table, columns)) return;
    seen.add(key);
    proposals.push(candidate(table, columns, reason));
  };
  for (const [tableName, use] of columnUses(parsed.ast as Node, schema, cteNames(significantTokens(sql)))) {
    const table = schema.tables.get(tableName.toLowerCase())!;
    const equality = [...use.equality].slice(0, 3);
    const tail = [...use.range][0] ?? [...use.order].find((c) => !equality.includes(c));
    if (equality.length) add(table, tail ? [...equality, tail] : equality, tail ? 'WHERE equality, then range / order' : 'WHERE equality');
    for (const column of use.join) add(table, [column], 'JOIN condition');
    for (const column of use.equality) add(table, [column], 'WHERE equality');
    for (const column of use.range) add(table, [column], 'WHERE range');
    for (const column of use.order) add(table, [column], 'ORDER BY / GROUP BY');
  }
  return proposals.slice(0, 10);
}

async function planOn(scratch: WritableDatabase, sql: string, body: string, schema: SchemaInfo): Promise<ExplainedPlan> {
  return explainTree(sql, await scratch.explainPlan(body), schema);
}

/**
 * Proposes indexes for a query and checks on a schema-only copy which ones SQLite's planner would use.
 * With `measure`, times the query with the used indexes on a temporary copy of the database against the
 * original. The original file is never modified.
 */
export async function adviseIndexes(
  db: DatabaseConnection,
  sql: string,
  schema: SchemaInfo,
  options: IndexAdviceOptions = {},
): Promise<IndexAdvice> {
  const dialect = dialectOf(db.engine);
  const runnable = runnableBody(sql, dialect);
  if ('status' in runnable) return { sql, verdicts: [], error: runnable.message };
  const proposals = proposeIndexes(runnable.body, schema);
  if ('error' in proposals) return { sql, verdicts: [], error: proposals.error };
  if (dialect === 'postgres') {
    if (!options.scratchTarget) return { sql, verdicts: [], unchecked: { candidates: proposals, reason: NEEDS_SCRATCH } };
    return advisePostgres(sql, runnable.body, schema, proposals, { ...options, scratchTarget: options.scratchTarget });
  }
  const scratch = await WritableDatabase.schemaCopy(db, schema);
  const verdicts: IndexVerdict[] = [];
  let baseline: ExplainedPlan | undefined;
  try {
    baseline = await planOn(scratch, sql, runnable.body, schema);
    for (const proposal of proposals) {
      await scratch.exec(proposal.createSql);
      const plan = await planOn(scratch, sql, runnable.body, schema);
      await scratch.exec(`DROP INDEX ${quoteIdentifier(proposal.name)}`);
      const used = [...walkPlan(plan.nodes)].some((node) => node.index === proposal.name);
      verdicts.push({ candidate: proposal, used, plan: used ? plan : undefined });
    }
  } catch (error) {
    return { sql, verdicts, baseline, error: (error as Error).message };
  } finally {
    await scratch.close();
  }
  if (options.measure) {
    for (const verdict of verdicts.filter((v) => v.used))
      verdict.measured = await measureWithIndex(
        db.path,
        runnable.body,
        verdict.candidate,
        options.timeoutMs ?? DEFAULT_FAST_TIMING.timeoutMs,
      );
  }
  return { sql, baseline, verdicts };
}

/** An index's gain is a full execution's: t_without / t_with, its ratio settled. */
const INDEX_TIMING: FastTimingOptions = {
  ...DEFAULT_FAST_TIMING,
  quantities: ['full'],
  settle: { ratioOf: ['full'], bucketOf: [] },
};

/** t_without / t_with for one index, on a temporary copy of the database that gets the index. */
async function measureWithIndex(dbPath: string, body: string, index: IndexCandidate, timeoutMs: number): Promise<TimingResult> {
  const copy = await WritableDatabase.copyOf(dbPath);
  try {
    await copy.exec(index.createSql);
    const timing = await measurePair(freshConnectionTimer(dbPath, body), freshConnectionTimer(copy.path, body), {
      ...INDEX_TIMING,
      timeoutMs,
    });
    return timing.full!;
  } finally {
    await copy.close();
  }
}

/**
 * PostgreSQL: each candidate is created on the scratch copy inside a transaction that is rolled back, the
 * query planned with it (used when its plan names the index); with `measure`, the query is timed without and
 * with it, alternately, on the scratch session (the index dropped in a rolled-back savepoint for the runs
 * without it). The scratch copy ends as it began; the server at --db-url is only read.
 */
async function advisePostgres(
  sql: string,
  body: string,
  schema: SchemaInfo,
  proposals: readonly IndexCandidate[],
  options: IndexAdviceOptions & { scratchTarget: string },
): Promise<IndexAdvice> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FAST_TIMING.timeoutMs;
  const method = `each index created on the scratch copy ${options.scratchTarget} in a transaction that is rolled back${options.measure ? '; timed without and with it, alternately, on one scratch session' : ''}`;
  let scratch: PostgresScratch;
  try {
    scratch = await PostgresScratch.open(options.scratchTarget);
  } catch (error) {
    return { sql, verdicts: [], error: `the scratch copy cannot be reached: ${(error as Error).message}`, method };
  }
  const verdicts: IndexVerdict[] = [];
  let baseline: ExplainedPlan | undefined;
  try {
    const missing = await scratch.missingTables([...new Set(proposals.map((p) => quoteIdentifier(p.table)))]);
    if (missing.length)
      return {
        sql,
        verdicts: [],
        error: `the scratch copy has no table ${missing.join(', ')}: load the same databases into it (ves-lens load)`,
        method,
      };
    for (const proposal of proposals) {
      const plans = await scratch.plansWithIndex(proposal.createSql, body, timeoutMs);
      baseline ??= explainTree(sql, plans.without, schema);
      const plan = explainTree(sql, plans.with, schema);
      const used = [...walkPlan(plan.nodes)].some((node) => node.index === proposal.name);
      verdicts.push({ candidate: proposal, used, plan: used ? plan : undefined });
    }
    if (options.measure)
      for (const verdict of verdicts.filter((v) => v.used))
        verdict.measured = await scratch.timeWithIndex(
          verdict.candidate.createSql,
          quoteIdentifier(verdict.candidate.name),
          body,
          timeoutMs,
          async (without, withIndex) => {
            const timing = await measurePair(without, withIndex, { ...INDEX_TIMING, timeoutMs });
            return { ...timing.full!, note: 'timed on one scratch session (the index created and rolled back), not on fresh connections' };
          },
        );
  } catch (error) {
    return { sql, verdicts, baseline, error: (error as Error).message, method };
  } finally {
    await scratch.close();
  }
  return { sql, baseline, verdicts, method };
}
