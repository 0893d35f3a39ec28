/**
 * eval's counterexample step (`--counterexamples`), between scoring and the summary: for each EX-correct pair, a
 * proof of equivalence or a small database where gold and prediction differ, written to a folder, and which
 * mismatches are EX-fragile (core/eval/robustnessStep.ts). SQLite only: the witnesses are SQLite files made from
 * the SQLite files. The folder is checked before any question runs; the search has a budget per pair and one for
 * the whole file.
 */
import * as fs from 'fs';
import type { EvalTask } from '../core/bird/tasks';
import type { DatabaseSource } from '../core/db/source';
import { checkRobustness, RobustnessOptions, RobustnessRun } from '../core/eval/robustnessStep';
import type { QuestionResult } from '../core/eval/types';
import type { NamedInput } from '../core/io/outputPaths';
import { checkedOutputPath } from './runOutputs';
import { RunRefused } from './runRefused';

/** Whole-file search budget: ten minutes, or the per-pair budget times the pairs, whichever is less. */
const TOTAL_BUDGET_MS = 10 * 60 * 1000;

/**
 * Checks the counterexample folder before any question runs (the engine reads SQLite files under `dbRoot`; the
 * folder, compared by real path as any output is, is no input file and lies outside `dbRoot`) and makes it.
 */
export function prepareCounterexampleFolder(
  folder: string,
  source: DatabaseSource,
  dbRoot: string | undefined,
  inputs: readonly NamedInput[],
): void {
  if (source.engine.name !== 'sqlite' || dbRoot === undefined)
    throw new RunRefused(
      '--counterexamples',
      'counterexample databases are SQLite files made from SQLite files; use --db-root (not --engine postgres)',
    );
  const real = checkedOutputPath('--counterexamples', folder, inputs, [{ label: '--db-root', folder: dbRoot }]);
  if (fs.existsSync(real) && !fs.statSync(real).isDirectory())
    throw new RunRefused('--counterexamples', `${folder} is a file; give a folder for the counterexample databases`);
  try {
    fs.mkdirSync(real, { recursive: true });
  } catch (error) {
    throw new RunRefused('--counterexamples', `cannot make the folder ${folder}: ${(error as Error).message}`);
  }
}

/** The search's settings as a face has them; the whole file's budget is this file's. */
export type CounterexampleSearch = Omit<RobustnessOptions, 'totalBudgetMs'>;

/** The step over the scored results; `signal` (the run's Ctrl-C) stops it at the next query, the run says how far it got. */
export function searchCounterexamples(
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  search: CounterexampleSearch,
): Promise<RobustnessRun> {
  return checkRobustness(results, tasks, { ...search, totalBudgetMs: TOTAL_BUDGET_MS });
}
