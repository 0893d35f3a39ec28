import * as path from 'path';
import pc from 'picocolors';
import { explainRunLines, prepareExplainRun, runExplainRun } from '../app/explainRun';
import { openQueryFile, openQueryServer, QueryDatabase, queryDatabaseLine, querySchema } from '../app/queryDatabase';
import { readSqlFile, sqlFileStatements } from '../app/sqlInput';
import { applyBusyTimeout, checkOutputFile, databaseSource, EngineCliOptions, EXIT, timeoutMs, UsageError } from './common';
import { toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';

/** A SQLite database file by its name, as BIRD's layout names them. */
const SQLITE_FILE = /\.(sqlite3?|db)$/i;

/** How long `explain --analyze` lets each query run by default, as eval's per-pair limit. */
const DEFAULT_ANALYZE_TIMEOUT_MS = 30_000;

export interface ExplainCommandOptions extends SqlCommandOptions, JsonDestination {
  vs?: string;
  analyze?: boolean;
  timeout?: string;
}

/** The database options of a command that works on one query: --db, or a PostgreSQL server (--engine, --db-url, --db-layout). */
export interface SqlCommandOptions extends EngineCliOptions {
  db?: string;
  file?: string;
}

/** The SQL text a command works on: the positional argument, or the whole of --file. */
export function sqlFromArguments(sql: string | undefined, file: string | undefined): { text: string; source: string } {
  if (sql && file) throw new UsageError('give the SQL or --file, not both');
  if (file) return { text: readSqlFile(file), source: file };
  if (!sql) throw new UsageError('give the SQL to work on, or --file');
  return { text: sql, source: '<sql>' };
}

/** The statements a command works on: the positional argument as it is, or every statement of --file. */
export function statementsFromArguments(sql: string | undefined, file: string | undefined): string[] {
  const { text } = sqlFromArguments(sql, file);
  return file ? sqlFileStatements(text, file) : [text];
}

/**
 * The database a one-query command works on: the --db SQLite file (the default), or a PostgreSQL or MySQL server
 * (--engine postgres|mysql, --db-url, which implies it; a --db SQLite file without it names the folder a local
 * copy loads), where --db names the db_id whose schema or database to use in PostgreSQL's `schema` and
 * `database` layouts (app/queryDatabase.ts opens it). Every failure is a UsageError or RunRefused naming the option.
 */
export async function openCommandDatabase(options: SqlCommandOptions): Promise<QueryDatabase> {
  // --engine postgres or mysql (a --db-url implies a server; databaseSource tells which from its scheme).
  const server = options.engine === undefined ? options.dbUrl !== undefined : options.engine !== 'sqlite';
  if (!server) {
    applyBusyTimeout(options); // the server's path sets it in databaseSource
    if (options.dbUrl !== undefined) throw new UsageError('--db-url: a PostgreSQL server; with --engine sqlite give --db <file>');
    if (options.dbLayout !== undefined) throw new UsageError('--db-layout: for a PostgreSQL server (--engine postgres --db-url ...)');
    if (options.db === undefined)
      throw new UsageError("required option '--db <file>' not specified (the SQLite database; or --engine postgres --db-url <url>)");
    return openQueryFile(options.db);
  }
  // Without a server, a SQLite file given as --db names the folder and db_id an embedded PostgreSQL loads (where the build has one).
  const fromFile = options.dbUrl === undefined && options.db !== undefined && SQLITE_FILE.test(options.db);
  const source = databaseSource({ ...options, dbRoot: fromFile ? path.dirname(path.dirname(path.resolve(options.db!))) : undefined });
  const layout = options.dbLayout ?? 'one-database';
  if (layout !== 'one-database' && options.db === undefined)
    throw new UsageError(`--db: with --db-layout ${layout}, name the db_id whose ${layout} to use (e.g. --db superhero)`);
  const dbId = fromFile ? path.basename(options.db!).replace(SQLITE_FILE, '') : (options.db ?? '');
  return openQueryServer(source, dbId, { loadedFrom: fromFile ? options.db : undefined, oneDatabase: layout === 'one-database' });
}

export async function runExplain(sql: string | undefined, options: ExplainCommandOptions): Promise<number> {
  const statements = statementsFromArguments(sql, options.file);
  if (options.json) checkOutputFile('--json', options.json, [options.file, options.db]);
  const analyzeLimitMs = options.timeout === undefined ? undefined : timeoutMs('--timeout', options.timeout);
  if (analyzeLimitMs !== undefined && !options.analyze)
    throw new UsageError('--timeout: goes with --analyze (the time limit of the run it measures)');
  const settings = { statements, vs: options.vs, analyzeMs: options.analyze ? (analyzeLimitMs ?? DEFAULT_ANALYZE_TIMEOUT_MS) : undefined };
  const opened = await openCommandDatabase(options);
  const { db } = opened;
  try {
    prepareExplainRun(db, settings);
    const result = await runExplainRun({ db, schema: await querySchema(db) }, settings);
    if (options.json || options.jsonStdout) {
      const report = {
        tool: await toolInfo(),
        engine: opened.engine,
        db: opened.label,
        analyzed: Boolean(options.analyze),
        ...result,
      };
      emitJson(options, report);
      if (options.jsonStdout) return EXIT.done; // a statement without a plan carries its error in the JSON
    }
    const out: string[] = [pc.dim(queryDatabaseLine(opened))];
    if (options.analyze) out.push(pc.dim('EXPLAIN (ANALYZE, BUFFERS): each query ran once, read-only; times are per step, all loops'));
    out.push(...explainRunLines(result));
    process.stdout.write(out.join('\n') + '\n');
    return EXIT.done; // a statement without a plan says why in the output, as a failed question does in eval
  } finally {
    await db.close();
  }
}
