import { QueryTimeout } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { timeExecution } from '../db/engines';
import { PostgresScratch } from '../db/postgres/scratchDatabase';
import { dialectOf, runnableBody } from '../db/readQuery';
import { quoteIdentifier, SchemaInfo, TableInfo } from '../db/schema';
import { WritableDatabase } from '../db/sqlite/writableDatabase';
import { isLiteral, Node, parseSql, selectsOf, walkAst } from '../sql/ast';
import { identifierName, significantTokens, tokenize } from '../sql/lexer';
import { cteNames, FromItem, fromItemsOfSelect, resolveColumnIn } from '../sql/scope';
import { DEFAULT_FAST_TIMING, FastTimingOptions, freshConnectionTimer, measurePair } from '../timing/fast';
import { TimingResult } from '../timing/types';
import { SpeedVerdict, speedVerdict } from '../timing/verdict';
import { estimateContradicts } from './comparePlans';
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
  /** --measure: what the measurement lets one say (faster and slower hold on a repeat run; else no measurable change). */
  speed?: SpeedVerdict;
  /**
   * --measure, when a run went past the time limit (SQLite): one run of each side within it, in milliseconds,
   * null for a side past it. An index whose query no longer finishes within the limit is `slower`; one that makes
   * a query past the limit finish within it is `faster` (issue 34: "not measured" hid indexes that took a query
   * from 0.5 s to over 60 s).
   */
  pastLimit?: { limitMs: number; withoutMs: number | null; withMs: number | null };
  /** --measure: why this index could not be timed (an error on the copy; on PostgreSQL also a timeout). */
  unmeasured?: string;
  /** --measure: the plan-cost estimate points against the measurement (cheaper but slower, or dearer but faster). */
  estimateDisagrees?: boolean;
  /**
   * Worth creating: the planner uses it and, when measured, it made the query measurably faster. An index
   * measured slower, or with no measurable change, or that could not be timed, is not recommended.
   */
  recommended: boolean;
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

/**
 * Which table a column operand of node-sql-parser's tree reads, among its SELECT's FROM items. The parser reads
 * `"height_cm"` as a string; SQLite reads it as the column when one of that name is in scope (a string only
 * otherwise), so a double-quoted name that resolves is a column here too.
 */
function resolveColumn(
  operand: Node | undefined,
  items: readonly FromItem[],
  schema: SchemaInfo,
  ctes: ReadonlySet<string>,
): { table: TableInfo; column: string } | undefined {
  let qualifier: string | undefined;
  let column: string;
  if (operand?.type === 'column_ref') {
    qualifier = operand.table ? String(operand.table) : undefined;
    column = String(operand.column?.expr?.value ?? operand.column ?? '');
  } else if (operand?.type === 'double_quote_string') column = String(operand.value ?? '');
  else return undefined;
  if (!column) return undefined;
  const resolved = resolveColumnIn(schema, [items], qualifier, column, ctes);
  return resolved && { table: resolved.table, column: resolved.column.name };
}

/**
 * The statement as node-sql-parser can read it: SQLite's `[name]` identifiers (which the parser refuses) written
 * with backticks, which it reads as names, so `[height_cm]` is advised on like `height_cm`.
 */
function parserReadable(sql: string): string {
  let readable = '';
  let copied = 0;
  for (const token of tokenize(sql)) {
    if (token.kind !== 'quoted' || token.text[0] !== '[' || !token.text.endsWith(']')) continue;
    readable += sql.slice(copied, token.start) + '`' + identifierName(token.text).replace(/`/g, '``') + '`';
    copied = token.end;
  }
  return readable + sql.slice(copied);
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
    const note = (column: { table: TableInfo; column: string } | undefined, kind: keyof ColumnUse) => {
      if (column) usageFor(uses, column.table)[kind].add(column.column);
    };
    const conditions = [select.where, ...(Array.isArray(select.from) ? select.from.map((f: Node) => f.on) : [])];
    for (const { node } of walkAst(conditions)) {
      if (node.type !== 'binary_expr') continue;
      const left = resolveColumn(node.left, items, schema, ctes);
      const right = resolveColumn(node.right, items, schema, ctes);
      const op = String(node.operator).toUpperCase();
      // Column = column (either side may be a subquery's column, which has no index to propose).
      const columnSide = (operand: Node, resolved: unknown) => operand?.type === 'column_ref' || resolved !== undefined;
      if (op === '=' && columnSide(node.left, left) && columnSide(node.right, right)) {
        note(left, 'join');
        note(right, 'join');
      } else if (!left) {
        continue;
      } else if ((op === '=' || op === 'IN' || op === 'IS') && (isLiteral(node.right) || node.right?.type === 'expr_list')) {
        note(left, 'equality');
      } else if (RANGE_OPERATORS.has(op)) {
        note(left, 'range');
      }
    }
    for (const item of [...(select.orderby ?? []), ...(select.groupby?.columns ?? select.groupby ?? [])]) {
      note(resolveColumn(item?.expr ?? item, items, schema, ctes), 'order');
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
  const parsed = parseSql(parserReadable(sql));
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
      verdicts.push({ candidate: proposal, used, plan: used ? plan : undefined, recommended: used });
    }
  } catch (error) {
    return { sql, verdicts, baseline, error: (error as Error).message };
  } finally {
    await scratch.close();
  }
  if (options.measure) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_FAST_TIMING.timeoutMs;
    for (const verdict of verdicts.filter((v) => v.used))
      await judgeByMeasurement(verdict, () => measureWithIndex(db.path, runnable.body, verdict.candidate, timeoutMs));
    markDisagreements(baseline, verdicts);
  }
  return { sql, baseline, verdicts };
}

