import { RunLimits } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { MeasuredPlanTree, PlanNode } from '../db/planTree';
import { dialectOf, runnableBody } from '../db/readQuery';
import { SchemaInfo } from '../db/schema';
import { splitStatements } from '../sql/statements';
import { analysisBoundNote } from '../sql/textBounds';
import { wordIs } from '../sql/keywords';
import { identifierName, significantTokens } from '../sql/lexer';
import { resolveColumnAt, tableAliases, tablesRead } from '../sql/scope';
import { CostedNode, costPlan, PlanCost } from './cost';

export interface ExplainedPlan {
  sql: string;
  nodes: CostedNode[];
  cost: PlanCost;
  /** Why there is no plan: the engine's compile error, or a refusal. */
  error?: string;
  /** EXPLAIN ANALYZE (PostgreSQL): the query ran; milliseconds spent planning and executing it (each step's in its node). */
  measured?: { planningMs?: number; executionMs?: number };
}

/** How explainQuery plans: `analyze` runs the query too (the engine's EXPLAIN ANALYZE) within these limits. */
export interface ExplainOptions {
  analyze?: RunLimits;
}

const noPlan = (sql: string, error: string): ExplainedPlan => ({ sql, nodes: [], cost: { rule: 0, work: 0 }, error });

/**
 * The engine's plan of a read query, as a tree annotated with row counts and both costs; with `analyze`, run
 * and measured step by step where the engine can (PostgreSQL), inside its read-only transaction. Only a
 * statement that passes the engine's refusals is planned (and run).
 */
export async function explainQuery(
  db: DatabaseConnection,
  sql: string,
  schema: SchemaInfo,
  options: ExplainOptions = {},
): Promise<ExplainedPlan> {
  const dialect = dialectOf(db.engine);
  const runnable = runnableBody(sql, dialect);
  if ('status' in runnable) return noPlan(sql, runnable.message);
  if (!runnable.body) return noPlan(sql, 'no statement to explain');
  const tooLarge = analysisBoundNote(runnable.body, 'plan', 'tokens');
  if (tooLarge) return noPlan(sql, tooLarge);
  // PostgreSQL runs an entry's statements in turn; EXPLAIN plans one.
  const statements = dialect === 'postgres' ? splitStatements(runnable.body).length : 1;
  if (statements > 1) return noPlan(sql, `holds ${statements} statements; EXPLAIN plans one statement at a time`);
  if (options.analyze && !db.explainAnalyze)
    return noPlan(sql, `${db.engine.name} does not measure plan steps (EXPLAIN ANALYZE is PostgreSQL's)`);
  let tree: MeasuredPlanTree;
  try {
    tree = options.analyze ? await db.explainAnalyze!(runnable.body, options.analyze) : { nodes: await db.explainPlan(runnable.body) };
  } catch (error) {
    return noPlan(sql, (error as Error).message);
  }
  const plan = explainTree(sql, tree.nodes, schema);
  if (options.analyze) plan.measured = { planningMs: tree.planningMs, executionMs: tree.executionMs };
  return plan;
}

/** Annotates a plan tree (from a database, a scratch copy or a fixture) against a schema. */
export function explainTree(sql: string, tree: readonly PlanNode[], schema: SchemaInfo): ExplainedPlan {
  const aliases = tableAliases(
    sql,
    [...schema.tables.values()].map((t) => t.name),
  );
  const { nodes, cost } = costPlan(tree, { aliases, tables: schema.tables, rowidMinMax: rowidMinMax(sql, schema) });
  return { sql, nodes, cost };
}

/** Lower-case tables whose rowid (or its alias) the statement takes the MIN or MAX of: `MAX(id)`, `MIN(T1.rowid)`. */
function rowidMinMax(sql: string, schema: SchemaInfo): Set<string> {
  const tables = new Set<string>();
  const tokens = significantTokens(sql);
  tokens.forEach((token, i) => {
    if (!wordIs(token, 'MIN', 'MAX') || tokens[i + 1]?.text !== '(') return;
    const dotted = tokens[i + 3]?.text === '.';
    const [qualifier, column] = dotted ? [tokens[i + 2], tokens[i + 4]] : [undefined, tokens[i + 2]];
    if (!column || tokens[i + (dotted ? 5 : 3)]?.text !== ')') return;
    const name = identifierName(column.text);
    const q = qualifier && identifierName(qualifier.text);
    if (/^(rowid|_rowid_|oid)$/i.test(name)) {
      // The rowid itself: the table is the qualifier's, or the only one the statement reads.
      const names = [...schema.tables.values()].map((t) => t.name);
      const read = [...tablesRead(sql, names).values()];
      const table = q ? tableAliases(sql, names).get(q.toLowerCase()) : read.length === 1 ? read[0] : undefined;
      if (table) tables.add(table.toLowerCase());
      return;
    }
    const resolved = resolveColumnAt(schema, tokens, dotted ? i + 4 : i + 2, q, name);
    if (resolved && resolved.table.rowidColumn?.toLowerCase() === resolved.column.name.toLowerCase())
      tables.add(resolved.table.name.toLowerCase());
  });
  return tables;
}

/** Every node of a plan, depth first. */
export function* walkPlan<T extends { children: T[] }>(nodes: readonly T[]): Generator<T> {
  for (const node of nodes) {
    yield node;
    yield* walkPlan(node.children);
  }
}
