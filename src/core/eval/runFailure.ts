import { ServerUnavailable } from '../db/database';

/**
 * A result that came from a failure of the run, not from the pair: its server went away before the question ran
 * (NOT_RUN), or during its timing (a connection refused or cut, the run cancelled). Such a result is no score: it
 * stays out of the checkpoint, a resumed run runs it again (also when an earlier version's checkpoint kept it), and
 * a report holding one is not complete.
 */

/** How the error of a question its server could not run begins. */
export const NOT_RUN = 'not run: the database server is unavailable';

/** How the note of a pair whose timing the run's failure stopped begins. */
export const TIMING_NOT_DONE = "timing not done (the run's failure, not the pair's; --resume times it again)";

/** A connection refused, reset or cut, a server shut down: the engine, not the query, failed. */
const SERVER_GONE =
  /ECONNREFUSED|ECONNRESET|EPIPE|Connection terminated|terminating connection|server closed the connection|the database system is (starting up|shutting down|in recovery mode)|not queryable/i;

/** Whether an error is the run's (its server went away), not the query's. */
export function serverWentAway(error: Error): boolean {
  return error instanceof ServerUnavailable || SERVER_GONE.test(error.message);
}

/** Whether a timing error is the run's: the server went away, or the run was cancelled before the pair was timed. */
export function timingStoppedByRun(error: Error, aborted: boolean): boolean {
  return serverWentAway(error) || aborted || /cancelled before it was timed/.test(error.message);
}

/** Whether a question's error is the run's: not run for a lost server, or a socket error the engine did not flag (a lane's `write EPIPE` as the server died). */
export function notRunForRunFailure(result: { error: string | null }): boolean {
  return Boolean(result.error?.startsWith(NOT_RUN) || (result.error && SERVER_GONE.test(result.error)));
}

/** Whether a result is no score but the mark of the run's failure (this version's, or an earlier one's note). */
export function fromRunFailure(result: { error: string | null; notes: readonly string[] }): boolean {
  if (notRunForRunFailure(result)) return true;
  return result.notes.some((note) => note.startsWith(TIMING_NOT_DONE) || (note.startsWith('timing failed: ') && SERVER_GONE.test(note)));
}
