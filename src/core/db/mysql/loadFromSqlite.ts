/**
 * Builds a MySQL (MariaDB) copy of BIRD SQLite databases in the official dump's layout: every database's tables
 * in one database (`BIRD`), tables and columns named as in SQLite (the MySQL gold quotes them with backticks),
 * types that lose no value (the PostgreSQL loader's reading of SQLite's loose types, typeMapping.ts, written in
 * MySQL's words), primary keys, unique keys, indexes and the foreign keys the data satisfies. A key the server's
 * case-insensitive collation cannot hold (two texts differing only in case) becomes an ordinary index, said in
 * the report's notes.
 */
import type { Connection } from 'mysql2/promise';
import { databasePath } from '../../bird/layout';
import { counted } from '../../text/numberText';
import { databaseFileProblem } from '../databaseFile';
import type { DatabaseConnection } from '../engine';
import { sqliteEngine } from '../sqlite/sqliteEngine';
import { databasesUnder, LoadError } from '../postgres/loadFromSqlite';
import { ColumnLoad, columnLoad, PostgresType, PROFILE_ITEMS, profileOf, profileSelectItems } from '../postgres/typeMapping';
import { quoteIdentifier, quoteSqlString, readSchema, SchemaInfo, TableInfo } from '../schema';

/** What a load writes, as a number: raise it when that changes, so cached copies are built again. */
export const MYSQL_LOADER_VERSION = 1;

/** Rows read from SQLite and inserted at a time. */
const BATCH_ROWS = 2_000;
/** The longest text a key or index column may hold as VARCHAR (InnoDB's 3072-byte key prefix, 4 bytes a character). */
const LONGEST_KEY_TEXT = 768;

/** A backtick-quoted MySQL identifier. */
export function quoteMysqlName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** The MySQL type of a column the PostgreSQL mapping reads as `type`; text in keys needs a bounded VARCHAR. */
function mysqlType(type: PostgresType, keyLength: number | undefined): string {
  switch (type) {
    case 'bigint':
      return 'BIGINT';
    case 'double precision':
      return 'DOUBLE';
    case 'numeric':
      return 'DOUBLE';
    case 'date':
      return 'DATE';
    case 'timestamp':
      return 'DATETIME(6)';
    case 'bytea':
      return 'LONGBLOB';
    default:
      return keyLength === undefined ? 'LONGTEXT' : `VARCHAR(${Math.max(keyLength, 1)})`;
  }
}

export interface MysqlLoadReport {
  database: string;
  databases: { dbId: string; tables: number; rows: number; notes: string[] }[];
  rows: number;
  seconds: number;
}

interface TablePlan {
  info: TableInfo;
  loads: ColumnLoad[];
  types: string[];
  primaryKey: string[];
  indexes: { columns: string[]; unique: boolean }[];
  foreignKeys: { columns: string[]; parent: string; parentColumns: string[] }[];
  rowid?: string;
}

async function planTable(sqlite: DatabaseConnection, schema: SchemaInfo, table: TableInfo, notes: string[]): Promise<TablePlan> {
  const source = quoteIdentifier(table.name);
  const loads: ColumnLoad[] = [];
  if (table.columns.length) {
    const items = table.columns.flatMap((column) => profileSelectItems(quoteIdentifier(column.name), column.type));
    const [row] = await sqlite.all(`SELECT ${items.map((item, i) => `${item} AS p${i}`).join(', ')} FROM ${source}`);
    table.columns.forEach((column, i) => {
      const load = columnLoad(column.type, profileOf(Array.from({ length: PROFILE_ITEMS }, (_, k) => row[`p${i * PROFILE_ITEMS + k}`])));
      if (load.note)
        notes.push(`${table.name}.${column.name} ${load.note.replace(/double precision/g, 'DOUBLE').replace(/bytea/g, 'LONGBLOB')}`);
      loads.push(load);
    });
  }
  const named = (name: string) => table.columns.find((c) => c.name.toLowerCase() === name.toLowerCase())?.name;
  const keyIndex = table.indexes.find((index) => index.origin === 'pk');
  const primaryKey = keyIndex ? keyIndex.columns.map((c) => named(c) ?? c) : table.columns.filter((c) => c.primaryKey).map((c) => c.name);
  const indexes: TablePlan['indexes'] = [];
  for (const index of table.indexes) {
    if (index.origin === 'pk') continue;
    if (index.partial || !index.columns.every(named)) notes.push(`index ${index.name} on ${table.name} not kept: its SQL is SQLite's`);
    else indexes.push({ columns: index.columns.map((c) => named(c)!), unique: index.unique });
  }
  const foreignKeys: TablePlan['foreignKeys'] = [];
  // A composite key is one declaration (pragma_foreign_key_list's id); two keys to one parent are two.
  const ids = table.foreignKeys.length
    ? await sqlite.all(`SELECT id FROM pragma_foreign_key_list(${quoteSqlString(table.name)}) ORDER BY id, seq`)
    : [];
  const groups = new Map<number, TableInfo['foreignKeys']>();
  table.foreignKeys.forEach((key, i) => groups.set(Number(ids[i]?.id), [...(groups.get(Number(ids[i]?.id)) ?? []), key]));
  for (const pairs of groups.values()) {
    const parent = schema.tables.get(pairs[0].table.toLowerCase())?.name ?? pairs[0].table;
    if (pairs.some((pair) => pair.target === undefined)) {
      notes.push(`foreign key ${table.name} → ${parent} not kept: it names a column the database does not have`);
      continue;
    }
    foreignKeys.push({ columns: pairs.map((p) => named(p.column) ?? p.column), parent, parentColumns: pairs.map((p) => p.target!) });
  }
  // Text in a key or an index is VARCHAR of its longest value; InnoDB cannot index LONGTEXT whole.
  const keyed = new Set(
    [...primaryKey, ...indexes.flatMap((i) => i.columns), ...foreignKeys.flatMap((k) => k.columns)].map((c) => c.toLowerCase()),
  );
  const types: string[] = [];
  for (const [i, column] of table.columns.entries()) {
    let keyLength: number | undefined;
    if (loads[i].type === 'text' && keyed.has(column.name.toLowerCase())) {
      const [row] = await sqlite.all(`SELECT max(length(${quoteIdentifier(column.name)})) AS n FROM ${source}`);
      keyLength = Math.max(Number(row.n ?? 0), 32);
      if (keyLength > LONGEST_KEY_TEXT) keyLength = undefined;
    }
    types.push(mysqlType(loads[i].type, keyLength));
  }
  const names = new Set(table.columns.map((c) => c.name.toLowerCase()));
  const rowid = table.withoutRowid ? undefined : ['rowid', '_rowid_', 'oid'].find((name) => !names.has(name));
  return { info: table, loads, types, primaryKey, indexes, foreignKeys, rowid };
}

