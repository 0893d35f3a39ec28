import { DatabaseConnection } from '../db/engine';
import { openDatabase } from '../db/engines';
import { readSchema, SchemaInfo } from '../db/schema';
import { EvalTask } from '../bird/tasks';
import { DatabaseSource } from '../db/source';
import { QuestionResult } from '../eval/types';
import { explainQuery } from '../plan/explain';
import { PlanCostPair } from '../plan/cost';

/**
 * Plan costs (rule cost and row-aware estimate, plan/cost.ts) of every question's gold and prediction, from
 * SQLite's EXPLAIN QUERY PLAN (nothing runs): the HTML report draws them against measured time, and `compare`
 * reads them back from the JSON. Skipped questions get none. Returns a map by question index.
 */
export async function planCosts(tasks: readonly EvalTask[], source: DatabaseSource): Promise<Map<number, PlanCostPair>> {
  const costs = new Map<number, PlanCostPair>();
  const byDb = new Map<string, EvalTask[]>();
  for (const task of tasks) {
    const dbId = task.question.dbId;
    if (!dbId || !(await source.exists(dbId).catch(() => false))) continue;
    byDb.set(dbId, [...(byDb.get(dbId) ?? []), task]);
  }
  for (const [dbId, dbTasks] of byDb) {
    let db: DatabaseConnection;
    let schema: SchemaInfo;
    try {
      db = await openDatabase(source.targetFor(dbId));
    } catch {
      continue;
    }
    try {
      schema = await readSchema(db);
      const cost = async (sql: string | undefined) => {
        if (sql === undefined || !sql.trim()) return null;
        const plan = await explainQuery(db, sql, schema);
        return plan.error ? null : plan.cost;
      };
      for (const task of dbTasks) costs.set(task.question.index, { gold: await cost(task.goldSql), pred: await cost(task.predictedSql) });
    } catch {
      // A damaged database: its questions are gold errors already; they get no costs.
    } finally {
      await db.close();
    }
  }
  return costs;
}

/** Adds `plan_cost` to each result that has one (the eval JSON's field). */
export async function attachPlanCosts(results: QuestionResult[], tasks: readonly EvalTask[], source: DatabaseSource): Promise<void> {
  const costs = await planCosts(tasks, source);
  for (const result of results) {
    const cost = costs.get(result.index);
    if (cost && result.outcome !== 'skipped') (result as QuestionResult & { plan_cost?: PlanCostPair }).plan_cost = cost;
  }
}
