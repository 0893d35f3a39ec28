import { formatDialect, postgresql, sqlite } from 'sql-formatter';
import type { SqlDialect } from '../core/sql/statements';

const FORMATTER_DIALECTS = { sqlite, postgres: postgresql } as const;

/** sql-formatter's layout (the engine's dialect, SQLite by default; keywords as written); undefined for SQL it cannot read. */
export function layoutSql(sql: string, dialect: SqlDialect = 'sqlite'): string | undefined {
  const text = sql.trim();
  if (!text) return '';
  try {
    return formatDialect(text, { dialect: FORMATTER_DIALECTS[dialect], keywordCase: 'preserve', tabWidth: 2, linesBetweenQueries: 1 });
  } catch {
    return undefined;
  }
}

/**
 * SQL laid out for reading. Only for display: what is scored, timed or explained is always the SQL as given.
 * SQL the formatter cannot read is shown as it is.
 */
export function formatSql(sql: string, dialect: SqlDialect = 'sqlite'): string {
  return layoutSql(sql, dialect) ?? sql.trim();
}
