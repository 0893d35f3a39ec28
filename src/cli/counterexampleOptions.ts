import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import type { EvalTask } from '../core/bird/tasks';
import type { DatabaseSource } from '../core/db/source';
import { checkRobustness, RobustnessRun } from '../core/eval/robustnessStep';
import type { QuestionResult } from '../core/eval/types';
import { robustnessLines, RobustnessSummary } from '../core/eval/robustnessSummary';
import { checkOutputAgainstInputs, NamedInput, OutputClash, realOutputPath } from '../core/io/outputPaths';
import { positiveNumber, UsageError } from './common';

export interface CounterexampleCliOptions {
  /** Folder for the counterexample databases; turns on equivalence, counterexamples and ex_fragile. */
  counterexamples?: string;
  /** Search seconds per EX-correct pair. */
  counterexampleSeconds?: string;
  dbRoot?: string;
}

/** Whole-file search budget: ten minutes, or the per-pair budget times the pairs, whichever is less. */
const TOTAL_BUDGET_MS = 10 * 60 * 1000;
export const DEFAULT_PAIR_SECONDS = '3';

/**
 * Checks --counterexamples before any question runs (SQLite databases in files) and makes its folder; the per-pair
 * budget in ms. The folder is compared by real path (symbolic links resolved), as --json is: it must be no input
 * file and lie outside --db-root.
 */
export function checkCounterexampleOptions(
  options: CounterexampleCliOptions,
  source: DatabaseSource,
  inputs: readonly NamedInput[] = [],
): number | undefined {
  if (options.counterexamples === undefined) return undefined;
  if (source.engine.name !== 'sqlite' || options.dbRoot === undefined)
    throw new UsageError(
      '--counterexamples: counterexample databases are SQLite files made from SQLite files; use --db-root (not --engine postgres)',
    );
  let folder: string;
  try {
    checkOutputAgainstInputs('--counterexamples', options.counterexamples, inputs, [{ label: '--db-root', folder: options.dbRoot }]);
    folder = realOutputPath(options.counterexamples);
  } catch (error) {
    if (error instanceof OutputClash)
      throw new UsageError(error.message.startsWith('--') ? error.message : `--counterexamples: ${error.message}`);
    throw error;
  }
  if (fs.existsSync(folder) && !fs.statSync(folder).isDirectory())
    throw new UsageError(`--counterexamples: ${options.counterexamples} is a file; give a folder for the counterexample databases`);
  try {
    fs.mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw new UsageError(`--counterexamples: cannot make the folder ${options.counterexamples}: ${(error as Error).message}`);
  }
  const seconds = positiveNumber('--counterexample-seconds', options.counterexampleSeconds ?? DEFAULT_PAIR_SECONDS);
  return seconds * 1000;
}

/**
 * The step after scoring: equivalence and counterexamples for EX-correct pairs, ex_fragile for mismatches. `signal`
 * (the run's Ctrl-C) stops it at the next query; the returned run says how far it got.
 */
export async function runCounterexampleStep(
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  options: CounterexampleCliOptions & { pairBudgetMs: number; timeoutMs: number; maxRows: number; progress: boolean; signal?: AbortSignal },
): Promise<RobustnessRun> {
  const err = process.stderr;
  const bar =
    options.progress && err.isTTY
      ? new SingleBar({ format: ' {bar} {value}/{total} pairs checked · {last}', hideCursor: true, stream: err })
      : undefined;
  err.write(`looking for counterexample databases (up to ${options.pairBudgetMs / 1000} s a pair) and EX-fragile mismatches\n`);
  try {
    return await checkRobustness(results, tasks, {
      dbRoot: options.dbRoot!,
      outDir: options.counterexamples!,
      pairBudgetMs: options.pairBudgetMs,
      totalBudgetMs: TOTAL_BUDGET_MS,
      timeoutMs: options.timeoutMs,
      maxRows: options.maxRows,
      signal: options.signal,
      onProgress: (done, total, last) => {
        if (done === 1) bar?.start(total, 0, { last: '' });
        bar?.update(done, { last });
      },
    });
  } finally {
    bar?.stop();
  }
}

/** What the end of a run says when Ctrl-C stopped its counterexample search (the scores are complete). */
export function searchInterruptedLine(run: RobustnessRun, written: string | undefined, resumable: boolean): string {
  return (
    `${pc.yellow('interrupted')} during the counterexample search after ${run.checked} of ${run.total} pairs; the scores are complete` +
    (written ? `: wrote the report ${written} (summary.robustness "complete": false)` : '') +
    (resumable ? '; the same command with --resume searches again without scoring again' : '') +
    '\n'
  );
}

/** The terminal's lines under the tables: counterexamples, provable equivalences, EX-fragile mismatches. */
export function robustnessBlock(summary: RobustnessSummary | undefined): string | undefined {
  return summary ? robustnessLines(summary).join('\n') : undefined;
}
