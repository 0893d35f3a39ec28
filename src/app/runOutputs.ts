/**
 * A run's output files and streams, for every face: an output is claimed before any work (it reaches no input and
 * no database folder, its folder is writable, it is locked for this run), written atomically with every password
 * masked, and a process's standard streams are masked alike. A refusal is a RunRefused naming the output's option;
 * what the face says beside (temporaries removed, a lock taken over) comes back as data for it to word.
 */
import * as fs from 'fs';
import * as path from 'path';
import { cleanStaleTemporaries, writeFileAtomic } from '../core/io/atomicFile';
import { lockOutput, OutputLocked } from '../core/io/outputLock';
import { checkOutputAgainstInputs, NamedInput, OutputClash, ProtectedFolder, realOutputPath } from '../core/io/outputPaths';
import { redactSecrets, rememberSecret, rememberSecretsIn } from '../core/text/redact';
import { RunRefused } from './runRefused';

/** What claiming an output found on its way: temporaries of killed runs removed, the lock of an ended run taken over. */
export interface ClaimedOutput {
  removedTemporaries: string[];
  /** The run whose lock was taken over (it ended without releasing it). */
  tookOverFrom?: string;
}

/** A refusal whose message is the whole sentence, starting with the option unless `message` names it already. */
const refused = (flag: string, message: string) =>
  new RunRefused(flag, message, message.startsWith(flag) ? message : `${flag}: ${message}`);

/**
 * Checks before any work that an output file can be written (its folder exists, it is no folder, it is writable)
 * and that it reaches none of the inputs: compared by real path (symbolic links resolved) and by identity (hard
 * links) with every input file, and never inside a database folder (`databaseFolders`, e.g. --db-root).
 * Temporaries a killed run left in its folder are removed; the output is locked for this run (io/outputLock.ts):
 * one that another live run is writing is refused.
 */
export function claimOutputFile(
  flag: string,
  file: string,
  inputs: readonly NamedInput[] = [],
  databaseFolders: readonly ProtectedFolder[] = [],
): ClaimedOutput {
  const real = checkedOutputPath(flag, file, inputs, databaseFolders);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(real);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory()) throw new RunRefused(flag, `${file} is a folder; give a file name`);
  const folder = path.dirname(real);
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory())
    throw new RunRefused(flag, `cannot write ${file}: folder ${folder} does not exist`);
  try {
    // The file is written as a temporary in its folder, then renamed: the folder must be writable (and a
    // read-only file is not replaced, as a plain write would not).
    fs.accessSync(folder, fs.constants.W_OK);
    if (stat) fs.accessSync(real, fs.constants.W_OK);
  } catch {
    throw new RunRefused(flag, `cannot write ${file}: permission denied`);
  }
  const removedTemporaries = cleanStaleTemporaries(folder);
  try {
    const tookOverFrom = lockOutput(real, `${flag} ${file}`);
    return { removedTemporaries, ...(tookOverFrom ? { tookOverFrom } : {}) };
  } catch (error) {
    if (error instanceof OutputLocked) throw new RunRefused(flag, error.message, error.message);
    throw new RunRefused(flag, `cannot write ${file}: ${(error as Error).message}`);
  }
}

/**
 * The real path an output (a file or a folder, e.g. --counterexamples) is written at, refused when it reaches an
 * input or lies inside a database folder.
 */
export function checkedOutputPath(
  flag: string,
  output: string,
  inputs: readonly NamedInput[],
  databaseFolders: readonly ProtectedFolder[],
): string {
  try {
    checkOutputAgainstInputs(flag, output, inputs, databaseFolders);
    return realOutputPath(output);
  } catch (error) {
    if (error instanceof OutputClash) throw refused(flag, error.message);
    throw error;
  }
}

/**
 * Writes an output file atomically (a temporary beside it, fsync, rename), every password in it masked: a
 * failure (disk full, permissions changed meanwhile) leaves any earlier file untouched and is refused naming it.
 */
export function writeOutputFile(flag: string, file: string, text: string): void {
  try {
    writeFileAtomic(file, redactSecrets(text));
  } catch (error) {
    const kept = fs.existsSync(file) ? `; the earlier ${file} is unchanged` : '';
    throw new RunRefused(flag, `cannot write ${file}: ${(error as Error).message}${kept}`);
  }
}

/**
 * A process's boundary: the passwords in `secrets` (a command line's arguments, in any shape a connection string
 * takes, and PGPASSWORD) are remembered, and everything written to `streams` passes through text/redact.ts's one
 * redaction, whatever message, table or JSON carries it.
 */
export function redactStreams(secrets: readonly string[], streams: readonly NodeJS.WriteStream[]): void {
  rememberSecretsIn(secrets);
  if (process.env.PGPASSWORD) rememberSecret(process.env.PGPASSWORD);
  for (const stream of streams) {
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
