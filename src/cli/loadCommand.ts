import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import pc from 'picocolors';
import type { LoadReport } from '../core/db/postgres/loadFromSqlite';
import type { MysqlServerLoad } from '../core/db/mysql/loadTarget';
import { prepareLoadRun, runLoadRun } from '../app/loadRun';
import { TABLE_STYLE } from '../core/text/tableStyle';
import { counted } from '../core/text/numberText';
import { checkOutputFile, UsageError } from './common';
import { TOOL_NAME, TOOL_VERSION, toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';

export interface LoadCommandOptions extends JsonDestination {
  from: string;
  to: string;
  db?: string;
  layout: string;
  replace?: boolean;
  progress: boolean;
}

function parseDatabases(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const ids = text
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new UsageError('--db: give one or more db_ids, e.g. superhero,toxicology');
  return ids;
}

/** What a PostgreSQL load did: a table of the databases, what it created and replaced, its notes. */
function summary(report: LoadReport, created: string[]): string {
  const where = report.layout === 'database' ? 'database' : 'schema';
  const table = new Table({
    head: ['db_id', where, 'tables', 'rows', 'seconds'],
    style: TABLE_STYLE,
    colAligns: ['left', 'left', 'right', 'right', 'right'],
  });
  for (const db of report.databases) {
    table.push([db.dbId, db.destination, db.tables.length, db.rows.toLocaleString('en-US'), db.seconds.toFixed(1)]);
  }
  const lines = [table.toString()];
  for (const database of created) lines.push(pc.dim(`created database ${database}`));
  for (const db of report.databases) {
    if (db.replaced.length) lines.push(pc.dim(`${db.dbId}: dropped and reloaded ${db.replaced.join(', ')}`));
    for (const note of db.notes) lines.push(pc.yellow(`note: ${db.dbId}: ${note}`));
  }
  lines.push(
    `loaded ${counted(report.rows, 'row')} into PostgreSQL ${report.server} at ${report.target} in ${report.seconds.toFixed(1)} s`,
  );
  return lines.join('\n') + '\n';
}

/** What a MySQL load did: a table of the databases and their notes. */
function mysqlSummary(report: MysqlServerLoad): string {
  const table = new Table({ head: ['db_id', 'tables', 'rows'], style: TABLE_STYLE, colAligns: ['left', 'right', 'right'] });
  for (const db of report.databases) table.push([db.dbId, db.tables, db.rows.toLocaleString('en-US')]);
  const lines = [table.toString()];
  for (const db of report.databases) for (const note of db.notes) lines.push(pc.yellow(`note: ${db.dbId}: ${note}`));
  lines.push(
    `loaded ${counted(report.rows, 'row')} into ${report.server} at ${report.target} (database ${report.database}) in ${report.seconds.toFixed(1)} s`,
  );
  return lines.join('\n') + '\n';
}

/**
 * `ves-lens load --from <db root> --to <url>`: into PostgreSQL (its --layout) or, for a mysql:// URL, into MySQL as
 * the official dump; the table of what was loaded, its notes, and the JSON report.
 */
export async function runLoad(options: LoadCommandOptions): Promise<number> {
  const dbIds = parseDatabases(options.db);
  const run = prepareLoadRun({ from: options.from, to: options.to, dbIds, layout: options.layout, replace: options.replace });
  const err = process.stderr;
  if (options.json) checkOutputFile('--json', options.json, []);
  if (!options.jsonStdout)
    err.write(
      `${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · load ${options.from} → ${run.target}${run.server === 'postgres' ? ` (layout ${run.layout})` : ''}\n`,
    );
  const bar =
    options.progress && err.isTTY && run.server === 'postgres'
      ? new SingleBar({ format: ' {bar} {value}/{total} rows · {label}', hideCursor: true, stream: err })
      : undefined;
  let started = false;
  const loaded = await runLoadRun(run, ({ rowsDone, rowsTotal, database, table }) => {
    const label = `${database}.${table}`;
    if (!started) bar?.start(rowsTotal, rowsDone, { label });
    else bar?.update(rowsDone, { label });
    started = true;
  }).finally(() => bar?.stop());
  if (loaded.server === 'mysql') {
    if (!options.jsonStdout) process.stdout.write(mysqlSummary(loaded.report));
    if (options.json || options.jsonStdout) emitJson(options, { tool: await toolInfo(), ...loaded.report });
  } else {
    if (!options.jsonStdout) process.stdout.write(summary(loaded.report, loaded.created));
    if (options.json || options.jsonStdout) emitJson(options, { tool: await toolInfo(), ...loaded.report, created: loaded.created });
  }
  return 0;
}
