import pc from 'picocolors';
import { readTextFile } from '../core/bird/jsonFile';
import { ReadOnlyDatabase } from '../core/db/database';
import { readSchema } from '../core/db/schema';
import { comparePlans } from '../core/plan/comparePlans';
import { explainQuery } from '../core/plan/explain';
import { differenceLines, planLines, sideBySide } from '../core/report/planText';
import { splitStatements } from '../core/sql/statements';
import { toolInfo, UsageError } from './common';

export interface ExplainCommandOptions {
  db: string;
  file?: string;
  vs?: string;
  json?: boolean;
}

/** The SQL text a command works on: the positional argument, or the whole of --file. */
export function sqlFromArguments(sql: string | undefined, file: string | undefined): { text: string; source: string } {
  if (sql && file) throw new UsageError('give the SQL or --file, not both');
  if (file) return { text: readTextFile(file), source: file };
  if (!sql) throw new UsageError('give the SQL to work on, or --file');
  return { text: sql, source: '<sql>' };
}

/** The statements a command works on: the positional argument as it is, or every statement of --file. */
export function statementsFromArguments(sql: string | undefined, file: string | undefined): string[] {
  const { text } = sqlFromArguments(sql, file);
  return file ? splitStatements(text).map((s) => s.text) : [text];
}

export async function openDatabase(file: string): Promise<ReadOnlyDatabase> {
  try {
    return await ReadOnlyDatabase.open(file);
  } catch (error) {
    throw new UsageError(`--db: ${(error as Error).message}`);
  }
}

export async function runExplain(sql: string | undefined, options: ExplainCommandOptions): Promise<number> {
  const statements = statementsFromArguments(sql, options.file);
  const db = await openDatabase(options.db);
  try {
    const schema = await readSchema(db);
    const sqlite = await ReadOnlyDatabase.sqliteVersion();
    const plans = [];
    for (const statement of statements) plans.push(await explainQuery(db, statement, schema));
    const gold = options.vs ? await explainQuery(db, options.vs, schema) : undefined;
    const differences = gold ? comparePlans(gold, plans[0]) : undefined;
    if (options.json) {
      process.stdout.write(JSON.stringify({ tool: await toolInfo(), db: options.db, plans, gold, differences }, null, 2) + '\n');
      return plans.some((p) => p.error) ? 1 : 0;
    }
    const out: string[] = [pc.dim(`SQLite ${sqlite} · ${options.db}`)];
    if (gold) {
      out.push(...sideBySide(planLines(gold), planLines(plans[0]), 'gold', 'prediction'), '', pc.bold('what differs'), ...differenceLines(differences ?? []));
    } else {
      plans.forEach((plan, i) => {
        if (plans.length > 1) out.push('', pc.bold(`-- statement ${i + 1}: `) + plan.sql.replace(/\s+/g, ' ').slice(0, 100));
        out.push(...planLines(plan));
      });
    }
    process.stdout.write(out.join('\n') + '\n');
    return plans.some((p) => p.error) || gold?.error ? 1 : 0;
  } finally {
    await db.close();
  }
}
