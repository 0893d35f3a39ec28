/**
 * A long run that survives an interruption (eval, judge, audit): its finished questions go to a checkpoint beside its
 * report as they finish; the first Ctrl-C or SIGTERM stops it after the question under way (app/interruption.ts),
 * the face writes the partial report (`"complete": false`), and a resumed run takes the checkpoint's questions over
 * and runs the rest. The questions are keyed by their position in the question file.
 */
import * as fs from 'fs';
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
import { interruptible, Interruptible } from './interruption';
import { ClaimedOutput, claimOutputFile } from './runOutputs';
import { RunRefused } from './runRefused';

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

/**
 * Claims the checkpoint's place beside `output` (it must not reach an input either), before any work; `found`: an
 * earlier run's checkpoint is there to resume.
 */
export function claimCheckpoint(
  output: string,
  inputs: readonly NamedInput[],
  folders: readonly ProtectedFolder[],
): { file: string; claimed: ClaimedOutput; found: boolean } {
  const file = checkpointPathFor(output);
  const claimed = claimOutputFile('checkpoint', file, inputs, folders);
  return { file, claimed, found: fs.existsSync(file) };
}

export interface ResumableRun<T> {
  /** Undefined without an output file to keep it beside. */
  checkpoint: Checkpoint<T> | undefined;
  /** Results taken over from the checkpoint (empty without a resume), by question index. */
  resumed: Map<number, T>;
  /** Results finished in this run before any interruption, by question index. */
  finished: Map<number, T>;
  interrupt: Interruptible;
  /** Records one finished result (unless the run was interrupted meanwhile: its result may be cut short). */
  finish(index: number, result: T): void;
  /** True when the first signal stopped the run. */
  interrupted(): boolean;
}

/** What starting a resumable run has the face say: an earlier checkpoint replaced, the checkpoint failing (once). */
export interface ResumableRunNotes {
  startingOver(checkpointFile: string): void;
  checkpointFailed(checkpointFile: string, failure: string): void;
}

/** Opens the checkpoint (resumed or new) and starts listening for Ctrl-C. `what` says what the first signal does. */
export function startResumableRun<T>(
  command: string,
  checkpointFile: string | undefined,
  parts: FingerprintParts,
  resume: boolean,
  what: string,
  notes: ResumableRunNotes,
): ResumableRun<T> {
  let checkpoint: Checkpoint<T> | undefined;
  if (checkpointFile !== undefined) {
    if (!resume && fs.existsSync(checkpointFile)) notes.startingOver(checkpointFile);
    try {
      checkpoint = Checkpoint.open<T>(checkpointFile, checkpointHeader(command, parts), resume);
    } catch (error) {
      if (error instanceof CheckpointMismatch) throw new RunRefused('--resume', error.message);
      throw new RunRefused('checkpoint', `cannot write ${checkpointFile}: ${(error as Error).message}`);
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
        notes.checkpointFailed(checkpoint.file, checkpoint.failure);
      }
    },
  };
}
