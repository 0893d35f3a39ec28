/**
 * The application layer (`src/app/`, docs/architecture.md's layer 8): one file per use case (`evalRun.ts`,
 * `auditRun.ts`, `judgeRun.ts`, `optimizeRun.ts`) that the CLI and the language server both call. A use case's
 * `prepare…Run` checks its options against the engine and reads its inputs, before any work; its `run…` runs it
 * and returns typed results. Neither words anything for a person: each face renders what it returns.
 *
 * This file: how a run is refused before any work, naming the option that cannot be (as the CLI spells it, which
 * is also the report's `inputs` key); the CLI exits 2 with the message, the editor shows it. A file that cannot be
 * used at all is core's InputFileError (naming the file), passed on here for the faces that tell the two apart.
 */
export { InputFileError } from '../core/bird/problems';

export class RunRefused extends Error {
  /** `message`: the whole sentence, where it does not read "option: reason". */
  constructor(
    readonly option: string,
    readonly reason: string,
    message = `${option}: ${reason}`,
  ) {
    super(message);
  }
}
