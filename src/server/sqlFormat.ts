import { formatDialect, sqlite } from 'sql-formatter';

/** sql-formatter's layout (SQLite dialect, keywords as written); undefined for SQL it cannot read. */
export function layoutSql(sql: string): string | undefined {
  const text = sql.trim();
  if (!text) return '';
  try {
    return formatDialect(text, { dialect: sqlite, keywordCase: 'preserve', tabWidth: 2, linesBetweenQueries: 1 });
  } catch {
    return undefined;
  }
}

/**
 * SQL laid out for reading. Only for display: what is scored, timed or explained is always the SQL as given.
 * SQL the formatter cannot read is shown as it is.
 */
export function formatSql(sql: string): string {
  return layoutSql(sql) ?? sql.trim();
}
