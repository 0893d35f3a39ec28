import * as fs from 'fs';
import pc from 'picocolors';
import { databasePath } from '../core/bird/layout';
import {
  Checkpoint,
  checkpointHeader,
  checkpointPathFor,
  CheckpointMismatch,
  fileHash,
  fileStamp,
  FingerprintParts,
} from '../core/io/checkpoint';
import { NamedInput, ProtectedFolder, realOutputPath } from '../core/io/outputPaths';
import { checkOutputFile, UsageError } from './common';
import { interruptible, Interruptible } from './interrupt';

/**
 * A long run that survives an interruption (eval, judge, audit): its finished questions go to a checkpoint beside its
 * report as they finish; the first Ctrl-C or SIGTERM stops it after the question under way, it writes the
 * partial report (`"complete": false`) and exits 130 (143); `--resume` takes the checkpoint's questions over and
 * runs the rest. The questions are keyed by their position in the question file.
 */

/** The file a `--json` / `--html` value names: none for standard output (no value, or `-`). */
export function fileOutput(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '-' && value !== '' ? value : undefined;
}

/** The parts of a run's fingerprint that its input files and databases make: contents, and databases' size and time. */
export function inputFingerprint(inputs: readonly NamedInput[], dbRoot: string | undefined, dbIds: Iterable<string>): FingerprintParts {
  const parts: FingerprintParts = {};
  for (const { label, file } of inputs) parts[label] = file ? fileHash(file) : null;
  if (dbRoot !== undefined) {
    parts['--db-root'] = realOutputPath(dbRoot);
    parts.databases = [...new Set(dbIds)].sort().map((dbId) => [dbId, fileStamp(databasePath(dbRoot, dbId))]);
  }
  return parts;
}

export interface ResumableRun<T> {
  /** Undefined without an output file to keep it beside. */
  checkpoint: Checkpoint<T> | undefined;
  /** Results taken over from the checkpoint (empty without --resume), by question index. */
  resumed: Map<number, T>;
  /** Results finished in this run before any interruption, by question index. */
  finished: Map<number, T>;
  interrupt: Interruptible;
  /** Records one finished result (unless the run was interrupted meanwhile: its result may be cut short). */
  finish(index: number, result: T): void;
  /** True when the first signal stopped the run. */
  interrupted(): boolean;
}

/**
 * Checks where the checkpoint goes (beside `output`, which must not reach an input either) and that `--resume`
 * has one to continue, before any work. Returns the checkpoint path, or undefined without an output file.
 */
export function checkCheckpointPath(
  output: string | undefined,
  resume: boolean | undefined,
  inputs: readonly NamedInput[],
  folders: readonly ProtectedFolder[],
): string | undefined {
  if (output === undefined) {
    if (resume)
      throw new UsageError('--resume: give the --json FILE (or --html FILE) of the run to continue: its checkpoint is kept beside it');
    return undefined;
  }
  const file = checkpointPathFor(output);
  checkOutputFile('checkpoint', file, inputs, folders);
  if (resume && !fs.existsSync(file))
    throw new UsageError(`--resume: no checkpoint at ${file}: nothing to resume (the run finished, or never started with this output)`);
  return file;
}

/** Opens the checkpoint (resumed or new) and starts listening for Ctrl-C. `what` says what the first signal does. */
export function startResumableRun<T>(
  command: string,
  checkpointFile: string | undefined,
  parts: FingerprintParts,
  resume: boolean,
  what: string,
): ResumableRun<T> {
  let checkpoint: Checkpoint<T> | undefined;
  if (checkpointFile !== undefined) {
    if (!resume && fs.existsSync(checkpointFile))
      process.stderr.write(
        `${pc.yellow('note')}: starting over: the checkpoint ${checkpointFile} of an earlier run is replaced (--resume continues it)\n`,
      );
    try {
      checkpoint = Checkpoint.open<T>(checkpointFile, checkpointHeader(command, parts), resume);
    } catch (error) {
      if (error instanceof CheckpointMismatch) throw new UsageError(`--resume: ${error.message}`);
      throw new UsageError(`checkpoint: cannot write ${checkpointFile}: ${(error as Error).message}`);
    }
  }
  const interrupt = interruptible(what);
  const finished = new Map<number, T>();
  let failureSaid = false;
  return {
    checkpoint,
    resumed: checkpoint?.resumed ?? new Map(),
    finished,
    interrupt,
    interrupted: () => interrupt.signal.aborted,
    finish(index, result) {
      if (interrupt.signal.aborted) return;
      finished.set(index, result);
      checkpoint?.append(index, result);
      if (checkpoint?.failure && !failureSaid) {
        failureSaid = true;
        process.stderr.write(
          `${pc.yellow('warning')}: cannot write the checkpoint ${checkpoint.file} (${checkpoint.failure}): ` +
            'the run goes on, but cannot be resumed\n',
        );
      }
    },
  };
}

/** What the end of an interrupted run says, after writing its partial report. */
export function interruptedLine(done: number, total: number, written: string | undefined, resumable: boolean): string {
  return (
    `${pc.yellow('interrupted')} after ${done} of ${total} questions` +
    (written ? `: wrote the partial report ${written} ("complete": false)` : '') +
    (resumable ? '; continue with the same command and --resume' : '') +
    '\n'
  );
}

// `completeness` is core's (core/eval/reportJson.ts): the editor's eval reports carry it too.
export { completeness } from '../core/eval/reportJson';
