import { formatDialect, mariadb, postgresql, sqlite } from 'sql-formatter';
import type { SqlDialect } from '../core/sql/statements';
import { analysisBoundNote } from '../core/sql/textBounds';

const FORMATTER_DIALECTS = { sqlite, postgres: postgresql, mysql: mariadb } as const;

/**
 * sql-formatter's layout (the engine's dialect, SQLite by default; keywords as written); undefined for SQL it cannot
 * read, or past the bounds of SQL analysis (its tokens and parse tree grow with the text: a 31 MB prediction is shown as it is).
 */
export function layoutSql(sql: string, dialect: SqlDialect = 'sqlite'): string | undefined {
  const text = sql.trim();
  if (!text) return '';
  if (analysisBoundNote(text, 'layout')) return undefined;
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