/**
 * Times one index the planner uses and lets the measurement decide: recommended only when the query is
 * measurably faster with it (a planner that picks an index can still be wrong, e.g. a range that reads most rows).
 */
async function judgeByMeasurement(verdict: IndexVerdict, measure: () => Promise<IndexMeasurement>): Promise<void> {
  try {
    const result = await measure();
    if ('pastLimit' in result) {
      verdict.pastLimit = result.pastLimit;
      verdict.speed = pastLimitVerdict(result.pastLimit);
    } else {
      verdict.measured = result;
      verdict.speed = speedVerdict(result);
    }
  } catch (error) {
    verdict.unmeasured = (error as Error).message;
  }
  verdict.recommended = verdict.speed === 'faster';
}

type IndexMeasurement = TimingResult | { pastLimit: NonNullable<IndexVerdict['pastLimit']> };

/** Past the limit on one side only, the other side is the faster, by more than any noise; on both or neither, no verdict. */
function pastLimitVerdict({ withoutMs, withMs }: NonNullable<IndexVerdict['pastLimit']>): SpeedVerdict | undefined {
  if (withoutMs !== null && withMs === null) return 'slower';
  if (withoutMs === null && withMs !== null) return 'faster';
  return undefined;
}

/** Flags each measured index whose plan-cost change points against its measurement (comparePlans.estimateContradicts). */
function markDisagreements(baseline: ExplainedPlan | undefined, verdicts: IndexVerdict[]): void {
  for (const verdict of verdicts)
    if (baseline && verdict.plan && estimateContradicts(baseline.cost.work, verdict.plan.cost.work, verdict.speed))
      verdict.estimateDisagrees = true;
}

/** An index's gain is a full execution's: t_without / t_with, its ratio settled. */
const INDEX_TIMING: FastTimingOptions = {
  ...DEFAULT_FAST_TIMING,
  quantities: ['full'],
  settle: { ratioOf: ['full'], bucketOf: [] },
};

/**
 * t_without / t_with for one index, on a temporary copy of the database that gets the index. When an execution
 * goes past the limit, one run of each side within the limit says which side it was (see IndexVerdict.pastLimit).
 */
async function measureWithIndex(dbPath: string, body: string, index: IndexCandidate, timeoutMs: number): Promise<IndexMeasurement> {
  const copy = await WritableDatabase.copyOf(dbPath);
  try {
    await copy.exec(index.createSql);
    try {
      const timing = await measurePair(freshConnectionTimer(dbPath, body), freshConnectionTimer(copy.path, body), {
        ...INDEX_TIMING,
        timeoutMs,
      });
      return timing.full!;
    } catch (error) {
      if (!(error instanceof QueryTimeout)) throw error;
      const once = async (path: string) => {
        try {
          return await timeExecution(path, body, 'full', { deadline: performance.now() + timeoutMs, budgetMs: timeoutMs });
        } catch (error) {
          if (error instanceof QueryTimeout) return null;
          throw error;
        }
      };
      return { pastLimit: { limitMs: timeoutMs, withoutMs: await once(dbPath), withMs: await once(copy.path) } };
    }
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
      verdicts.push({ candidate: proposal, used, plan: used ? plan : undefined, recommended: used });
    }
    if (options.measure)
      for (const verdict of verdicts.filter((v) => v.used))
        await judgeByMeasurement(verdict, () =>
          scratch.timeWithIndex(
            verdict.candidate.createSql,
            quoteIdentifier(verdict.candidate.name),
            body,
            timeoutMs,
            async (without, withIndex) => {
              const timing = await measurePair(without, withIndex, { ...INDEX_TIMING, timeoutMs });
              return {
                ...timing.full!,
                note: 'timed on one scratch session (the index created and rolled back), not on fresh connections',
              };
            },
          ),
        );
    if (options.measure) markDisagreements(baseline, verdicts);
  } catch (error) {
    return { sql, verdicts, baseline, error: (error as Error).message, method };
  } finally {
    await scratch.close();
  }
  return { sql, baseline, verdicts, method };
}
