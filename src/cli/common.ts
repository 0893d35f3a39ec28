import { Command, CommanderError, Option } from 'commander';
import * as fs from 'fs';
import * as path from 'path';
import pc from 'picocolors';
import packageJson from '../../package.json';
import { InputFileError } from '../core/bird/problems';
import { RunRefused } from '../app/runRefused';
import { DatabaseError } from '../core/db/database';
import { sqliteVersion } from '../core/db/engines';
import { isPostgresTarget, redactText } from '../core/db/postgres/connectionTarget';
import { DatabaseSource, localMysql, mysqlServer, POSTGRES_LAYOUTS, PostgresLayout, postgresServer, sqliteFolder } from '../core/db/source';
import { isMysqlTarget, redactMysqlText } from '../core/db/mysql/connectionTarget';
import { BirdServerOptions, localServerMissing } from '../core/db/mysql/localServer';
import { defaultEmbeddedCacheDir, EmbeddedLoadEvent } from '../core/db/pglite/embeddedCopy';
import { embeddedPostgres } from '../core/db/pglite/embeddedSource';
import { counted } from '../core/text/numberText';
import { ServiceUnavailable } from '../core/http/serviceGuard';
import { setBusyTimeout } from '../core/db/sqlite/sqliteConnection';
import { cleanStaleTemporaries, writeFileAtomic } from '../core/io/atomicFile';
import { lockOutput, OutputLocked } from '../core/io/outputLock';
import { redactSecrets } from '../core/io/redact';
import { checkOutputAgainstInputs, NamedInput, OutputClash, ProtectedFolder, realOutputPath } from '../core/io/outputPaths';

export const TOOL_NAME = 'ves-lens';
export const TOOL_VERSION: string = packageJson.version;

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
  } else if (
    error instanceof UsageError ||
    error instanceof RunRefused ||
    error instanceof InputFileError ||
    error instanceof ServiceUnavailable
  ) {
    // ServiceUnavailable: an outside service (embeddings) given up; its message names the endpoint and the first error.
    out.write(`${pc.red('error')}: ${error.message}\n`);
    code = EXIT.input;
  } else if (error instanceof DatabaseError && /not a database|malformed|encrypted|unable to open/i.test(error.message)) {
    out.write(`${pc.red('error')}: a database cannot be read: ${error.message}\n`);
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

/** A value as a message quotes it: in JSON quotes (control characters visible), at most 40 characters. */
export function quoted(text: string | number): string {
  const value = String(text);
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

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
  let real: string;
  try {
    checkOutputAgainstInputs(flag, file, named, databaseFolders);
    real = realOutputPath(file);
  } catch (error) {
    if (error instanceof OutputClash) throw new UsageError(error.message.startsWith(flag) ? error.message : `${flag}: ${error.message}`);
    throw error;
  }
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(real);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory()) throw new UsageError(`${flag}: ${file} is a folder; give a file name`);
  const folder = path.dirname(real);
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory())
    throw new UsageError(`${flag}: cannot write ${file}: folder ${folder} does not exist`);
  try {
    // The file is written as a temporary in its folder, then renamed: the folder must be writable (and a
    // read-only file is not replaced, as a plain write would not).
    fs.accessSync(folder, fs.constants.W_OK);
    if (stat) fs.accessSync(real, fs.constants.W_OK);
  } catch {
    throw new UsageError(`${flag}: cannot write ${file}: permission denied`);
  }
  for (const stale of cleanStaleTemporaries(folder)) process.stderr.write(`removed ${stale}, a temporary left by a run that was killed\n`);
  try {
    const tookOver = lockOutput(real, `${flag} ${file}`);
    if (tookOver) process.stderr.write(`${pc.yellow('note')}: ${file}: took over the lock of a run that ended (${tookOver})\n`);
  } catch (error) {
    if (error instanceof OutputLocked) throw new UsageError(error.message);
    throw new UsageError(`${flag}: cannot write ${file}: ${(error as Error).message}`);
  }
}

/**
 * Writes an output file atomically (a temporary beside it, fsync, rename): a failure (disk full, permissions
 * changed meanwhile) leaves any earlier file untouched and is a UsageError naming it.
 */
export function writeOutputFile(flag: string, file: string, text: string): void {
  try {
    writeFileAtomic(file, redactSecrets(text));
  } catch (error) {
    const kept = fs.existsSync(file) ? `; the earlier ${file} is unchanged` : '';
    throw new UsageError(`${flag}: cannot write ${file}: ${(error as Error).message}${kept}`);
  }
}

/** The `tool` block every JSON report starts with: name, version, and the SQLite that ran the queries. */
export async function toolInfo(): Promise<{ name: string; version: string; sqlite: string }> {
  return { name: TOOL_NAME, version: TOOL_VERSION, sqlite: await sqliteVersion() };
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
      ).choices(['sqlite', 'postgres', 'mysql']),
    )
    .option(
      '--db-url <url>',
      'PostgreSQL server: postgresql://user@host:port/database (libpq environment variables fill what it leaves out); MySQL or MariaDB: mysql://user@host:port/BIRD (?socket=/path for a unix socket; MYSQL_PWD for the password). A password is never printed',
    )
    .addOption(
      new Option(
        '--db-layout <layout>',
        'how the server holds the BIRD databases: one-database (every table in schema public, as the official dump), schema (one per db_id), database (one per db_id)',
      ).choices([...POSTGRES_LAYOUTS]),
    )
    .option(
      '--embedded-cache <dir>',
      `--engine postgres without --db-url: where the embedded PostgreSQL (PGlite) keeps its copy of the --db-root databases (default: ${defaultEmbeddedCacheDir()})`,
    );
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

