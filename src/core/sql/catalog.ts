/**
 * What a database's catalogue says, as data: its tables, their columns, indexes and foreign keys. Declared here,
 * below db/, because resolving names in SQL text (scope.ts) reads it; each engine reads it from its database
 * (DatabaseConnection.readSchema; db/schema.ts re-exports these types for the engines and their callers).
 */

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

/** One column pair of a declared foreign key (a composite key gives one per column, in key order). */
export interface ForeignKeyInfo {
  /** The referencing column, in this table. */
  column: string;
  /** The referenced (parent) table, as the declaration spells it. */
  table: string;
  /** The referenced column as declared; null for `REFERENCES parent` without columns (its primary key). */
  to: string | null;
  /** The referenced column: `to`, or the parent's primary-key column at this key position; undefined when neither exists. */
  target?: string;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  indexes: IndexInfo[];
  /** Declared foreign keys, in declaration order. */
  foreignKeys: ForeignKeyInfo[];
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
