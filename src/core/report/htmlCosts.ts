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
 * reads them back from the JSON. Skipped questions get none. Each database's questions are explained on `jobs`
 * connections at once, as eval's lanes score them (a server plans them on its cores; the costs do not depend on
 * it). Returns a map by question index.
 */
export async function planCosts(tasks: readonly EvalTask[], source: DatabaseSource, jobs = 1): Promise<Map<number, PlanCostPair>> {
  const costs = new Map<number, PlanCostPair>();
  const byDb = new Map<string, EvalTask[]>();
  for (const task of tasks) {
    const dbId = task.question.dbId;
    if (!dbId || !(await source.exists(dbId).catch(() => false))) continue;
    byDb.set(dbId, [...(byDb.get(dbId) ?? []), task]);
  }
  for (const [dbId, dbTasks] of byDb) {
    const opened = await Promise.allSettled(
      Array.from({ length: Math.max(1, Math.min(jobs, dbTasks.length)) }, () => openDatabase(source.targetFor(dbId))),
    );
    const connections = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    if (connections.length === 0) continue;
    try {
      const schema: SchemaInfo = await readSchema(connections[0]);
      let next = 0;
      const explainOn = async (db: DatabaseConnection) => {
        const cost = async (sql: string | undefined) => {
          if (sql === undefined || !sql.trim()) return null;
          const plan = await explainQuery(db, sql, schema);
          return plan.error ? null : plan.cost;
        };
        while (next < dbTasks.length) {
          const task = dbTasks[next++];
          costs.set(task.question.index, { gold: await cost(task.goldSql), pred: await cost(task.predictedSql) });
        }
      };
      const workers = await Promise.allSettled(connections.map(explainOn));
      const failed = workers.find((worker) => worker.status === 'rejected');
      if (failed) throw failed.reason;
    } catch {
      // A damaged database: its questions are gold errors already; they get no costs.
    } finally {
      await Promise.all(connections.map((db) => db.close()));
    }
  }
  return costs;
}

/** Adds `plan_cost` to each result that has one (the eval JSON's field). */
export async function attachPlanCosts(
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  source: DatabaseSource,
  jobs = 1,
): Promise<void> {
  const costs = await planCosts(tasks, source, jobs);
  for (const result of results) {
    const cost = costs.get(result.index);
    if (cost && result.outcome !== 'skipped') (result as QuestionResult & { plan_cost?: PlanCostPair }).plan_cost = cost;
  }
}