/** --busy-timeout for every SQLite connection the command opens from now on (a --db file as a --db-root's). */
export function applyBusyTimeout(options: Pick<EngineCliOptions, 'busyTimeout'>): void {
  if (options.busyTimeout !== undefined)
    setBusyTimeout(/^\s*0*\.?0*\s*$/.test(options.busyTimeout) ? 0 : timeoutMs('--busy-timeout', options.busyTimeout));
}

/**
 * Where the command's databases are, from --engine, --db-url, --db-layout and --db-root: SQLite files under
 * --db-root (the default; the caller checks the folder with its other inputs), a PostgreSQL server (--db-url,
 * which implies --engine postgres), or with --engine postgres and no server an embedded PostgreSQL loaded from
 * the SQLite files under --db-root (--embedded-cache).
 */
export function databaseSource(options: EngineCliOptions): DatabaseSource {
  applyBusyTimeout(options);
  const engine = options.engine ?? (options.dbUrl === undefined ? 'sqlite' : isMysqlTarget(options.dbUrl) ? 'mysql' : 'postgres');
  if (options.embeddedCache !== undefined && (engine !== 'postgres' || options.dbUrl !== undefined))
    throw new UsageError('--embedded-cache: for the embedded PostgreSQL (--engine postgres --db-root, without --db-url)');
  if (engine === 'sqlite') {
    if (options.dbUrl !== undefined) throw new UsageError('--db-url: a PostgreSQL or MySQL server; with --engine sqlite give --db-root');
    if (options.dbLayout !== undefined) throw new UsageError('--db-layout: for a PostgreSQL server (--engine postgres --db-url ...)');
    if (options.dbRoot === undefined)
      throw new UsageError('--db-root: give the folder holding <db_id>/<db_id>.sqlite (or --engine postgres --db-url ...)');
    return sqliteFolder(options.dbRoot);
  }
  if (engine === 'mysql') return mysqlSource(options);
  if (engine !== 'postgres') throw new UsageError(`--engine: expected sqlite, postgres or mysql, got ${quoted(engine)}`);
  if (options.dbUrl === undefined) {
    // No server: the embedded PostgreSQL, loaded from the SQLite files under --db-root.
    if (options.dbRoot === undefined)
      throw new UsageError(
        '--engine postgres: give the server with --db-url postgresql://user@host:port/database, or --db-root to run an embedded PostgreSQL loaded from its SQLite files',
      );
    if (options.dbLayout === 'database')
      throw new UsageError(
        '--db-layout database: the embedded PostgreSQL holds one database; use one-database or schema (or a server, --db-url)',
      );
    const layout = (options.dbLayout ?? 'one-database') as 'one-database' | 'schema';
    return embeddedPostgres(options.dbRoot, { layout, cacheDir: options.embeddedCache, onLoad: sayEmbeddedLoad(options.dbRoot) });
  }
  if (!isPostgresTarget(options.dbUrl))
    throw new UsageError(`--db-url: expected postgresql://user@host:port/database, got ${quoted(redactText(options.dbUrl))}`);
  const layout = (options.dbLayout ?? 'one-database') as PostgresLayout;
  if (!POSTGRES_LAYOUTS.includes(layout))
    throw new UsageError(`--db-layout: expected one of ${POSTGRES_LAYOUTS.join(', ')}, got ${quoted(layout)}`);
  try {
    return postgresServer(options.dbUrl, layout);
  } catch (error) {
    throw new UsageError(`--db-url: ${(error as Error).message}`);
  }
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

/** --engine mysql: the server --db-url names (the official dump's one database), else a local MariaDB loaded from --db-root. */
function mysqlSource(options: EngineCliOptions): DatabaseSource {
  if (options.dbLayout !== undefined && options.dbLayout !== 'one-database')
    throw new UsageError('--db-layout: a MySQL server holds the BIRD databases in one database, as the official dump (one-database)');
  if (options.dbUrl === undefined) {
    if (options.dbRoot === undefined)
      throw new UsageError(
        '--engine mysql: give the server with --db-url mysql://user@host:port/BIRD, or --db-root to run a local MariaDB server loaded from its SQLite files',
      );
    const missing = localServerMissing();
    if (missing) throw new UsageError(`--engine mysql without --db-url: ${missing}`);
    return localMysql(options.dbRoot, { onBuild: sayMysqlLoad(options.dbRoot) });
  }
  if (!isMysqlTarget(options.dbUrl))
    throw new UsageError(`--db-url: expected mysql://user@host:port/BIRD, got ${quoted(redactMysqlText(redactText(options.dbUrl)))}`);
  try {
    return mysqlServer(options.dbUrl);
  } catch (error) {
    throw new UsageError(`--db-url: ${(error as Error).message}`);
  }
}
