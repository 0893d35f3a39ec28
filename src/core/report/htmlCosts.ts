import { DatabaseConnection } from '../db/engine';
import { openDatabase } from '../db/engines';
import { readSchema, SchemaInfo } from '../db/schema';
import { EvalTask } from '../bird/tasks';
import { DatabaseSource } from '../db/source';
import { QuestionResult } from '../eval/types';
import { ReportQuestion } from '../eval/reportFile';
import { explainQuery } from '../plan/explain';
import { PlanCostPair } from '../plan/cost';

/**
 * Plan costs (rule cost and row-aware estimate, plan/cost.ts) of a question's gold and prediction, from the
 * engine's plan of each (nothing runs), on a connection already open: each connection's schema is read once.
 */
export class PlanCostReader {
  private readonly schemas = new WeakMap<DatabaseConnection, Promise<SchemaInfo>>();

  async costs(db: DatabaseConnection, task: EvalTask): Promise<PlanCostPair> {
    let schema = this.schemas.get(db);
    if (!schema) {
      schema = readSchema(db);
      this.schemas.set(db, schema);
    }
    const known = await schema;
    const cost = async (sql: string | undefined) => {
      if (sql === undefined || !sql.trim()) return null;
      const plan = await explainQuery(db, sql, known);
      return plan.error ? null : plan.cost;
    };
    return { gold: await cost(task.goldSql), pred: await cost(task.predictedSql) };
  }
}

/**
 * Plan costs of every question's gold and prediction (PlanCostReader): the HTML report draws them against measured
 * time, and `compare` reads them back from the JSON. Skipped questions get none. Each database's questions are
 * explained on `jobs` connections at once, as eval's lanes score them (a server plans them on its cores; the costs
 * do not depend on it). Returns a map by question index.
 */
export async function planCosts(tasks: readonly EvalTask[], source: DatabaseSource, jobs = 1): Promise<Map<number, PlanCostPair>> {
  const costs = new Map<number, PlanCostPair>();
  const byDb = new Map<string, EvalTask[]>();
  for (const task of tasks) {
    const dbId = task.question.dbId;
    if (!dbId || !(await source.exists(dbId).catch(() => false))) continue;
    byDb.set(dbId, [...(byDb.get(dbId) ?? []), task]);
  }
  const reader = new PlanCostReader();
  for (const [dbId, dbTasks] of byDb) {
    const opened = await Promise.allSettled(
      Array.from({ length: Math.max(1, Math.min(jobs, dbTasks.length)) }, () => openDatabase(source.targetFor(dbId))),
    );
    const connections = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    if (connections.length === 0) continue;
    try {
      let next = 0;
      const explainOn = async (db: DatabaseConnection) => {
        while (next < dbTasks.length) {
          const task = dbTasks[next++];
          costs.set(task.question.index, await reader.costs(db, task));
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

/**
 * Adds `plan_cost` (the eval JSON's field) to each `wanted` result that has none yet and was not skipped: those
 * scored before (a resumed run's) or whose lane could not explain them.
 */
export async function attachPlanCosts(
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  source: DatabaseSource,
  wanted: (result: QuestionResult) => boolean,
  jobs = 1,
): Promise<void> {
  const lacking = new Set(
    results.filter((result) => !(result as ReportQuestion).plan_cost && result.outcome !== 'skipped' && wanted(result)).map((r) => r.index),
  );
  if (lacking.size === 0) return;
  const costs = await planCosts(
    tasks.filter((task) => lacking.has(task.question.index)),
    source,
    jobs,
  );
  for (const result of results) {
    const cost = costs.get(result.index);
    if (cost && lacking.has(result.index)) (result as ReportQuestion).plan_cost = cost;
  }
}