/** Runs a statement whose failure is a note, not the end of the load (a key the data breaks). */
async function attempt(target: Connection, sql: string): Promise<string | undefined> {
  try {
    await target.query(sql);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

async function copyRows(sqlite: DatabaseConnection, plan: TablePlan, target: Connection): Promise<number> {
  const reads = plan.info.columns.map((c, i) => `${plan.loads[i].read(quoteIdentifier(c.name))} AS c${i}`).join(', ');
  const source = quoteIdentifier(plan.info.name);
  const insert = `INSERT INTO ${quoteMysqlName(plan.info.name)} (${plan.info.columns.map((c) => quoteMysqlName(c.name)).join(', ')}) VALUES ?`;
  let copied = 0;
  let last: string | null = null;
  for (;;) {
    const sql = plan.rowid
      ? `SELECT CAST(${plan.rowid} AS TEXT) AS r, ${reads} FROM ${source}${last === null ? '' : ` WHERE ${plan.rowid} > ${last}`} ORDER BY ${plan.rowid} LIMIT ${BATCH_ROWS}`
      : `SELECT ${reads} FROM ${source}`;
    const rows = await sqlite.all(sql);
    if (rows.length === 0) break;
    const values = rows.map((row) => plan.info.columns.map((_, i) => row[`c${i}`]));
    for (let i = 0; i < values.length; i += BATCH_ROWS) await target.query(insert, [values.slice(i, i + BATCH_ROWS)]);
    copied += rows.length;
    if (!plan.rowid || rows.length < BATCH_ROWS) break;
    last = String(rows[rows.length - 1].r);
  }
  return copied;
}

/**
 * Loads every SQLite database under `from` (or `dbIds`) into `database` on the server `target` is connected
 * to, creating it. Tables the database already has are refused unless `replace`. Foreign keys last, with the
 * server's checks on, so one the data breaks is left out and said.
 */
export async function loadIntoMysql(
  target: Connection,
  options: {
    from: string;
    database: string;
    dbIds?: readonly string[];
    replace?: boolean;
    onTable?: (dbId: string, table: string) => void;
  },
): Promise<MysqlLoadReport> {
  const started = performance.now();
  const dbIds = options.dbIds ?? databasesUnder(options.from);
  if (dbIds.length === 0) throw new LoadError(`${options.from} holds no <db_id>/<db_id>.sqlite`);
  const database = quoteMysqlName(options.database);
  // The server's own collation where its character set is utf8mb4 (MySQL 8: utf8mb4_0900_ai_ci), as a dump restored there gets.
  const [[settings]] = (await target.query('SELECT @@character_set_server AS charset')) as unknown as [{ charset: string }[]];
  await target.query(`CREATE DATABASE IF NOT EXISTS ${database}${settings.charset === 'utf8mb4' ? '' : ' CHARACTER SET utf8mb4'}`);
  await target.query(`USE ${database}`);
  const plans: { dbId: string; sqlite: DatabaseConnection; tables: TablePlan[]; notes: string[] }[] = [];
  try {
    for (const dbId of dbIds) {
      const source = databasePath(options.from, dbId);
      const problem = databaseFileProblem(source);
      if (problem) throw new LoadError(`--db ${dbId}: ${source}: ${problem}`);
      const sqlite = await sqliteEngine.open(source).catch((error) => {
        throw new LoadError(`--db ${dbId}: ${source}: ${(error as Error).message}`);
      });
      const notes: string[] = [];
      plans.push({ dbId, sqlite, tables: [], notes });
      const schema = await readSchema(sqlite);
      const sqliteOnly = schema.createStatements.filter((sql) => /^\s*CREATE\s+(TEMP\w*\s+)?(VIEW|TRIGGER)\b/i.test(sql)).length;
      if (sqliteOnly) notes.push(`${counted(sqliteOnly, 'view or trigger', 'views or triggers')} not copied: their SQL is SQLite's`);
      for (const table of schema.tables.values()) plans[plans.length - 1].tables.push(await planTable(sqlite, schema, table, notes));
    }
    // One database holds every table, as the official dump: two databases' tables may not share a name.
    const owners = new Map<string, string>();
    for (const plan of plans)
      for (const table of plan.tables) {
        const owner = owners.get(table.info.name.toLowerCase());
        if (owner)
          throw new LoadError(
            `${owner}.${table.info.name} and ${plan.dbId}.${table.info.name} would both be ${options.database}.${table.info.name}`,
          );
        owners.set(table.info.name.toLowerCase(), plan.dbId);
      }
    const [existing] = (await target.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ?', [
      options.database,
    ])) as unknown as [{ name: string }[]];
    const present = new Set(existing.map((row) => row.name.toLowerCase()));
    const clashing = [...owners.keys()].filter((name) => present.has(name));
    if (clashing.length && !options.replace)
      throw new LoadError(`${options.database} already has ${clashing.join(', ')}: give --replace to drop and load them again`);
    await target.query('SET FOREIGN_KEY_CHECKS = 0');
    for (const name of clashing)
      await target.query(`DROP TABLE IF EXISTS ${quoteMysqlName(existing.find((r) => r.name.toLowerCase() === name)!.name)}`);
    await target.query('SET FOREIGN_KEY_CHECKS = 1');
    const report: MysqlLoadReport = { database: options.database, databases: [], rows: 0, seconds: 0 };
    for (const plan of plans) {
      let rows = 0;
      for (const table of plan.tables) {
        options.onTable?.(plan.dbId, table.info.name);
        const columns = table.info.columns.map((c, i) => `${quoteMysqlName(c.name)} ${table.types[i]}`);
        await target.query(`CREATE TABLE ${quoteMysqlName(table.info.name)} (${columns.join(', ')}) ENGINE=InnoDB`);
        rows += await copyRows(plan.sqlite, table, target);
        const list = (names: string[]) => names.map(quoteMysqlName).join(', ');
        const indexes = [...table.indexes];
        if (table.primaryKey.length) {
          const failure = await attempt(
            target,
            `ALTER TABLE ${quoteMysqlName(table.info.name)} ADD PRIMARY KEY (${list(table.primaryKey)})`,
          );
          if (failure) {
            plan.notes.push(
              `primary key of ${table.info.name} (${table.primaryKey.join(', ')}) not kept: ${failure}; an ordinary index is made instead`,
            );
            indexes.unshift({ columns: table.primaryKey, unique: false });
          }
        }
        for (const index of indexes) {
          let failure = await attempt(
            target,
            `ALTER TABLE ${quoteMysqlName(table.info.name)} ADD ${index.unique ? 'UNIQUE ' : ''}INDEX (${list(index.columns)})`,
          );
          if (failure && index.unique) {
            plan.notes.push(
              `unique key of ${table.info.name} (${index.columns.join(', ')}) not kept: ${failure}; an ordinary index is made instead`,
            );
            failure = await attempt(target, `ALTER TABLE ${quoteMysqlName(table.info.name)} ADD INDEX (${list(index.columns)})`);
          }
          if (failure) plan.notes.push(`index on ${table.info.name} (${index.columns.join(', ')}) not kept: ${failure}`);
        }
      }
      report.databases.push({ dbId: plan.dbId, tables: plan.tables.length, rows, notes: plan.notes });
      report.rows += rows;
    }
    for (const plan of plans)
      for (const table of plan.tables)
        for (const key of table.foreignKeys) {
          const failure = await attempt(
            target,
            `ALTER TABLE ${quoteMysqlName(table.info.name)} ADD FOREIGN KEY (${key.columns.map(quoteMysqlName).join(', ')}) ` +
              `REFERENCES ${quoteMysqlName(key.parent)} (${key.parentColumns.map(quoteMysqlName).join(', ')})`,
          );
          if (failure)
            plan.notes.push(
              `foreign key ${table.info.name}(${key.columns.join(', ')}) → ${key.parent}(${key.parentColumns.join(', ')}) not kept: ${failure}`,
            );
        }
    for (const plan of plans) for (const table of plan.tables) await target.query(`ANALYZE TABLE ${quoteMysqlName(table.info.name)}`);
    report.seconds = (performance.now() - started) / 1000;
    return report;
  } finally {
    for (const plan of plans) await plan.sqlite.close().catch(() => undefined);
  }
}
