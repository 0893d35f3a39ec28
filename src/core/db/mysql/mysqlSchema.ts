import type { DatabaseConnection } from '../engine';
import { ColumnInfo, ForeignKeyInfo, IndexInfo, SchemaInfo, TableInfo } from '../schema';
import { quoteMysqlName } from './loadFromSqlite';

/**
 * Tables of the connection's database (with columns, indexes, foreign keys and row counts) from
 * information_schema; a table's `sql` is SHOW CREATE TABLE's.
 */
export async function readMysqlSchema(db: Pick<DatabaseConnection, 'all'>): Promise<SchemaInfo> {
  const here = 'table_schema = DATABASE()';
  const tableRows = await db.all(
    `SELECT table_name AS name FROM information_schema.tables WHERE ${here} AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const columnRows = await db.all(
    `SELECT table_name AS t, column_name AS name, column_type AS type, is_nullable AS nullable, column_key AS k FROM information_schema.columns WHERE ${here} ORDER BY table_name, ordinal_position`,
  );
  const indexRows = await db.all(
    `SELECT table_name AS t, index_name AS name, non_unique AS non_unique, column_name AS col FROM information_schema.statistics WHERE ${here} ORDER BY table_name, index_name, seq_in_index`,
  );
  const keyRows = await db.all(
    `SELECT table_name AS t, column_name AS col, referenced_table_name AS parent, referenced_column_name AS target FROM information_schema.key_column_usage ` +
      `WHERE ${here} AND referenced_table_name IS NOT NULL ORDER BY table_name, constraint_name, ordinal_position`,
  );
  const tables = new Map<string, TableInfo>();
  for (const row of tableRows) {
    const name = String(row.name);
    const columns: ColumnInfo[] = columnRows
      .filter((c) => c.t === name)
      .map((c) => ({ name: String(c.name), type: String(c.type).toUpperCase(), notNull: c.nullable === 'NO', primaryKey: c.k === 'PRI' }));
    const indexes = new Map<string, IndexInfo>();
    for (const i of indexRows.filter((r) => r.t === name)) {
      const indexName = String(i.name);
      const index = indexes.get(indexName) ?? {
        name: indexName,
        table: name,
        columns: [],
        unique: Number(i.non_unique) === 0,
        origin: indexName === 'PRIMARY' ? 'pk' : 'c',
        partial: false,
      };
      index.columns.push(String(i.col));
      indexes.set(indexName, index);
    }
    const foreignKeys: ForeignKeyInfo[] = keyRows
      .filter((k) => k.t === name)
      .map((k) => ({ column: String(k.col), table: String(k.parent), to: String(k.target), target: String(k.target) }));
    const [count] = await db.all(`SELECT COUNT(*) AS n FROM ${quoteMysqlName(name)}`);
    const [created] = await db.all(`SHOW CREATE TABLE ${quoteMysqlName(name)}`);
    tables.set(name.toLowerCase(), {
      name,
      columns,
      indexes: [...indexes.values()],
      foreignKeys,
      rowCount: Number(count.n),
      withoutRowid: false,
      sql: String(created?.['Create Table'] ?? ''),
    });
  }
  return {
    tables,
    createStatements: [...tables.values()].flatMap((table) => [table.sql]),
  };
}
