import type { DatabaseConnection } from '../engine';
import { ColumnInfo, ForeignKeyInfo, IndexInfo, quoteIdentifier, quoteSqlString, SchemaInfo, TableInfo } from '../schema';

/** A table's declared foreign keys (PRAGMA foreign_key_list), one column pair each, in declaration and key order. */
async function readForeignKeys(db: Pick<DatabaseConnection, 'all'>, table: string): Promise<ForeignKeyInfo[]> {
  const rows = await db.all(
    'SELECT seq, "table" AS parent, "from" AS child, "to" AS target ' +
      `FROM pragma_foreign_key_list(${quoteSqlString(table)}) ORDER BY id, seq`,
  );
  const keys: ForeignKeyInfo[] = [];
  for (const row of rows) {
    const parent = String(row.parent);
    const to = row.target === null ? null : String(row.target);
    let target = to ?? undefined;
    if (to === null) {
      // `REFERENCES parent` without columns means the parent's primary key, in key order.
      const primaryKey = await db.all(`SELECT name FROM pragma_table_info(${quoteSqlString(parent)}) WHERE pk > 0 ORDER BY pk`);
      const column = primaryKey[Number(row.seq)];
      if (column) target = String(column.name);
    }
    keys.push({ column: String(row.child), table: parent, to, target });
  }
  return keys;
}

/** Tables (with columns, indexes, foreign keys and row counts) of a SQLite database, from sqlite_master and the table PRAGMAs. */
export async function readSqliteSchema(db: Pick<DatabaseConnection, 'all'>): Promise<SchemaInfo> {
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
    const foreignKeys = await readForeignKeys(db, name);
    tables.set(name.toLowerCase(), { name, columns, indexes, foreignKeys, rowCount: Number(n), rowidColumn, withoutRowid, sql });
  }
  return { tables, createStatements: master.map((e) => String(e.sql)) };
}
