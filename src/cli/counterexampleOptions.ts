import * as fs from 'fs';
import * as path from 'path';
import { SingleBar } from 'cli-progress';
import type { EvalTask } from '../core/bird/tasks';
import type { DatabaseSource } from '../core/db/source';
import { checkRobustness } from '../core/eval/robustnessStep';
import type { QuestionResult } from '../core/eval/types';
import { robustnessLines, RobustnessSummary } from '../core/eval/robustnessSummary';
import { positiveNumber, UsageError } from './common';

export interface CounterexampleCliOptions {
  /** Folder for the witness databases; turns on equivalence, counterexamples and ex_fragile. */
  counterexamples?: string;
  /** Search seconds per EX-correct pair. */
  counterexampleSeconds?: string;
  dbRoot?: string;
}

/** Whole-file search budget: ten minutes, or the per-pair budget times the pairs, whichever is less. */
const TOTAL_BUDGET_MS = 10 * 60 * 1000;
export const DEFAULT_PAIR_SECONDS = '3';

/** Checks --counterexamples before any question runs (SQLite databases in files) and makes its folder; the per-pair budget in ms. */
export function checkCounterexampleOptions(options: CounterexampleCliOptions, source: DatabaseSource): number | undefined {
  if (options.counterexamples === undefined) return undefined;
  if (source.engine.name !== 'sqlite' || options.dbRoot === undefined)
    throw new UsageError(
      '--counterexamples: witness databases are SQLite files made from SQLite files; use --db-root (not --engine postgres)',
    );
  const folder = path.resolve(options.counterexamples);
  if (fs.existsSync(folder) && !fs.statSync(folder).isDirectory())
    throw new UsageError(`--counterexamples: ${options.counterexamples} is a file; give a folder for the witness databases`);
  if (folder === path.resolve(options.dbRoot) || folder.startsWith(path.resolve(options.dbRoot) + path.sep))
    throw new UsageError('--counterexamples: give a folder outside --db-root (the databases are never written)');
  try {
    fs.mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw new UsageError(`--counterexamples: cannot make the folder ${options.counterexamples}: ${(error as Error).message}`);
  }
  const seconds = positiveNumber('--counterexample-seconds', options.counterexampleSeconds ?? DEFAULT_PAIR_SECONDS);
  return seconds * 1000;
}

/** The step after scoring: equivalence and counterexamples for EX-correct pairs, ex_fragile for mismatches. */
export async function runCounterexampleStep(
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  options: CounterexampleCliOptions & { pairBudgetMs: number; timeoutMs: number; maxRows: number; progress: boolean },
): Promise<void> {
  const err = process.stderr;
  const bar =
    options.progress && err.isTTY
      ? new SingleBar({ format: ' {bar} {value}/{total} pairs checked · {last}', hideCursor: true, stream: err })
      : undefined;
  err.write(`looking for counterexample databases (up to ${options.pairBudgetMs / 1000} s a pair) and EX-fragile mismatches\n`);
  try {
    await checkRobustness(results, tasks, {
      dbRoot: options.dbRoot!,
      outDir: options.counterexamples!,
      pairBudgetMs: options.pairBudgetMs,
      totalBudgetMs: TOTAL_BUDGET_MS,
      timeoutMs: options.timeoutMs,
      maxRows: options.maxRows,
      onProgress: (done, total, last) => {
        if (done === 1) bar?.start(total, 0, { last: '' });
        bar?.update(done, { last });
      },
    });
  } finally {
    bar?.stop();
  }
}

/** The terminal's lines under the tables: counterexamples, provable equivalences, EX-fragile mismatches. */
export function robustnessBlock(summary: RobustnessSummary | undefined): string | undefined {
  return summary ? robustnessLines(summary).join('\n') : undefined;
}
