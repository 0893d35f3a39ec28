import { redactSecrets, rememberSecret, rememberSecretsIn } from '../core/io/redact';

/**
 * The command line's boundary: every password on the command line (a --db-url in any shape, even one refused as
 * malformed) and in PGPASSWORD is remembered, and everything written to standard output and error passes
 * through io/redact.ts's one redaction, whatever message, table or JSON carries it. Files go through
 * writeOutputFile, checkpoints through io/checkpoint.ts.
 */
export function redactStandardStreams(argv: readonly string[]): void {
  rememberSecretsIn(argv);
  if (process.env.PGPASSWORD) rememberSecret(process.env.PGPASSWORD);
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(
        typeof chunk === 'string'
          ? redactSecrets(chunk)
          : chunk instanceof Uint8Array
            ? Buffer.from(redactSecrets(Buffer.from(chunk).toString('utf8')))
            : chunk,
        ...rest,
      )) as typeof stream.write;
  }
}
