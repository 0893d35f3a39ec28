import { ReadOnlyDatabase } from './database';

export interface IndexInfo {
  name: string;
  table: string;
  columns: string[];
  unique: boolean;
  /** `c` CREATE INDEX, `u` UNIQUE constraint, `pk` PRIMARY KEY constraint. */
  origin: string;
  partial: boolean;
}

export interface ColumnInfo {
  name: string;
  type: string;
  notNull: boolean;
  primaryKey: boolean;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  indexes: IndexInfo[];
  rowCount: number;
  /** The column that aliases the rowid (`INTEGER PRIMARY KEY`), if any. */
  rowidColumn?: string;
  withoutRowid: boolean;
  sql: string;
}

export interface SchemaInfo {
  tables: Map<string, TableInfo>; // keyed by lower-case name
  /** CREATE statements for tables, views and indexes, in sqlite_master order: a schema-only copy replays them. */
  createStatements: string[];
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Tables (with columns, indexes and row counts) of a database, read through its read-only connection. */
export async function readSchema(db: ReadOnlyDatabase): Promise<SchemaInfo> {
  const master = await db.all(
    "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
  );
  const tables = new Map<string, TableInfo>();
  for (const entry of master.filter((e) => e.type === 'table')) {
    const name = String(entry.name);
    const quoted = quoteIdentifier(name);
    const columns = (await db.all(`SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(${quoteSqlString(name)})`)).map(
      (c): ColumnInfo => ({ name: String(c.name), type: String(c.type ?? ''), notNull: Number(c.nn) === 1, primaryKey: Number(c.pk) > 0 }),
    );
    const indexes: IndexInfo[] = [];
    for (const index of await db.all(`SELECT name, "unique" AS u, origin, partial FROM pragma_index_list(${quoteSqlString(name)})`)) {
      const indexColumns = await db.all(`SELECT name FROM pragma_index_info(${quoteSqlString(String(index.name))}) ORDER BY seqno`);
      indexes.push({
        name: String(index.name),
        table: name,
        columns: indexColumns.map((c) => String(c.name)),
        unique: Number(index.u) === 1,
        origin: String(index.origin),
        partial: Number(index.partial) === 1,
      });
    }
    const sql = String(entry.sql);
    const withoutRowid = /\bWITHOUT\s+ROWID\b/i.test(sql);
    const pkColumns = columns.filter((c) => c.primaryKey);
    const rowidColumn = !withoutRowid && pkColumns.length === 1 && /^INTEGER$/i.test(pkColumns[0].type) ? pkColumns[0].name : undefined;
    const [{ n }] = await db.all(`SELECT count(*) AS n FROM ${quoted}`);
    tables.set(name.toLowerCase(), { name, columns, indexes, rowCount: Number(n), rowidColumn, withoutRowid, sql });
  }
  return { tables, createStatements: master.map((e) => String(e.sql)) };
}

export function quoteSqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
