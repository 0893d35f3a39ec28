/**
 * SQL laid out for the editor to read (the Plan and Score panels' SQL), and a verified rewrite as the edit applied
 * to a .sql document. Only for display and editing: what is scored, timed or explained is always the SQL as given.
 */
import { formatDialect, mariadb, postgresql, sqlite } from 'sql-formatter';
import type { OpenDatabase } from '../core/db/connectionCache';
import { dialectOf } from '../core/db/readQuery';
import { tokenize } from '../core/sql/lexer';
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

/**
 * A verified rewrite as the edit applied to a .sql document. A hint's rewrite replaces a piece of the statement
 * (an `EXISTS (...)`, a `LIKE`) with text of one line; spliced into a statement laid out over several lines it
 * would read unlike the rest. So such a statement is laid out again whole (layoutSql, above), its later lines
 * indented as its first line is, and only the part that differs is replaced: the text around the statement,
 * and the statement's own text before the change, stay as they are (so the earlier hints' offsets still hold).
 * A statement on one line stays on one line: the spliced rewrite already reads like it.
 */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The statement's span in the document (without its `;`). */
export interface StatementRange {
  start: number;
  end: number;
}

/** The same tokens in the same order (strings, identifiers, comments compared exactly): only whitespace differs. */
function sameTokens(a: string, b: string): boolean {
  const tokens = (sql: string) => [...tokenize(sql)].filter((token) => token.kind !== 'space');
  const left = tokens(a);
  const right = tokens(b);
  return left.length === right.length && left.every((token, i) => token.text === right[i].text);
}

/** Replaces the part of `before` (at `offset` in the document) that differs from `after`, and nothing else. */
function smallestEdit(before: string, after: string, offset: number): TextEdit {
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  const room = Math.min(before.length, after.length) - prefix;
  while (suffix < room && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return { start: offset + prefix, end: offset + before.length - suffix, text: after.slice(prefix, after.length - suffix) };
}

export function formattedRewriteEdit(
  documentText: string,
  statement: StatementRange,
  rewrite: TextEdit,
  dialect: SqlDialect = 'sqlite',
): TextEdit {
  const original = documentText.slice(statement.start, statement.end);
  if (!original.includes('\n')) return rewrite;
  const rewritten = documentText.slice(statement.start, rewrite.start) + rewrite.text + documentText.slice(rewrite.end, statement.end);
  const laidOut = layoutSql(rewritten, dialect);
  if (!laidOut) return rewrite;
  const lineStart = documentText.lastIndexOf('\n', statement.start - 1) + 1;
  const indentation = /^[ \t]*/.exec(documentText.slice(lineStart, statement.start))![0];
  const indented = laidOut
    .split('\n')
    .map((line, i) => (i === 0 || line === '' ? line : indentation + line))
    .join('\n');
  // Layout must change whitespace only (never a literal spanning lines, never a token): otherwise, the splice.
  if (!sameTokens(rewritten, indented)) return rewrite;
  return smallestEdit(original, indented, statement.start);
}

/**
 * A rewrite of (part of) a statement as the edit of its document: in a .sql file the statement keeps its layout
 * (formattedRewriteEdit, in the dialect of the database it runs on); inside a JSON string the new text is escaped as JSON.
 */
export function documentEdit(
  document: { languageId: string; text: string },
  statement: StatementRange,
  splice: TextEdit,
  database: OpenDatabase,
): TextEdit {
  return document.languageId === 'sql'
    ? formattedRewriteEdit(document.text, statement, splice, dialectOf(database.db.engine))
    : { ...splice, text: JSON.stringify(splice.text).slice(1, -1) };
}
