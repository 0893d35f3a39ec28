// The catalogue's shape is declared in sql/catalog.ts (scope resolution below db/ reads it); every engine fills it here.
export type { ColumnInfo, ForeignKeyInfo, IndexInfo, SchemaInfo, TableInfo } from '../sql/catalog';
import type { SchemaInfo } from '../sql/catalog';

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Tables (with columns, indexes, foreign keys and row counts) of a database, read through its read-only connection. */
export function readSchema(db: { readSchema(): Promise<SchemaInfo> }): Promise<SchemaInfo> {
  return db.readSchema();
}

export function quoteSqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
