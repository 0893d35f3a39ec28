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
import type { DatabaseSource } from '../core/db/source';

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

const SERVER_NAMES: Record<string, string> = { postgres: 'PostgreSQL', mysql: 'MySQL' };

/** A server the run's `source` names that could not be reached, refused naming `option` and the kind of server it is. */
export function serverUnreachable(source: Pick<DatabaseSource, 'engine'>, option: string, error: Error): RunRefused {
  return new RunRefused(option, `cannot reach the ${SERVER_NAMES[source.engine.name] ?? 'database'} server: ${error.message}`);
}
