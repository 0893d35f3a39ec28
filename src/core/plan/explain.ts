import { ReadOnlyDatabase } from '../db/database';
import { runnableBody } from '../db/readQuery';
import { SchemaInfo } from '../db/schema';
import { tableAliases } from './aliases';
import { CostedNode, costPlan, PlanCost } from './cost';
import { buildPlanTree, PlanRow } from './parsePlan';

export interface ExplainedPlan {
  sql: string;
  nodes: CostedNode[];
  cost: PlanCost;
  /** Why there is no plan: SQLite's compile error, or a refusal. */
  error?: string;
}

/** SQLite's EXPLAIN QUERY PLAN of a read query, as a tree annotated with row counts and both costs. */
export async function explainQuery(db: ReadOnlyDatabase, sql: string, schema: SchemaInfo): Promise<ExplainedPlan> {
  const runnable = runnableBody(sql);
  if ('status' in runnable) return { sql, nodes: [], cost: { rule: 0, work: 0 }, error: runnable.message };
  if (!runnable.body) return { sql, nodes: [], cost: { rule: 0, work: 0 }, error: 'no statement to explain' };
  let rows: PlanRow[];
  try {
    rows = (await db.all(`EXPLAIN QUERY PLAN ${runnable.body}`)).map((r) => ({ id: Number(r.id), parent: Number(r.parent), detail: String(r.detail) }));
  } catch (error) {
    return { sql, nodes: [], cost: { rule: 0, work: 0 }, error: (error as Error).message };
  }
  return explainRows(sql, rows, schema);
}

/** Annotates plan rows (from a database or a fixture) against a schema. */
export function explainRows(sql: string, rows: readonly PlanRow[], schema: SchemaInfo): ExplainedPlan {
  const aliases = tableAliases(sql, [...schema.tables.values()].map((t) => t.name));
  const { nodes, cost } = costPlan(buildPlanTree(rows), { aliases, tables: schema.tables });
  return { sql, nodes, cost };
}

/** Every node of a plan, depth first. */
export function* walkPlan<T extends { children: T[] }>(nodes: readonly T[]): Generator<T> {
  for (const node of nodes) {
    yield node;
    yield* walkPlan(node.children);
  }
}
