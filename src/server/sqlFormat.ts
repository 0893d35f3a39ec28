import { formatDialect, sqlite } from 'sql-formatter';

/**
 * SQL laid out for reading (sql-formatter's SQLite dialect, keywords as written). Only for display: what is
 * scored, timed or explained is always the SQL as given. SQL the formatter cannot read is shown as it is.
 */
export function formatSql(sql: string): string {
  const text = sql.trim();
  if (!text) return '';
  try {
    return formatDialect(text, { dialect: sqlite, keywordCase: 'preserve', tabWidth: 2, linesBetweenQueries: 1 });
  } catch {
    return text;
  }
}
