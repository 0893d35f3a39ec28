/**
 * Builds a PostgreSQL copy of BIRD SQLite databases, so that the official PostgreSQL gold runs on it: names as
 * the official dump has them (identifiers.ts), types that lose no value (typeMapping.ts), primary keys, unique
 * constraints, indexes and the foreign keys the data satisfies. One transaction per database: a failure leaves
 * the target as it was. Written over SqlExecutor, so a server (loadTarget.ts) and an embedded engine load alike.
 */
import * as fs from 'fs';
import { databasePath } from '../../bird/layout';
import { counted } from '../../text/numberText';
import { ResultTooLarge, SqlValue } from '../database';
import { databaseFileProblem } from '../databaseFile';
import type { DatabaseConnection } from '../engine';
import { sqliteEngine } from '../sqlite/sqliteEngine';
import { ColumnInfo, quoteIdentifier, quoteSqlString, readSchema, SchemaInfo, TableInfo } from '../schema';
import { identifierProblem, postgresName, qualifiedName, quotePostgresName } from './identifiers';
import { ColumnLoad, columnLoad, PostgresType, PROFILE_ITEMS, profileOf, profileSelectItems } from './typeMapping';

/** What a load writes, as a number: raise it when that changes, so copies kept from an older load are built again. */
export const LOADER_VERSION = 1;

