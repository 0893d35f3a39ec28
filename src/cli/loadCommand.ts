import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import pc from 'picocolors';
import { LOAD_LAYOUTS, LoadError, loadFromSqlite, LoadLayout, LoadReport } from '../core/db/postgres/loadFromSqlite';
import { redactUrl } from '../core/db/postgres/connectionTarget';
import { openServerTarget } from '../core/db/postgres/loadTarget';
import { isMysqlTarget, redactMysqlUrl } from '../core/db/mysql/connectionTarget';
import { loadIntoMysqlServer, MysqlServerLoad } from '../core/db/mysql/loadTarget';
import { TABLE_STYLE } from '../core/report/terminal';
import { counted } from '../core/text/numberText';
import { checkOutputFile, TOOL_NAME, TOOL_VERSION, toolInfo, UsageError } from './common';
import { emitJson, JsonDestination } from './jsonOption';

export interface LoadCommandOptions extends JsonDestination {
  from: string;
  to: string;
  db?: string;
  layout: string;
  replace?: boolean;
  progress: boolean;
}

function parseLayout(text: string): LoadLayout {
  if (!(LOAD_LAYOUTS as readonly string[]).includes(text))
    throw new UsageError(`--layout: expected ${LOAD_LAYOUTS.join(', ')}, got "${text}"`);
  return text as LoadLayout;
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

/**
 * `load --to mysql://…`: every database's tables in the URL's database (`BIRD` by default), as the official dump;
 * the table of what was loaded, its notes, and the JSON report.
 */
async function runMysqlLoad(options: LoadCommandOptions): Promise<number> {
  if (options.layout !== 'one-database')
    throw new UsageError('--layout: a MySQL copy holds every database in one database, as the official dump (one-database)');
  if (options.json) checkOutputFile('--json', options.json, []);
  if (!options.jsonStdout)
    process.stderr.write(`${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · load ${options.from} → ${redactMysqlUrl(options.to)}\n`);
  let report: MysqlServerLoad;
  try {
    report = await loadIntoMysqlServer(options.to, { from: options.from, dbIds: parseDatabases(options.db), replace: options.replace });
  } catch (error) {
    if (error instanceof LoadError) throw new UsageError(error.message);
    throw error;
  }
  if (!options.jsonStdout) {
    const table = new Table({ head: ['db_id', 'tables', 'rows'], style: TABLE_STYLE, colAligns: ['left', 'right', 'right'] });
    for (const db of report.databases) table.push([db.dbId, db.tables, db.rows.toLocaleString('en-US')]);
    const lines = [table.toString()];
    for (const db of report.databases) for (const note of db.notes) lines.push(pc.yellow(`note: ${db.dbId}: ${note}`));
    lines.push(
      `loaded ${counted(report.rows, 'row')} into ${report.server} at ${report.target} (database ${report.database}) in ${report.seconds.toFixed(1)} s`,
    );
    process.stdout.write(lines.join('\n') + '\n');
  }
  if (options.json || options.jsonStdout) emitJson(options, { tool: await toolInfo(), ...report });
  return 0;
}

export async function runLoad(options: LoadCommandOptions): Promise<number> {
  if (isMysqlTarget(options.to)) return runMysqlLoad(options);
  const layout = parseLayout(options.layout);
  const dbIds = parseDatabases(options.db);
  const err = process.stderr;
  if (options.json) checkOutputFile('--json', options.json, []);
  if (!options.jsonStdout)
    err.write(`${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · load ${options.from} → ${redactUrl(options.to)} (layout ${layout})\n`);
  const bar =
    options.progress && err.isTTY
      ? new SingleBar({ format: ' {bar} {value}/{total} rows · {label}', hideCursor: true, stream: err })
      : undefined;
  let report: LoadReport;
  let created: string[];
  try {
    const target = await openServerTarget(options.to);
    created = target.created;
    try {
      let started = false;
      report = await loadFromSqlite(target, {
        from: options.from,
        dbIds,
        layout,
        replace: options.replace,
        onProgress: ({ rowsDone, rowsTotal, database, table }) => {
          const label = `${database}.${table}`;
          if (!started) bar?.start(rowsTotal, rowsDone, { label });
          else bar?.update(rowsDone, { label });
          started = true;
        },
      });
    } finally {
      await target.close().catch(() => undefined);
    }
  } catch (error) {
    if (error instanceof LoadError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar?.stop();
  }
  if (!options.jsonStdout) process.stdout.write(summary(report, created));
  if (options.json || options.jsonStdout) emitJson(options, { tool: await toolInfo(), ...report, created });
  return 0;
}
