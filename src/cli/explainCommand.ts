import * as path from 'path';
import pc from 'picocolors';
import { readTextFile, startsAsJson } from '../core/bird/jsonFile';
import { DatabaseConnection } from '../core/db/engine';
import { engineFor } from '../core/db/engines';
import { EngineDescription, engineLine, sqliteDescription } from '../core/db/source';
import { databaseFileProblem } from '../core/db/databaseFile';
import { readSchema, SchemaInfo } from '../core/db/schema';
import { comparePlans } from '../core/plan/comparePlans';
import { explainQuery } from '../core/plan/explain';
import { differenceLines, planLines, sideBySide } from '../core/report/planText';
import { splitStatements } from '../core/sql/statements';
import { applyBusyTimeout, checkOutputFile, databaseSource, EngineCliOptions, EXIT, timeoutMs, toolInfo, UsageError } from './common';
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
  if (file) {
    const text = readTextFile(file, 'SQL file');
    const notSql = notASqlFile(text);
    if (notSql) throw new UsageError(`--file: ${file} is ${notSql}`);
    return { text, source: file };
  }
  if (!sql) throw new UsageError('give the SQL to work on, or --file');
  return { text: sql, source: '<sql>' };
}

/** A BIRD gold line: the SQL, a tab, the db_id (a name, nothing after it). */
const GOLD_LINE = /\t[A-Za-z_][\w$]*\s*$/;

/**
 * What a --file holds when it is not a file of SQL statements (said instead of a plan or hint per fragment):
 * JSON (a question, prediction or tables file), or a BIRD gold file, whose lines hold no `;` between them, so that
 * its queries would run together as one statement.
 */
function notASqlFile(text: string): string | undefined {
  if (startsAsJson(text)) return 'JSON, not SQL (a question, prediction or tables file?): --file takes SQL statements separated by ";"';
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length > 1 && lines.every((line) => GOLD_LINE.test(line)))
    return (
      'a BIRD gold file (one "SQL<TAB>db_id" a line, no ";" between them): --file takes SQL statements separated by ";". ' +
      'To look at every gold, use `ves-lens audit --questions QUESTIONS --gold FILE --db-root DIR`; to explain some, copy ' +
      'them into a .sql file, each ended by ";"'
    );
  return undefined;
}

/** The statements a command works on: the positional argument as it is, or every statement of --file. */
export function statementsFromArguments(sql: string | undefined, file: string | undefined): string[] {
  const { text } = sqlFromArguments(sql, file);
  const statements = file ? splitStatements(text).map((s) => s.text) : [text];
  if (file && statements.length === 0) throw new UsageError(`--file: ${file} holds no SQL statement`);
  return statements;
}

/**
 * Opens the --db database read-only, or stops with a UsageError that names the file and says what it is (a
 * folder, an empty file, JSON, not a database, a damaged one): never a stack trace for a wrong path.
 */
export async function openDatabase(file: string, flag = '--db'): Promise<DatabaseConnection> {
  const problem = databaseFileProblem(file);
  if (problem) throw new UsageError(`${flag}: ${file}: ${problem}`);
  let db: DatabaseConnection;
  try {
    db = await engineFor(file).open(file);
  } catch (error) {
    throw new UsageError(`${flag}: ${file}: ${(error as Error).message}`);
  }
  try {
    await db.checkReadable();
  } catch (error) {
    await db.close();
    throw new UsageError(`${flag}: ${file}: ${(error as Error).message}`);
  }
  return db;
}

/** A command's open database: the connection, what runs it (for the output), and how it is named. */
export interface CommandDatabase {
  db: DatabaseConnection;
  engine: EngineDescription;
  /** The --db file, or the server's database (its URL without password, and the db_id's schema or database). */
  label: string;
}

/** How a failure names the server engines. */
const SERVER_NAMES: Record<string, string> = { postgres: 'PostgreSQL', mysql: 'MySQL' };

/**
 * The database a one-query command works on: the --db SQLite file (the default), or a PostgreSQL or MySQL server
 * (--engine postgres|mysql, --db-url, which implies it; a --db SQLite file without it names the folder a local
 * copy loads), where --db names the db_id whose schema or database to use in PostgreSQL's `schema` and
 * `database` layouts. Every failure is a UsageError naming the option.
 */
