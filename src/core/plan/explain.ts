import { RunLimits } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { MeasuredPlanTree, PlanNode } from '../db/planTree';
import { dialectOf, runnableBody } from '../db/readQuery';
import { SchemaInfo } from '../db/schema';
import { splitStatements } from '../sql/statements';
import { analysisBoundNote } from '../sql/textBounds';
import { tableAliases } from '../sql/scope';
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
  const { nodes, cost } = costPlan(tree, { aliases, tables: schema.tables });
  return { sql, nodes, cost };
}

/** Every node of a plan, depth first. */
export function* walkPlan<T extends { children: T[] }>(nodes: readonly T[]): Generator<T> {
  for (const node of nodes) {
    yield node;
    yield* walkPlan(node.children);
  }
}
