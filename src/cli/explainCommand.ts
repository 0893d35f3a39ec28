import pc from 'picocolors';
import { readTextFile } from '../core/bird/jsonFile';
import { DatabaseConnection } from '../core/db/engine';
import { engineFor, sqliteVersion } from '../core/db/engines';
import { databaseFileProblem } from '../core/db/databaseFile';
import { readSchema, SchemaInfo } from '../core/db/schema';
import { comparePlans } from '../core/plan/comparePlans';
import { explainQuery } from '../core/plan/explain';
import { differenceLines, planLines, sideBySide } from '../core/report/planText';
import { splitStatements } from '../core/sql/statements';
import { EXIT, toolInfo, UsageError } from './common';

export interface ExplainCommandOptions {
  db: string;
  file?: string;
  vs?: string;
  json?: boolean;
}

/** The SQL text a command works on: the positional argument, or the whole of --file. */
export function sqlFromArguments(sql: string | undefined, file: string | undefined): { text: string; source: string } {
  if (sql && file) throw new UsageError('give the SQL or --file, not both');
  if (file) return { text: readTextFile(file, 'SQL file'), source: file };
  if (!sql) throw new UsageError('give the SQL to work on, or --file');
  return { text: sql, source: '<sql>' };
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
  const db = await openDatabase(options.db);
  try {
    const schema = await databaseSchema(db);
    const sqlite = await sqliteVersion();
    const plans = [];
    for (const statement of statements) plans.push(await explainQuery(db, statement, schema));
    const gold = options.vs ? await explainQuery(db, options.vs, schema) : undefined;
    const differences = gold ? comparePlans(gold, plans[0]) : undefined;
    if (options.json) {
      process.stdout.write(JSON.stringify({ tool: await toolInfo(), db: options.db, plans, gold, differences }, null, 2) + '\n');
      return EXIT.done; // a statement without a plan carries its error in the JSON
    }
    const out: string[] = [pc.dim(`SQLite ${sqlite} · ${options.db}`)];
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