/** Runs SQL on a PostgreSQL database: node-postgres's Client and PGlite both have this shape. */
export interface SqlExecutor {
  /** One statement, with $1, $2, ... parameters. */
  query(sql: string, params?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** One or more statements without parameters. */
  exec(sql: string): Promise<void>;
}

/** A connection of its own to one database of a server (layout `database`), closed after its load. */
export interface OwnedExecutor extends SqlExecutor {
  close(): Promise<void>;
}

/** Where the copy goes. */
export interface LoadTarget {
  /** The database the target names. */
  readonly main: SqlExecutor;
  /** What reports call the target: a URL without its password, or the embedded engine. */
  readonly label: string;
  /** Another database of the same server (layout `database`): undefined when it is missing and `create` is false. Absent where the target is one database. */
  database?(name: string, create: boolean): Promise<OwnedExecutor | undefined>;
}

/**
 * Where each BIRD database's tables go: all in schema public of the target's database (as the official dump has
 * them), a schema per db_id, or a database per db_id.
 */
export const LOAD_LAYOUTS = ['one-database', 'schema', 'database'] as const;
export type LoadLayout = (typeof LOAD_LAYOUTS)[number];

/** A load that cannot be done as asked (a name clash, a target already holding the tables, an unreadable source): said without a stack. */
export class LoadError extends Error {}

/** The target refused a statement or went away; `detail` is PostgreSQL's (which key broke a constraint). */
class TargetFailure extends LoadError {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** The executor whose failures are TargetFailures, told apart from a bug in the loader. */
function reportingFailures(executor: SqlExecutor): SqlExecutor {
  const fail = (error: unknown): never => {
    throw new TargetFailure((error as Error).message || String(error), (error as { detail?: string }).detail);
  };
  return { query: (sql, params) => executor.query(sql, params).catch(fail), exec: (sql) => executor.exec(sql).catch(fail) };
}

export interface LoadProgress {
  rowsDone: number;
  rowsTotal: number;
  /** The db_id and table being copied. */
  database: string;
  table: string;
}

export interface LoadOptions {
  /** The BIRD database root: `<from>/<db_id>/<db_id>.sqlite`. */
  from: string;
  /** The db_ids to load; default: every database under `from`. */
  dbIds?: readonly string[];
  layout?: LoadLayout;
  /** Drop and reload the tables of these databases where the target has them (otherwise the load is refused). */
  replace?: boolean;
  onProgress?: (progress: LoadProgress) => void;
}

export interface ColumnLoadReport {
  sqliteName: string;
  name: string;
  type: PostgresType;
}

export interface TableLoadReport {
  sqliteName: string;
  name: string;
  rows: number;
  columns: ColumnLoadReport[];
}

export interface DatabaseLoadReport {
  dbId: string;
  source: string;
  /** Where its tables are: `public`, the schema or the database named after it. */
  destination: string;
  tables: TableLoadReport[];
  rows: number;
  /** Tables that were there before and were dropped (--replace). */
  replaced: string[];
  /** What was loaded differently from the SQLite declaration or left out, and why. */
  notes: string[];
  seconds: number;
}

export interface LoadReport {
  target: string;
  layout: LoadLayout;
  /** PostgreSQL's server_version. */
  server: string;
  databases: DatabaseLoadReport[];
  rows: number;
  seconds: number;
}

/** Rows read from SQLite at a time, and the bytes they may hold: memory stays bounded whatever a table holds. */
const READ_BATCH_ROWS = 10_000;
const READ_BATCH_BYTES = 32 * 2 ** 20;
/** Rows a multi-row INSERT carries; PostgreSQL takes at most 65,535 parameters in one statement. */
const INSERT_ROWS = 1_000;
const MAX_PARAMETERS = 65_535;

interface ColumnPlan {
  info: ColumnInfo;
  name: string;
  load: ColumnLoad;
}

interface ForeignKeyPlan {
  columns: string[];
  parent: string;
  parentColumns: string[];
}

interface TablePlan {
  info: TableInfo;
  name: string;
  columns: ColumnPlan[];
  /** PostgreSQL column names. */
  primaryKey: string[];
  uniques: string[][];
  indexes: { columns: string[]; unique: boolean }[];
  foreignKeys: ForeignKeyPlan[];
  /** SQLite's name for the rowid that keyset reads follow; undefined for WITHOUT ROWID tables (read by key order). */
  rowid?: string;
}

interface DatabasePlan {
  dbId: string;
  source: string;
  sqlite: DatabaseConnection;
  tables: TablePlan[];
  /** Schema (layouts one-database, schema) and database (layout database) of its tables. */
  schema: string;
  database?: string;
  notes: string[];
}

/** The db_ids under a BIRD root: folders holding `<db_id>/<db_id>.sqlite`. */
export function databasesUnder(root: string): string[] {
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(databasePath(root, entry.name)))
    .map((entry) => entry.name)
    .sort();
}

/** PostgreSQL's message, or its detail where it has one (`Key (molecule_id)=(TR003) is not present in table "molecule".`). */
function messageOf(error: unknown): string {
  const { message, detail } = error as { message?: string; detail?: string };
  return detail || message || String(error);
}

/** A column name of a table, matched as SQLite matches names (without regard to case). */
function columnNamed(table: TableInfo, name: string): ColumnInfo | undefined {
  return table.columns.find((column) => column.name.toLowerCase() === name.toLowerCase());
}

/** The storage class counts of every column of a table, in one scan. */
async function readProfiles(sqlite: DatabaseConnection, table: TableInfo): Promise<ColumnLoad[]> {
  if (table.columns.length === 0) return [];
  const items = table.columns.flatMap((column) => profileSelectItems(quoteIdentifier(column.name), column.type));
  const [row] = await sqlite.all(`SELECT ${items.map((item, i) => `${item} AS p${i}`).join(', ')} FROM ${quoteIdentifier(table.name)}`);
  return table.columns.map((column, i) => {
    const values = Array.from({ length: PROFILE_ITEMS }, (_, k) => row[`p${i * PROFILE_ITEMS + k}`]);
    return columnLoad(column.type, profileOf(values));
  });
}

/** Foreign keys grouped by declaration (a composite key is one), with parent names resolved to PostgreSQL's. */
async function foreignKeyPlans(
  sqlite: DatabaseConnection,
  schema: SchemaInfo,
  table: TableInfo,
  notes: string[],
): Promise<ForeignKeyPlan[]> {
  if (table.foreignKeys.length === 0) return [];
  const ids = await sqlite.all(`SELECT id FROM pragma_foreign_key_list(${quoteSqlString(table.name)}) ORDER BY id, seq`);
  const groups = new Map<number, typeof table.foreignKeys>();
  table.foreignKeys.forEach((key, i) => groups.set(Number(ids[i]?.id), [...(groups.get(Number(ids[i]?.id)) ?? []), key]));
  const plans: ForeignKeyPlan[] = [];
  for (const pairs of groups.values()) {
    const parent = schema.tables.get(pairs[0].table.toLowerCase());
    const parentColumns = pairs.map((pair) => (parent && pair.target !== undefined ? columnNamed(parent, pair.target) : undefined));
    const columns = pairs.map((pair) => columnNamed(table, pair.column));
    const declared = `${table.name}(${pairs.map((p) => p.column).join(', ')}) → ${pairs[0].table}(${pairs.map((p) => p.to ?? '').join(', ')})`;
    if (!parent || parentColumns.some((c) => !c) || columns.some((c) => !c)) {
      notes.push(`foreign key ${declared} not kept: it names a table or column the database does not have`);
      continue;
    }
    plans.push({
      columns: columns.map((c) => postgresName(c!.name)),
      parent: postgresName(parent.name),
      parentColumns: parentColumns.map((c) => postgresName(c!.name)),
    });
  }
  return plans;
}

async function planTable(
  sqlite: DatabaseConnection,
  schema: SchemaInfo,
  table: TableInfo,
  dbId: string,
  notes: string[],
): Promise<TablePlan> {
  const loads = await readProfiles(sqlite, table);
  const columns = table.columns.map((info, i): ColumnPlan => ({ info, name: postgresName(info.name), load: loads[i] }));
  for (const column of columns) {
    const problem = identifierProblem(column.name);
    if (problem) throw new LoadError(`${dbId}: column ${table.name}.${column.info.name} cannot be a PostgreSQL name: ${problem}`);
    if (column.load.note) notes.push(`${table.name}.${column.info.name} ${column.load.note}`);
  }
  const pg = (name: string) => postgresName(columnNamed(table, name)?.name ?? name);
  const known = (names: string[]) => names.every((name) => columnNamed(table, name));
  const keyIndex = table.indexes.find((index) => index.origin === 'pk');
  const primaryKey = keyIndex ? keyIndex.columns.map(pg) : table.columns.filter((c) => c.primaryKey).map((c) => postgresName(c.name));
  const uniques: string[][] = [];
  const indexes: TablePlan['indexes'] = [];
  for (const index of table.indexes) {
    if (index.origin === 'pk') continue;
    if (index.partial || !known(index.columns)) {
      notes.push(
        `index ${index.name} on ${table.name} not kept: ${index.partial ? 'a partial index' : 'it indexes an expression'} (SQLite SQL)`,
      );
    } else if (index.origin === 'u') uniques.push(index.columns.map(pg));
    else indexes.push({ columns: index.columns.map(pg), unique: index.unique });
  }
  const columnNames = new Set(table.columns.map((c) => c.name.toLowerCase()));
  const rowid = table.withoutRowid ? undefined : ['rowid', '_rowid_', 'oid'].find((name) => !columnNames.has(name));
  return {
    info: table,
    name: postgresName(table.name),
    columns,
    primaryKey,
    uniques,
    indexes,
    foreignKeys: await foreignKeyPlans(sqlite, schema, table, notes),
    rowid,
  };
}

async function planDatabase(from: string, dbId: string, layout: LoadLayout): Promise<DatabasePlan> {
  const source = databasePath(from, dbId);
  const problem = databaseFileProblem(source);
  if (problem) throw new LoadError(`--db ${dbId}: ${source}: ${problem}`);
  const unreadable = (error: unknown) => new LoadError(`--db ${dbId}: ${source}: ${(error as Error).message}`);
  const sqlite = await sqliteEngine.open(source).catch((error) => {
    throw unreadable(error);
  });
  try {
    const schema = await readSchema(sqlite).catch((error) => {
      throw unreadable(error);
    });
    const notes: string[] = [];
    const sqliteOnly = schema.createStatements.filter((sql) => /^\s*CREATE\s+(TEMP\w*\s+)?(VIEW|TRIGGER)\b/i.test(sql)).length;
    if (sqliteOnly) notes.push(`${counted(sqliteOnly, 'view or trigger', 'views or triggers')} not copied: their SQL is SQLite's`);
    const tables: TablePlan[] = [];
    for (const table of schema.tables.values()) tables.push(await planTable(sqlite, schema, table, dbId, notes));
    for (const table of tables) {
      const problem = identifierProblem(table.name);
      if (problem) throw new LoadError(`${dbId}: table ${table.info.name} cannot be a PostgreSQL name: ${problem}`);
    }
    const named = postgresName(dbId);
    const nameProblem = layout === 'one-database' ? undefined : identifierProblem(named);
    if (nameProblem) throw new LoadError(`--db ${dbId}: cannot name a PostgreSQL ${layout} after it: ${nameProblem}`);
    return {
      dbId,
      source,
      sqlite,
      tables,
      schema: layout === 'schema' ? named : 'public',
      database: layout === 'database' ? named : undefined,
      notes,
    };
  } catch (error) {
    await sqlite.close();
    throw error;
  }
}

/** In layout one-database every table shares schema public: two databases' tables may not share a name. */
function checkSharedSchema(plans: DatabasePlan[]): void {
  const owners = new Map<string, string[]>();
  for (const plan of plans)
    for (const table of plan.tables) owners.set(table.name, [...(owners.get(table.name) ?? []), `${plan.dbId}.${table.info.name}`]);
  const clashes = [...owners].filter(([, tables]) => tables.length > 1);
  if (clashes.length) {
    const said = clashes.map(([name, tables]) => `${tables.join(' and ')} both become public.${name}`);
    throw new LoadError(
      `layout one-database puts every table in one schema, and ${said.join('; ')}: load them with --layout schema or --layout database`,
    );
  }
}

/** The tables of `names` that `schema` already has (any relation of that name: a view blocks a table too). */
async function existingTables(executor: SqlExecutor, schema: string, names: string[]): Promise<string[]> {
  const { rows } = await executor.query(
    'SELECT c.relname AS name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ' +
      "WHERE n.nspname = $1 AND c.relname = ANY($2) AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY c.relname",
    [schema, names],
  );
  return rows.map((row) => String(row.name));
}

/** Runs `sql` inside a savepoint: its failure (data that breaks a constraint) is returned and the transaction goes on. */
async function attempt(executor: SqlExecutor, sql: string): Promise<string | undefined> {
  await executor.exec('SAVEPOINT ves_lens_load');
  try {
    await executor.exec(sql);
    await executor.exec('RELEASE SAVEPOINT ves_lens_load');
    return undefined;
  } catch (error) {
    await executor.exec('ROLLBACK TO SAVEPOINT ves_lens_load');
    return messageOf(error);
  }
}

function columnList(columns: string[]): string {
  return columns.map(quotePostgresName).join(', ');
}

/** Copies one table's rows, reading SQLite in keyset batches (bounded in rows and bytes) and writing multi-row INSERTs. */
async function copyRows(plan: DatabasePlan, table: TablePlan, executor: SqlExecutor, onRows: (rows: number) => void): Promise<number> {
  const target = qualifiedName(plan.schema, table.name);
  const width = table.columns.length;
  if (width === 0) return 0;
  const perInsert = Math.max(1, Math.min(INSERT_ROWS, Math.floor(MAX_PARAMETERS / width)));
  const insertSql = (rows: number) => {
    const tuples = Array.from(
      { length: rows },
      (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`,
    );
    return `INSERT INTO ${target} (${columnList(table.columns.map((c) => c.name))}) VALUES ${tuples.join(', ')}`;
  };
  const fullInsert = insertSql(perInsert);
  const reads = table.columns.map((column) => column.load.read(quoteIdentifier(column.info.name))).join(', ');
  const source = quoteIdentifier(table.info.name);
  const keyOrder = table.info.columns.filter((c) => c.primaryKey).map((c) => quoteIdentifier(c.name));
  let batchRows = READ_BATCH_ROWS;
  let lastRowid: SqlValue = null;
  let copied = 0;
  for (;;) {
    const sql = table.rowid
      ? `SELECT CAST(${table.rowid} AS TEXT), ${reads} FROM ${source}${lastRowid === null ? '' : ` WHERE ${table.rowid} > ${lastRowid}`} ORDER BY ${table.rowid} LIMIT ${batchRows}`
      : `SELECT NULL, ${reads} FROM ${source} ORDER BY ${(keyOrder.length ? keyOrder : ['1']).join(', ')} LIMIT ${batchRows} OFFSET ${copied}`;
    const batch: SqlValue[][] = [];
    try {
      await plan.sqlite.streamRows(sql, (row) => batch.push(row), { maxRows: batchRows, maxBytes: READ_BATCH_BYTES });
    } catch (error) {
      // Large values: fewer rows at a time.
      if (error instanceof ResultTooLarge && batchRows > 1) {
        batchRows = Math.max(1, Math.floor(batchRows / 4));
        continue;
      }
      throw error;
    }
    for (let start = 0; start < batch.length; start += perInsert) {
      const rows = batch.slice(start, start + perInsert);
      const params = rows.flatMap((row) => row.slice(1));
      try {
        await executor.query(rows.length === perInsert ? fullInsert : insertSql(rows.length), params);
      } catch (error) {
        if (error instanceof TargetFailure) throw new TargetFailure(`copying ${table.info.name}: ${messageOf(error)}`);
        throw error;
      }
    }
    copied += batch.length;
    onRows(batch.length);
    if (batch.length < batchRows) return copied;
    // The rowid as text: exact past 2^53, written back as an integer literal.
    lastRowid = batch[batch.length - 1][0];
  }
}

async function loadDatabase(
  plan: DatabasePlan,
  executor: SqlExecutor,
  replace: string[],
  onRows: (table: TablePlan, rows: number) => void,
): Promise<DatabaseLoadReport> {
  const started = performance.now();
  const notes = [...plan.notes];
  const tables: TableLoadReport[] = [];
  await executor.exec('BEGIN');
  try {
    if (plan.schema !== 'public') await executor.exec(`CREATE SCHEMA IF NOT EXISTS ${quotePostgresName(plan.schema)}`);
    if (replace.length) await executor.exec(`DROP TABLE ${replace.map((name) => qualifiedName(plan.schema, name)).join(', ')} CASCADE`);
    for (const table of plan.tables) {
      const columns = table.columns.map((c) => `${quotePostgresName(c.name)} ${c.load.type}${c.info.notNull ? ' NOT NULL' : ''}`);
      await executor.exec(`CREATE TABLE ${qualifiedName(plan.schema, table.name)} (${columns.join(', ')})`);
    }
    for (const table of plan.tables) {
      const rows = await copyRows(plan, table, executor, (n) => onRows(table, n));
      tables.push({
        sqliteName: table.info.name,
        name: table.name,
        rows,
        columns: table.columns.map((c) => ({ sqliteName: c.info.name, name: c.name, type: c.load.type })),
      });
    }
    // Keys and indexes after the rows: one index build instead of one insertion per row.
    for (const table of plan.tables) {
      const target = qualifiedName(plan.schema, table.name);
      const indexes = [...table.indexes];
      const keys: [string, string[]][] = [
        ...(table.primaryKey.length ? [['PRIMARY KEY', table.primaryKey] as [string, string[]]] : []),
        ...table.uniques.map((columns) => ['UNIQUE', columns] as [string, string[]]),
      ];
      for (const [kind, columns] of keys) {
        const failure = await attempt(executor, `ALTER TABLE ${target} ADD ${kind} (${columnList(columns)})`);
        if (!failure) continue;
        notes.push(
          `${kind.toLowerCase()} of ${table.info.name} (${columns.join(', ')}) not kept: ${failure}; an ordinary index is made instead`,
        );
        indexes.push({ columns, unique: false });
      }
      for (const index of indexes) {
        // PostgreSQL names the index (unique within the schema, which databases may share).
        const failure = await attempt(executor, `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ON ${target} (${columnList(index.columns)})`);
        if (failure) notes.push(`index on ${table.info.name} (${index.columns.join(', ')}) not kept: ${failure}`);
      }
    }
    for (const table of plan.tables) {
      for (const key of table.foreignKeys) {
        const failure = await attempt(
          executor,
          `ALTER TABLE ${qualifiedName(plan.schema, table.name)} ADD FOREIGN KEY (${columnList(key.columns)}) ` +
            `REFERENCES ${qualifiedName(plan.schema, key.parent)} (${columnList(key.parentColumns)})`,
        );
        if (failure)
          notes.push(
            `foreign key ${table.name}(${key.columns.join(', ')}) → ${key.parent}(${key.parentColumns.join(', ')}) not kept: ${failure}`,
          );
      }
    }
    // Planner statistics now, so the first plans are as a dump restored and analysed would give.
    for (const table of plan.tables) await executor.exec(`ANALYZE ${qualifiedName(plan.schema, table.name)}`);
    await executor.exec('COMMIT');
  } catch (error) {
    await executor.exec('ROLLBACK').catch(() => undefined);
    if (!(error instanceof LoadError)) throw error;
    const said = error instanceof TargetFailure ? `${plan.dbId}: ${messageOf(error)}` : error.message;
    throw new LoadError(`${said} (nothing of ${plan.dbId} was kept: its load is one transaction)`);
  }
  return {
    dbId: plan.dbId,
    source: plan.source,
    destination: plan.database ?? plan.schema,
    tables,
    rows: tables.reduce((sum, t) => sum + t.rows, 0),
    replaced: replace,
    notes,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Loads BIRD SQLite databases into `target`. Everything is checked before anything is written: the sources can
 * be read, their names fit PostgreSQL without clashing, and the target does not have their tables yet (unless
 * `replace`, which drops and reloads only those tables).
 */
export async function loadFromSqlite(target: LoadTarget, options: LoadOptions): Promise<LoadReport> {
  const started = performance.now();
  const layout = options.layout ?? 'one-database';
  if (!fs.existsSync(options.from) || !fs.statSync(options.from).isDirectory())
    throw new LoadError(`--from: ${options.from} is not a folder`);
  const dbIds = options.dbIds?.length ? [...new Set(options.dbIds)] : databasesUnder(options.from);
  if (dbIds.length === 0) throw new LoadError(`--from: ${options.from} holds no <db_id>/<db_id>.sqlite`);
  if (layout === 'database' && !target.database)
    throw new LoadError(`--layout database: ${target.label} is one database; use --layout one-database or schema`);
  const main = reportingFailures(target.main);

  /** Runs `work` on the database a plan's tables go to (skipped when it is missing and not to be created). */
  const onDestination = async <T>(
    plan: DatabasePlan,
    create: boolean,
    work: (executor: SqlExecutor) => Promise<T>,
  ): Promise<T | undefined> => {
    if (!plan.database) return work(main);
    const owned = await target.database!(plan.database, create);
    if (!owned) return undefined;
    try {
      return await work(reportingFailures(owned));
    } finally {
      await owned.close().catch(() => undefined);
    }
  };

  const plans: DatabasePlan[] = [];
  try {
    for (const dbId of dbIds) plans.push(await planDatabase(options.from, dbId, layout));
    if (layout === 'one-database') checkSharedSchema(plans);

    // Which of their tables the target has already: refused, or (--replace) dropped in the same transaction.
    const existing = new Map<DatabasePlan, string[]>();
    for (const plan of plans) {
      const names = plan.tables.map((t) => t.name);
      existing.set(plan, (await onDestination(plan, false, (executor) => existingTables(executor, plan.schema, names))) ?? []);
    }
    const taken = plans.filter((plan) => existing.get(plan)!.length);
    if (taken.length && !options.replace) {
      const said = taken.map((plan) => {
        const tables = existing.get(plan)!.map((name) => `${plan.schema}.${name}`);
        const listed = tables.length > 4 ? `${tables.slice(0, 3).join(', ')} and ${tables.length - 3} more` : tables.join(', ');
        return `${plan.dbId} (${plan.database ? `database ${plan.database}: ` : ''}${listed})`;
      });
      throw new LoadError(`${target.label} already has tables of ${said.join('; ')}: add --replace to drop and reload them`);
    }

    const { rows: versionRows } = await main.query('SHOW server_version');
    const rowsTotal = plans.reduce((sum, plan) => sum + plan.tables.reduce((n, t) => n + t.info.rowCount, 0), 0);
    let rowsDone = 0;
    const databases: DatabaseLoadReport[] = [];
    for (const plan of plans) {
      options.onProgress?.({ rowsDone, rowsTotal, database: plan.dbId, table: plan.tables[0]?.info.name ?? '' });
      const onRows = (table: TablePlan, rows: number) => {
        rowsDone += rows;
        options.onProgress?.({ rowsDone, rowsTotal, database: plan.dbId, table: table.info.name });
      };
      try {
        databases.push((await onDestination(plan, true, (executor) => loadDatabase(plan, executor, existing.get(plan)!, onRows)))!);
      } catch (error) {
        if (!(error instanceof LoadError) || databases.length === 0) throw error;
        throw new LoadError(`${error.message}; loaded before it: ${databases.map((d) => d.dbId).join(', ')}`);
      }
    }
    return {
      target: target.label,
      layout,
      server: String(versionRows[0]?.server_version ?? ''),
      databases,
      rows: rowsDone,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await Promise.all(plans.map((plan) => plan.sqlite.close()));
  }
}
