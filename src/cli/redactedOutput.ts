import { redactStreams } from '../app/runOutputs';

/**
 * The command line's boundary: every password on the command line (a --db-url in any shape, even one refused as
 * malformed) and in PGPASSWORD is remembered, and everything written to standard output and error passes
 * through text/redact.ts's one redaction (app/runOutputs.ts), whatever message, table or JSON carries it. Files go
 * through writeOutputFile, checkpoints through io/checkpoint.ts.
 */
export function redactStandardStreams(argv: readonly string[]): void {
  redactStreams(argv, [process.stdout, process.stderr]);
}