export async function openCommandDatabase(options: SqlCommandOptions): Promise<CommandDatabase> {
  // --engine postgres or mysql (a --db-url implies a server; databaseSource tells which from its scheme).
  const server = options.engine === undefined ? options.dbUrl !== undefined : options.engine !== 'sqlite';
  if (!server) {
    applyBusyTimeout(options); // the server's path sets it in databaseSource
    if (options.dbUrl !== undefined) throw new UsageError('--db-url: a PostgreSQL server; with --engine sqlite give --db <file>');
    if (options.dbLayout !== undefined) throw new UsageError('--db-layout: for a PostgreSQL server (--engine postgres --db-url ...)');
    if (options.db === undefined)
      throw new UsageError("required option '--db <file>' not specified (the SQLite database; or --engine postgres --db-url <url>)");
    const db = await openDatabase(options.db);
    return {
      db,
      engine: await sqliteDescription(options.db),
      label: options.db,
    };
  }
  // Without a server, a SQLite file given as --db names the folder and db_id an embedded PostgreSQL loads (where the build has one).
  const fromFile = options.dbUrl === undefined && options.db !== undefined && SQLITE_FILE.test(options.db);
  const source = databaseSource({ ...options, dbRoot: fromFile ? path.dirname(path.dirname(path.resolve(options.db!))) : undefined });
  const layout = options.dbLayout ?? 'one-database';
  if (layout !== 'one-database' && options.db === undefined)
    throw new UsageError(`--db: with --db-layout ${layout}, name the db_id whose ${layout} to use (e.g. --db superhero)`);
  const engine = await source.describe().catch((error: Error) => {
    throw new UsageError(
      `${fromFile ? `--engine ${source.engine.name}` : `--db-url: cannot reach the ${SERVER_NAMES[source.engine.name] ?? 'database'} server`}: ${error.message}`,
    );
  });
  const dbId = fromFile ? path.basename(options.db!).replace(SQLITE_FILE, '') : (options.db ?? '');
  if (!(await source.exists(dbId).catch(() => false))) throw new UsageError(`--db: not found: ${source.label(dbId)}`);
  const label = layout === 'one-database' && !fromFile ? engine.location : source.label(dbId);
  const target = source.targetFor(dbId);
  let db: DatabaseConnection;
  try {
    db = await source.engine.open(target);
    await db.checkReadable();
  } catch (error) {
    throw new UsageError(`--db-url: ${label}: ${(error as Error).message}`);
  }
  return { db, engine, label };
}

/** The first line of a command's output: what runs the SQL, and on which database. */
export function engineHeader(opened: CommandDatabase): string {
  return opened.engine.engine === 'sqlite' ? `SQLite ${opened.engine.version} · ${opened.label}` : engineLine(opened.engine);
}

/** The schema of an open --db database; a damaged file is a UsageError naming it. */
export async function databaseSchema(db: DatabaseConnection, flag = '--db'): Promise<SchemaInfo> {
  try {
    return await readSchema(db);
  } catch (error) {
    throw new UsageError(`${flag}: ${db.path}: ${(error as Error).message}`);
  }
}

export async function runExplain(sql: string | undefined, options: ExplainCommandOptions): Promise<number> {
  const statements = statementsFromArguments(sql, options.file);
  if (options.json) checkOutputFile('--json', options.json, [options.file, options.db]);
  const analyzeLimitMs = options.timeout === undefined ? undefined : timeoutMs('--timeout', options.timeout);
  if (analyzeLimitMs !== undefined && !options.analyze)
    throw new UsageError('--timeout: goes with --analyze (the time limit of the run it measures)');
  const opened = await openCommandDatabase(options);
  const { db } = opened;
  try {
    if (options.analyze && !db.explainAnalyze)
      throw new UsageError(
        '--analyze: runs the query and measures every plan step (EXPLAIN ANALYZE), which PostgreSQL does and SQLite does not; use --engine postgres --db-url ...',
      );
    const schema = await databaseSchema(db);
    const limitMs = analyzeLimitMs ?? DEFAULT_ANALYZE_TIMEOUT_MS;
    // --analyze runs each query, one time limit each (the server's statement_timeout, a cancel request behind it).
    const explain = (statement: string) =>
      explainQuery(db, statement, schema, options.analyze ? { analyze: { deadline: performance.now() + limitMs, budgetMs: limitMs } } : {});
    const plans = [];
    for (const statement of statements) plans.push(await explain(statement));
    const gold = options.vs ? await explain(options.vs) : undefined;
    const differences = gold ? comparePlans(gold, plans[0]) : undefined;
    if (options.json || options.jsonStdout) {
      const report = {
        tool: await toolInfo(),
        engine: opened.engine,
        db: opened.label,
        analyzed: Boolean(options.analyze),
        plans,
        gold,
        differences,
      };
      emitJson(options, report);
      if (options.jsonStdout) return EXIT.done; // a statement without a plan carries its error in the JSON
    }
    const out: string[] = [pc.dim(engineHeader(opened))];
    if (options.analyze) out.push(pc.dim('EXPLAIN (ANALYZE, BUFFERS): each query ran once, read-only; times are per step, all loops'));
    if (gold) {
      out.push(
        ...sideBySide(planLines(gold), planLines(plans[0]), 'gold', 'prediction'),
        '',
        pc.bold('what differs'),
        ...differenceLines(differences ?? []),
      );
    } else {
      plans.forEach((plan, i) => {
        if (plans.length > 1) out.push('', pc.bold(`-- statement ${i + 1}: `) + plan.sql.replace(/\s+/g, ' ').slice(0, 100));
        out.push(...planLines(plan));
      });
    }
    process.stdout.write(out.join('\n') + '\n');
    return EXIT.done; // a statement without a plan says why in the output, as a failed question does in eval
  } finally {
    await db.close();
  }
}
