/**
 * The SQL a use case on statements reads from a file (explain, hints, index advice, optimize): the file's text,
 * refused naming --file when it holds something else than SQL statements, and its statements one by one.
 */
import { readTextFile, startsAsJson } from '../core/bird/jsonFile';
import { splitStatements } from '../core/sql/statements';
import { RunRefused } from './runRefused';

/** A BIRD gold line: the SQL, a tab, the db_id (a name, nothing after it). */
const GOLD_LINE = /\t[A-Za-z_][\w$]*\s*$/;

/**
 * What a file holds when it is not a file of SQL statements (said instead of a plan or hint per fragment):
 * JSON (a question, prediction or tables file), or a BIRD gold file, whose lines hold no `;` between them, so that
 * its queries would run together as one statement.
 */
function notASqlFile(text: string): string | undefined {
  if (startsAsJson(text)) return 'JSON, not SQL (a question, prediction or tables file?): --file takes SQL statements separated by ";"';
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length > 1 && lines.every((line) => GOLD_LINE.test(line)))
    return (
      'a BIRD gold file (one "SQL<TAB>db_id" a line, no ";" between them): --file takes SQL statements separated by ";". ' +
      'To look at every gold, use `ves-lens audit --questions QUESTIONS --gold FILE --db-root DIR`; to explain some, copy ' +
      'them into a .sql file, each ended by ";"'
    );
  return undefined;
}

/** The text of a SQL file (an InputFileError when it cannot be read; RunRefused naming --file when it is not SQL). */
export function readSqlFile(file: string): string {
  const text = readTextFile(file, 'SQL file');
  const notSql = notASqlFile(text);
  if (notSql) throw new RunRefused('--file', `${file} is ${notSql}`);
  return text;
}

/**
 * The statements of a SQL file's text (or of the SQL given as an argument, `file` undefined), each on its own;
 * RunRefused naming --file (or the argument) when it holds none.
 */
export function sqlFileStatements(text: string, file: string | undefined): string[] {
  const statements = splitStatements(text).map((s) => s.text);
  if (statements.length === 0)
    throw file === undefined
      ? new RunRefused('sql', 'holds no statement', 'the SQL holds no statement')
      : new RunRefused('--file', `${file} holds no SQL statement`);
  return statements;
}
