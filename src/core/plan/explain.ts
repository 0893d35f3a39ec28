import { DatabaseConnection } from '../db/engine';
import { PlanNode } from '../db/planTree';
import { runnableBody } from '../db/readQuery';
import { SchemaInfo } from '../db/schema';
import { tableAliases } from '../sql/scope';
import { CostedNode, costPlan, PlanCost } from './cost';

export interface ExplainedPlan {
  sql: string;
  nodes: CostedNode[];
  cost: PlanCost;
  /** Why there is no plan: SQLite's compile error, or a refusal. */
  error?: string;
}

/** The engine's plan of a read query, as a tree annotated with row counts and both costs. */
export async function explainQuery(db: DatabaseConnection, sql: string, schema: SchemaInfo): Promise<ExplainedPlan> {
  const runnable = runnableBody(sql);
  if ('status' in runnable) return { sql, nodes: [], cost: { rule: 0, work: 0 }, error: runnable.message };
  if (!runnable.body) return { sql, nodes: [], cost: { rule: 0, work: 0 }, error: 'no statement to explain' };
  let tree: PlanNode[];
  try {
    tree = await db.explainPlan(runnable.body);
  } catch (error) {
    return { sql, nodes: [], cost: { rule: 0, work: 0 }, error: (error as Error).message };
  }
  return explainTree(sql, tree, schema);
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
