import type { DatabaseConnection } from './engine';

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
export function readSchema(db: DatabaseConnection): Promise<SchemaInfo> {
  return db.readSchema();
}

export function quoteSqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
