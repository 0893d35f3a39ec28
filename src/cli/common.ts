import { Command, CommanderError, Option } from 'commander';
import pc from 'picocolors';
import type { EmbeddedLoadEvent } from '../core/db/pglite/embeddedCopy';
import type { BirdServerOptions } from '../core/db/mysql/localServer';
import type { DatabaseSource } from '../core/db/source';
import type { NamedInput, ProtectedFolder } from '../core/io/outputPaths';
import { counted } from '../core/text/numberText';
import { quoted } from '../core/text/problemText';
import {
  applyBusyTimeout as useBusyTimeout,
  databaseSource as sourceFor,
  engineChoices,
  type EngineLoadNotes,
} from '../app/databaseSource';
import { failureKind } from '../app/runRefused';
import { ClaimedOutput, claimOutputFile } from '../app/runOutputs';
import { TOOL_NAME } from '../app/toolInfo';

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** Exit codes, one rule for every command (docs/reference/exit-codes.md). */
export const EXIT = {
  /** The command did its work, even if some questions or statements failed (said in the output). */
  done: 0,
  /** A bug in VES Lens: the message says so; --debug prints the stack trace. */
  bug: 1,
  /** A usage or input error: the message names the option, file, line or key. */
  input: 2,
} as const;

/**
 * One exit rule for every command: 0 done (even with failed questions), 2 a usage or input error (the message
 * names the option, file, line or key), 1 a bug. Writes the message (the stack trace only with `debug`) and
 * returns the exit code.
 */
export function reportFailure(error: unknown, out: { debug: boolean; write: (text: string) => void }): number {
  let code: number;
  if (error instanceof CommanderError) {
    // Commander has printed its message (or the help / version, exit code 0) already.
    return error.exitCode === 0 ? EXIT.done : EXIT.input;
  } else if (error instanceof UsageError || failureKind(error) === 'refused') {
    out.write(`${pc.red('error')}: ${(error as Error).message}\n`);
    code = EXIT.input;
  } else if (failureKind(error) === 'unreadableDatabase') {
    out.write(`${pc.red('error')}: a database cannot be read: ${(error as Error).message}\n`);
    code = EXIT.input;
  } else {
    const message = error instanceof Error ? error.message : String(error);
    out.write(
      `${pc.red('unexpected error')} (a bug in ${TOOL_NAME}; please report it${out.debug ? '' : ', with the stack trace that --debug prints'}): ${message}\n`,
    );
    code = EXIT.bug;
  }
  if (out.debug && error instanceof Error) out.write(`${error.stack}\n`);
  return code;
}

/** The longest time limit a timer can hold (setTimeout's 2^31 - 1 ms), in seconds. */
export const MAX_TIMEOUT_S = Math.floor((2 ** 31 - 1) / 1000);

