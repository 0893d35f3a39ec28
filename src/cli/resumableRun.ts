import pc from 'picocolors';
import type { NamedInput, ProtectedFolder } from '../core/io/outputPaths';
import { claimCheckpoint, type ResumableRunNotes } from '../app/resumableRun';
import { sayClaimedOutput, UsageError } from './common';

/**
 * eval, judge and audit's checkpoint and interruption as the command line has them (the run's side in
 * app/resumableRun.ts): the first Ctrl-C or SIGTERM stops the run after the question under way, it writes the
 * partial report (`"complete": false`) and exits 130 (143); `--resume` continues from the checkpoint beside the
 * report.
 */

/** The file a `--json` / `--html` value names: none for standard output (no value, or `-`). */
export function fileOutput(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '-' && value !== '' ? value : undefined;
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
  const { file, claimed, found } = claimCheckpoint(output, inputs, folders);
  sayClaimedOutput(file, claimed);
  if (resume && !found)
    throw new UsageError(`--resume: no checkpoint at ${file}: nothing to resume (the run finished, or never started with this output)`);
  return file;
}

/** What starting a resumable run says on stderr (app/resumableRun.ts's startResumableRun takes it). */
export const RESUME_NOTES: ResumableRunNotes = {
  startingOver: (file) =>
    process.stderr.write(
      `${pc.yellow('note')}: starting over: the checkpoint ${file} of an earlier run is replaced (--resume continues it)\n`,
    ),
  checkpointFailed: (file, failure) =>
    process.stderr.write(
      `${pc.yellow('warning')}: cannot write the checkpoint ${file} (${failure}): the run goes on, but cannot be resumed\n`,
    ),
};

/** What the end of an interrupted run says, after writing its partial report. */
export function interruptedLine(done: number, total: number, written: string | undefined, resumable: boolean): string {
  return (
    `${pc.yellow('interrupted')} after ${done} of ${total} questions` +
    (written ? `: wrote the partial report ${written} ("complete": false)` : '') +
    (resumable ? '; continue with the same command and --resume' : '') +
    '\n'
  );
}
