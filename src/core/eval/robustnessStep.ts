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
  /** Time a found witness may take to shrink (default: searchCounterexample's). */
  shrinkMs?: number;
  /** Search time for the whole file: pairs past it are not searched (said in their result). */
  totalBudgetMs: number;
  /** Time limit for re-running one mismatched pair (ex_fragile). */
  timeoutMs: number;
  maxRows: number;
  /** Ctrl-C: the search under way stops at its next query, the pairs left are not checked (said in the result). */
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, last: string) => void;
}

/** How far the step got: `checked` of `total` pairs (EX-correct and mismatches), fewer when it was interrupted. */
export interface RobustnessRun {
  checked: number;
  total: number;
  interrupted: boolean;
}

/** The search record of an EX-correct pair the step did not search because the run was interrupted. */
export const INTERRUPTED_SEARCH_NOTE = 'the run was interrupted (Ctrl-C or SIGTERM) before this pair was searched';

/**
 * The step after evaluation that asks how far EX can be trusted, question by question (SQLite only): each
 * EX-correct pair gets an `equivalence` verdict and, unless proved equivalent, a search for a counterexample
 * database (`counterexample`, `counterexample_search`); each mismatch is checked for `ex_fragile` (float
 * digits, row order). Results are changed in place; nothing here changes a score. A pair whose database cannot be
 * opened is not searched, and says why. When `signal` aborts, the pair under way and those left are marked
 * not searched (`interrupted` in the returned run).
 */
export async function checkRobustness(
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  options: RobustnessOptions,
): Promise<RobustnessRun> {
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
  const interrupted = () => options.signal?.aborted === true;
  try {
    for (const result of todo) {
      if (interrupted()) {
        if (result.outcome === 'correct' && !result.counterexample_search)
          result.counterexample_search = notSearched(INTERRUPTED_SEARCH_NOTE);
        continue;
      }
      const task = taskOf.get(result.index);
      if (!task?.goldSql || !task.predictedSql) continue;
      const dbPath = databasePath(options.dbRoot, result.db_id);
      let opened: { db: DatabaseConnection; schema: SchemaInfo };
      try {
        opened = await open(result.db_id);
      } catch (error) {
        const why = `cannot open the database ${dbPath}: ${(error as Error).message}`;
        if (result.outcome === 'correct') result.counterexample_search = notSearched(why);
        else result.notes.push(`the EX-fragile check was not run: ${why}`);
        continue;
      }
      const { db, schema } = opened;
      if (result.outcome === 'correct') {
        result.equivalence = decideEquivalence(task.goldSql, task.predictedSql, schema, result.same_program);
        if (result.equivalence.verdict === 'equivalent') {
          result.counterexample_search = notSearched('proved equivalent');
        } else if (performance.now() >= overallDeadline) {
          result.counterexample_search = notSearched(`the whole search's budget (${options.totalBudgetMs / 1000} s) was spent`);
        } else {
          const found = await searchCounterexample(
            { dbPath, gold: task.goldSql, prediction: task.predictedSql, name: `${result.index}-${result.question_id}-${result.db_id}` },
            {
              outDir: options.outDir,
              budgetMs: options.pairBudgetMs,
              shrinkMs: options.shrinkMs,
              maxRows: options.maxRows,
              schema,
              signal: options.signal,
            },
          );
          // Cut short by the interruption: what it tried is kept, but it counts as not searched.
          result.counterexample_search =
            interrupted() && !found.counterexample
              ? { ...found.search, result: 'not_searched', note: INTERRUPTED_SEARCH_NOTE }
              : found.search;
          if (found.counterexample) result.counterexample = found.counterexample;
          if (interrupted() && !found.counterexample) continue;
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
  return { checked: done, total: todo.length, interrupted: interrupted() };
}

const notSearched = (note: string) => ({ result: 'not_searched' as const, variations_tried: 0, seconds: 0, note });