/** A positive finite number, or a UsageError naming the option and the value. */
export function positiveNumber(flag: string, text: string | number): number {
  const value = typeof text === 'number' ? text : /^\s*[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${flag}: expected a positive number, got ${quoted(text)}`);
  return value;
}

/** A positive whole number (no fraction: 1.5 rows means nothing), or a UsageError. */
export function positiveInteger(flag: string, text: string | number): number {
  const value = positiveNumber(flag, text);
  if (!Number.isSafeInteger(value)) throw new UsageError(`${flag}: expected a positive whole number, got ${quoted(text)}`);
  return value;
}

/** A time limit in seconds, as milliseconds: positive, and short enough for a timer (about 24 days). */
export function timeoutMs(flag: string, text: string | number): number {
  const seconds = positiveNumber(flag, text);
  if (seconds > MAX_TIMEOUT_S) throw new UsageError(`${flag}: at most ${MAX_TIMEOUT_S} seconds, got ${quoted(text)}`);
  return seconds * 1000;
}

/**
 * Checks before any work that an output file can be written (its folder exists, it is no folder, it is
 * writable) and that it reaches none of the inputs: compared by real path (symbolic links resolved) and by
 * identity (hard links) with every input file, and never inside a database folder (`databaseFolders`, e.g.
 * --db-root). Temporaries a killed run left in its folder are removed (said on stderr). The output is locked for
 * this run (io/outputLock.ts): one that another live run is writing is refused.
 */
export function checkOutputFile(
  flag: string,
  file: string,
  inputs: readonly (string | undefined | NamedInput)[] = [],
  databaseFolders: readonly ProtectedFolder[] = [],
): void {
  const named = inputs.map((input) => (typeof input === 'object' ? input : { label: 'input', file: input }));
  sayClaimedOutput(file, claimOutputFile(flag, file, named, databaseFolders));
}

/** What claiming an output found, on stderr: temporaries of killed runs removed, the lock of an ended run taken over. */
export function sayClaimedOutput(file: string, claimed: ClaimedOutput): void {
  for (const stale of claimed.removedTemporaries) process.stderr.write(`removed ${stale}, a temporary left by a run that was killed\n`);
  if (claimed.tookOverFrom)
    process.stderr.write(`${pc.yellow('note')}: ${file}: took over the lock of a run that ended (${claimed.tookOverFrom})\n`);
}

/** `--scales 1,10,100`: whole factors from 1 to 10,000, in increasing order. */
export function parseScales(text: string): number[] {
  const factors = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const n = Number(part);
      if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new UsageError(`--scales: "${part}" is not a whole factor from 1 to 10000`);
      return n;
    });
  if (factors.length === 0) throw new UsageError('--scales: give at least one factor, e.g. 1,10,100');
  return [...new Set(factors)].sort((a, b) => a - b);
}

/** The options that say which engine runs a command's SQL and where its databases are. */
export interface EngineCliOptions {
  dbRoot?: string;
  engine?: string;
  dbUrl?: string;
  dbLayout?: string;
  /** Where the embedded PostgreSQL keeps its copies of the SQLite databases (--engine postgres without --db-url). */
  embeddedCache?: string;
  /** Seconds a SQLite connection waits on a database another process has locked (default 5, as Python's sqlite3). */
  busyTimeout?: string;
}

/** Adds --engine, --db-url and --db-layout to a command that runs SQL (one place for their names and help). */
export function addEngineOptions(command: Command): Command {
  return command
    .option(
      '--busy-timeout <seconds>',
      'SQLite: seconds to wait on a database another process has locked before giving up (eval scores such a question 0, "locked"); default 5, as Python\'s sqlite3; 0: no wait',
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'what runs the SQL: SQLite files under --db-root; PostgreSQL: a server (--db-url), else an embedded PostgreSQL loaded from --db-root; MySQL: a server (--db-url), else a local MariaDB server started for the run, loaded from --db-root',
      ).choices([...engineChoices().engines]),
    )
    .option(
      '--db-url <url>',
      'PostgreSQL server: postgresql://user@host:port/database (libpq environment variables fill what it leaves out); MySQL or MariaDB: mysql://user@host:port/BIRD (?socket=/path for a unix socket; MYSQL_PWD for the password). A password is never printed',
    )
    .addOption(
      new Option(
        '--db-layout <layout>',
        'how the server holds the BIRD databases: one-database (every table in schema public, as the official dump), schema (one per db_id), database (one per db_id)',
      ).choices([...engineChoices().layouts]),
    )
    .option(
      '--embedded-cache <dir>',
      `--engine postgres without --db-url: where the embedded PostgreSQL (PGlite) keeps its copy of the --db-root databases (default: ${engineChoices().embeddedCacheDir})`,
    );
}

/** --busy-timeout for every SQLite connection the command opens from now on (a --db file as a --db-root's). */
export function applyBusyTimeout(options: Pick<EngineCliOptions, 'busyTimeout'>): void {
  useBusyTimeout(busyTimeoutMs(options));
}

/** --busy-timeout in milliseconds (0 and 0.0: no wait), undefined when not given. */
function busyTimeoutMs(options: Pick<EngineCliOptions, 'busyTimeout'>): number | undefined {
  if (options.busyTimeout === undefined) return undefined;
  return /^\s*0*\.?0*\s*$/.test(options.busyTimeout) ? 0 : timeoutMs('--busy-timeout', options.busyTimeout);
}

/**
 * Where the command's databases are, from --engine, --db-url, --db-layout and --db-root (app/databaseSource.ts):
 * SQLite files under --db-root (the default; the caller checks the folder with its other inputs), a PostgreSQL or
 * MySQL server (--db-url), or an embedded PostgreSQL or a local MariaDB loaded from the SQLite files under
 * --db-root, whose first load is said on stderr.
 */
export function databaseSource(options: EngineCliOptions): DatabaseSource {
  const { busyTimeout: _busyTimeout, ...settings } = options;
  return sourceFor({ ...settings, busyTimeoutMs: busyTimeoutMs(options) }, engineLoadNotes(options.dbRoot));
}

/** What is said on stderr while a local copy of --db-root's databases is built (the embedded PostgreSQL, a local MariaDB). */
export function engineLoadNotes(dbRoot: string | undefined): EngineLoadNotes {
  return dbRoot === undefined ? {} : { embeddedLoad: sayEmbeddedLoad(dbRoot), mysqlBuild: sayMysqlLoad(dbRoot) };
}

/** Says on stderr that the embedded PostgreSQL's copy is being built (once; later runs reuse it), and when it is done. */
function sayEmbeddedLoad(dbRoot: string): (event: EmbeddedLoadEvent) => void {
  return (event) => {
    if (event.kind === 'start')
      process.stderr.write(
        `loading ${counted(event.databases, 'SQLite database')} of ${dbRoot} into the embedded PostgreSQL (PGlite), once: the copy is kept in ${event.cacheDir}\n`,
      );
    else if (event.kind === 'done') process.stderr.write(`loaded ${counted(event.rows, 'row')} in ${event.seconds.toFixed(1)} s\n`);
  };
}

/** Says on stderr that the local MariaDB copy is being built (once; later runs reuse it), and when it is done. */
function sayMysqlLoad(dbRoot: string): BirdServerOptions['onBuild'] {
  return (event) => {
    if (event.kind === 'start')
      process.stderr.write(
        `loading ${counted(event.databases, 'SQLite database')} of ${dbRoot} into a local MariaDB server, once: the copy is kept in ${event.cacheDir}\n`,
      );
    else process.stderr.write(`loaded ${counted(event.report.rows, 'row')} in ${event.report.seconds.toFixed(1)} s\n`);
  };
}
