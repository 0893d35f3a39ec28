import * as fs from 'fs';
import { databasePath } from '../bird/layout';
import type { EvalTask } from '../bird/tasks';
import type { DatabaseConnection } from '../db/engine';
import { SchemaInfo } from '../db/schema';
import { sqliteEngine } from '../db/sqlite/sqliteEngine';
import type { QuestionResult } from './types';
import { decideEquivalence } from '../results/equivalence';
import { exFragility } from '../results/counterexample/exFragile';
import { searchCounterexample } from '../results/counterexample/search';

export interface RobustnessOptions {
  dbRoot: string;
  /** Where witness databases are written (created when missing). */
  outDir: string;
  /** Search time for one EX-correct pair. */
  pairBudgetMs: number;
  /** Search time for the whole file: pairs past it are not searched (said in their result). */
  totalBudgetMs: number;
  /** Time limit for re-running one mismatched pair (ex_fragile). */
  timeoutMs: number;
  maxRows: number;
  onProgress?: (done: number, total: number, last: string) => void;
}

/**
 * The step after evaluation that asks how far EX can be trusted, question by question (SQLite only): each
 * EX-correct pair gets an `equivalence` verdict and, unless proved equivalent, a search for a counterexample
 * database (`counterexample`, `counterexample_search`); each mismatch is checked for `ex_fragile` (float
 * digits, row order). Results are changed in place; nothing here changes a score.
 */
export async function checkRobustness(results: QuestionResult[], tasks: readonly EvalTask[], options: RobustnessOptions): Promise<void> {
  fs.mkdirSync(options.outDir, { recursive: true });
  const taskOf = new Map(tasks.map((task) => [task.question.index, task]));
  const connections = new Map<string, { db: DatabaseConnection; schema: SchemaInfo }>();
  const open = async (dbId: string) => {
    let opened = connections.get(dbId);
    if (!opened) {
      const db = await sqliteEngine.open(databasePath(options.dbRoot, dbId));
      opened = { db, schema: await db.readSchema() };
      connections.set(dbId, opened);
    }
    return opened;
  };
  const overallDeadline = performance.now() + options.totalBudgetMs;
  const todo = results.filter((r) => r.outcome === 'correct' || r.outcome === 'mismatch');
  let done = 0;
  try {
    for (const result of todo) {
      const task = taskOf.get(result.index);
      if (!task?.goldSql || !task.predictedSql) continue;
      const dbPath = databasePath(options.dbRoot, result.db_id);
      const { db, schema } = await open(result.db_id).catch(() => ({ db: undefined, schema: undefined }));
      if (!db || !schema) continue;
      if (result.outcome === 'correct') {
        result.equivalence = decideEquivalence(task.goldSql, task.predictedSql, schema, result.same_program);
        if (result.equivalence.verdict === 'equivalent') {
          result.counterexample_search = { result: 'not_searched', variations_tried: 0, seconds: 0, note: 'proved equivalent' };
        } else if (performance.now() >= overallDeadline) {
          result.counterexample_search = {
            result: 'not_searched',
            variations_tried: 0,
            seconds: 0,
            note: `the whole search's budget (${options.totalBudgetMs / 1000} s) was spent`,
          };
        } else {
          const found = await searchCounterexample(
            { dbPath, gold: task.goldSql, prediction: task.predictedSql, name: `${result.index}-${result.question_id}-${result.db_id}` },
            { outDir: options.outDir, budgetMs: options.pairBudgetMs, maxRows: options.maxRows, schema },
          );
          result.counterexample_search = found.search;
          if (found.counterexample) result.counterexample = found.counterexample;
        }
      } else {
        const fragile = await exFragility({
          db,
          openFresh: () => sqliteEngine.open(dbPath),
          gold: task.goldSql,
          prediction: task.predictedSql,
          deadline: performance.now() + options.timeoutMs,
          maxRows: options.maxRows,
        });
        if (fragile) result.ex_fragile = fragile;
      }
      options.onProgress?.(
        ++done,
        todo.length,
        `${result.question_id}: ${result.counterexample ? 'counterexample' : (result.ex_fragile?.kind ?? result.outcome)}`,
      );
    }
  } finally {
    for (const { db } of connections.values()) await db.close();
  }
}
