import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import type { EvalTask } from '../core/bird/tasks';
import type { DatabaseSource } from '../core/db/source';
import type { RobustnessRun } from '../core/eval/robustnessStep';
import type { QuestionResult } from '../core/eval/types';
import type { NamedInput } from '../core/io/outputPaths';
import { prepareCounterexampleFolder, searchCounterexamples } from '../app/counterexampleSearch';
import { positiveNumber } from './common';

export interface CounterexampleCliOptions {
  /** Folder for the counterexample databases; turns on equivalence, counterexamples and ex_fragile. */
  counterexamples?: string;
  /** Search seconds per EX-correct pair. */
  counterexampleSeconds?: string;
  dbRoot?: string;
}

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
  prepareCounterexampleFolder(options.counterexamples, source, options.dbRoot, inputs);
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
    return await searchCounterexamples(results, tasks, {
      dbRoot: options.dbRoot!,
      outDir: options.counterexamples!,
      pairBudgetMs: options.pairBudgetMs,
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
