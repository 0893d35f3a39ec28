/**
 * SQLite names as the official BIRD PostgreSQL dump has them, so that its gold SQL finds every table and column:
 * a plain name (letters, digits and `_`, not starting with a digit) is folded to lower case, as PostgreSQL folds
 * it when a query writes it bare (`T1.CDSCode` finds `cdscode`); any other name keeps its case and must be quoted
 * (`T2."Enrollment (K-12)"`). A plain name that is a keyword is folded too: the gold quotes it in lower case
 * (`"order"`, `t2."date"`). Every name is created quoted, so a keyword needs no list here.
 *
 * Within one database no two names can fold to one: SQLite already refuses tables or columns whose names differ
 * only in ASCII case, and a name that keeps its case is never plain. Only databases that share a schema (layout
 * one-database) can clash, which the loader checks.
 */

/** PostgreSQL keeps the first 63 bytes of a name (NAMEDATALEN - 1) and silently drops the rest. */
export const MAX_IDENTIFIER_BYTES = 63;

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The PostgreSQL name a SQLite table, column or database gets. */
export function postgresName(sqliteName: string): string {
  return PLAIN_NAME.test(sqliteName) ? sqliteName.toLowerCase() : sqliteName;
}

/** A name quoted for PostgreSQL (always quoted: the case is then exactly the one given). */
export function quotePostgresName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"schema"."table"` */
export function qualifiedName(schema: string, table: string): string {
  return `${quotePostgresName(schema)}.${quotePostgresName(table)}`;
}

/** A name PostgreSQL cannot hold as it is (too long, a NUL character), or undefined. */
export function identifierProblem(name: string): string | undefined {
  if (name.length === 0) return 'an empty name';
  if (name.includes('\0')) return 'a name holding a NUL character';
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_IDENTIFIER_BYTES) return `${bytes} bytes long: PostgreSQL keeps only the first ${MAX_IDENTIFIER_BYTES}`;
  return undefined;
}
