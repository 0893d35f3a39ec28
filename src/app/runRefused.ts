/**
 * The application layer (`src/app/`, docs/architecture.md's layer 8): one file per use case (`evalRun.ts`,
 * `auditRun.ts`, `judgeRun.ts`, `optimizeRun.ts`) that the CLI and the language server both call. A use case's
 * `prepare…Run` checks its options against the engine and reads its inputs, before any work; its `run…` runs it
 * and returns typed results. Neither words anything for a person: each face renders what it returns.
 *
 * This file: how a run is refused before any work, naming the option that cannot be (as the CLI spells it, which
 * is also the report's `inputs` key); the CLI exits 2 with the message, the editor shows it. A file that cannot be
 * used at all is core's InputFileError (naming the file); `failureKind` tells the faces which is which.
 */
import { InputFileError } from '../core/bird/problems';
import { DatabaseError } from '../core/db/database';
import { dialectOf } from '../core/db/readQuery';
import type { DatabaseSource } from '../core/db/source';
import { DIALECT_NAMES } from '../core/sql/dialect';
import { ServiceUnavailable } from '../core/http/serviceGuard';

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

/** A server the run's `source` names that could not be reached, refused naming `option` and the kind of server it is. */
export function serverUnreachable(source: Pick<DatabaseSource, 'engine'>, option: string, error: Error): RunRefused {
  return new RunRefused(option, `cannot reach the ${DIALECT_NAMES[dialectOf(source.engine)]} server: ${error.message}`);
}

/**
 * What a run's failure is, for a face's exit rule: `refused` (an option, an input file, an outside service given
 * up: the message names it), `unreadableDatabase` (a database file that is no database, damaged, encrypted or not
 * there), or `bug` (anything else).
 */
export function failureKind(error: unknown): 'refused' | 'unreadableDatabase' | 'bug' {
  // ServiceUnavailable: an outside service (embeddings) given up; its message names the endpoint and the first error.
  if (error instanceof RunRefused || error instanceof InputFileError || error instanceof ServiceUnavailable) return 'refused';
  if (error instanceof DatabaseError && /not a database|malformed|encrypted|unable to open/i.test(error.message))
    return 'unreadableDatabase';
  return 'bug';
}
