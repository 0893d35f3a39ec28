import type { DatabaseConnection } from '../engine';
import { ColumnInfo, ForeignKeyInfo, IndexInfo, quoteIdentifier, SchemaInfo, TableInfo } from '../schema';

/** The schema queries run in: the first schema of the search path that exists (public unless a layout says otherwise). */
const SCHEMA = 'current_schema()';

/**
 * Tables of the current schema (with columns, indexes, foreign keys and row counts) from PostgreSQL's catalog.
 * A table's `sql` and the create statements are written from the catalog (PostgreSQL keeps no CREATE text).
 */
export async function readPostgresSchema(db: Pick<DatabaseConnection, 'all'>): Promise<SchemaInfo> {
  const tableRows = await db.all(
    `SELECT c.oid::int8 AS oid, c.relname AS name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ` +
      `WHERE n.nspname = ${SCHEMA} AND c.relkind IN ('r', 'p') ORDER BY c.oid`,
  );
  const columnRows = await db.all(
    `SELECT a.attrelid::int8 AS oid, a.attname AS name, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, ` +
      `EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conrelid = a.attrelid AND k.contype = 'p' AND a.attnum = ANY (k.conkey)) AS pk ` +
      `FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ` +
      `WHERE n.nspname = ${SCHEMA} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attrelid, a.attnum`,
  );
  const indexRows = await db.all(
    `SELECT i.indrelid::int8 AS oid, ic.relname AS name, i.indisunique AS is_unique, i.indisprimary AS is_primary, ` +
      `EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype = 'u') AS is_constraint, ` +
      `i.indpred IS NOT NULL AS partial, pg_catalog.pg_get_indexdef(i.indexrelid) AS definition, ` +
      `ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ` +
      `JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.position)::text AS columns ` +
      `FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid JOIN pg_catalog.pg_class c ON c.oid = i.indrelid ` +
      `JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${SCHEMA} ORDER BY i.indexrelid`,
  );
  const keyRows = await db.all(
    `SELECT k.conrelid::int8 AS oid, a.attname AS column_name, p.relname AS parent, pa.attname AS target ` +
      `FROM pg_catalog.pg_constraint k CROSS JOIN LATERAL unnest(k.conkey, k.confkey) WITH ORDINALITY AS u(child, parent, position) ` +
      `JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.child ` +
      `JOIN pg_catalog.pg_class p ON p.oid = k.confrelid JOIN pg_catalog.pg_attribute pa ON pa.attrelid = k.confrelid AND pa.attnum = u.parent ` +
      `JOIN pg_catalog.pg_namespace n ON n.oid = p.relnamespace WHERE k.contype = 'f' AND n.nspname = ${SCHEMA} ORDER BY k.oid, u.position`,
  );
  const byTable = <T>(rows: Record<string, unknown>[], map: (row: Record<string, unknown>) => T) => {
    const grouped = new Map<string, T[]>();
    for (const row of rows) grouped.set(String(row.oid), [...(grouped.get(String(row.oid)) ?? []), map(row)]);
    return grouped;
  };
  const columns = byTable(columnRows, (c): ColumnInfo => ({
    name: String(c.name),
    type: String(c.type),
    notNull: isTrue(c.not_null),
    primaryKey: isTrue(c.pk),
  }));
  const foreignKeys = byTable(keyRows, (k): ForeignKeyInfo => ({
    column: String(k.column_name),
    table: String(k.parent),
    to: String(k.target),
    target: String(k.target),
  }));
  const indexes = byTable(indexRows, (i) => ({
    definition: String(i.definition),
    info: (table: string): IndexInfo => ({
      name: String(i.name),
      table,
      columns: String(i.columns)
        .replace(/^\{|\}$/g, '')
        .split(',')
        .filter(Boolean)
        .map((c) => c.replace(/^"|"$/g, '')),
      unique: isTrue(i.is_unique),
      origin: isTrue(i.is_primary) ? 'pk' : isTrue(i.is_constraint) ? 'u' : 'c',
      partial: isTrue(i.partial),
    }),
  }));
  const rowCounts = await countRows(
    db,
    tableRows.map((row) => String(row.name)),
  );
  const tables = new Map<string, TableInfo>();
  const createStatements: string[] = [];
  for (const [t, row] of tableRows.entries()) {
    const oid = String(row.oid);
    const name = String(row.name);
    const tableColumns = columns.get(oid) ?? [];
    const primaryKey = tableColumns.filter((c) => c.primaryKey).map((c) => quoteIdentifier(c.name));
    const sql =
      `CREATE TABLE ${quoteIdentifier(name)} (` +
      [
        ...tableColumns.map((c) => `${quoteIdentifier(c.name)} ${c.type}${c.notNull ? ' NOT NULL' : ''}`),
        ...(primaryKey.length ? [`PRIMARY KEY (${primaryKey.join(', ')})`] : []),
      ].join(', ') +
      ')';
    const tableIndexes = indexes.get(oid) ?? [];
    tables.set(name.toLowerCase(), {
      name,
      columns: tableColumns,
      indexes: tableIndexes.map((index) => index.info(name)),
      foreignKeys: foreignKeys.get(oid) ?? [],
      rowCount: rowCounts[t],
      withoutRowid: true,
      sql,
    });
    createStatements.push(sql, ...tableIndexes.map((index) => index.definition));
  }
  return { tables, createStatements };
}

/** Tables counted per query: far under PostgreSQL's 1,664 columns of a result. */
const COUNTED_AT_ONCE = 500;

/** Each table's row count, a query per 500 tables (a round trip per table added up on a busy server). */
async function countRows(db: Pick<DatabaseConnection, 'all'>, names: readonly string[]): Promise<number[]> {
  const counts: number[] = [];
  for (let start = 0; start < names.length; start += COUNTED_AT_ONCE) {
    const part = names.slice(start, start + COUNTED_AT_ONCE);
    const [row] = await db.all(`SELECT ${part.map((name, i) => `(SELECT count(*) FROM ${quoteIdentifier(name)}) AS n${i}`).join(', ')}`);
    counts.push(...part.map((_, i) => Number(String(row[`n${i}`]))));
  }
  return counts;
}

/** A boolean from a catalog row (a bool column arrives as Python's True / False, see pythonValues.ts). */
function isTrue(value: unknown): boolean {
  return String(value) === 'True';
}
