import { Token, tokenize } from './lexer';

/** One statement of a SQL text: its source range (without the terminating `;`) and its text. */
export interface StatementSpan {
  start: number;
  end: number;
  text: string;
  /** Comments directly before the statement (e.g. `-- bird: 12`, `-- ves-lens-ignore VL003`). */
  leadingComments: Token[];
}

/** Splits a SQL text into statements at top-level semicolons; empty statements are dropped. */
export function splitStatements(sql: string): StatementSpan[] {
  const spans: StatementSpan[] = [];
  let start = -1;
  let end = -1;
  let comments: Token[] = [];
  const flush = () => {
    if (start !== -1) spans.push({ start, end, text: sql.slice(start, end), leadingComments: comments });
    start = -1;
    comments = [];
  };
  for (const token of tokenize(sql)) {
    if (token.kind === 'space') continue;
    if (token.kind === 'comment') {
      if (start === -1) comments.push(token);
      continue;
    }
    if (token.kind === 'punct' && token.text === ';') {
      flush();
      continue;
    }
    if (start === -1) start = token.start;
    end = token.end;
  }
  flush();
  return spans;
}

/**
 * Python's sqlite3 (3.11+) refuses an execute() whose text goes on after the first statement with anything
 * but whitespace (space, tab, \f, \n, \r) and comments. Reproduced here so that a prediction holding two
 * statements scores 0 exactly where the official scripts raise "You can only execute one statement at a time".
 */
export function pythonWouldRejectTail(tail: string): boolean {
  let i = 0;
  while (i < tail.length) {
    const c = tail[i];
    if (c === ' ' || c === '\t' || c === '\f' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '-' && tail[i + 1] === '-') {
      const newline = tail.indexOf('\n', i);
      if (newline === -1) return false;
      i = newline + 1;
    } else if (c === '/' && tail[i + 1] === '*') {
      const close = tail.indexOf('*/', i + 2);
      if (close === -1) return false;
      i = close + 2;
    } else {
      return true;
    }
  }
  return false;
}

export interface SingleStatement {
  /** The statement's text without its `;`; empty when the entry holds no statement at all (runs as no rows). */
  body: string;
  /** True when more than one statement follows: Python's sqlite3 would refuse the whole entry. */
  hasMoreStatements: boolean;
}

/** What SQLite's prepare would take from an entry: leading empty statements skipped, up to the first `;`. */
export function firstStatement(sql: string): SingleStatement {
  const spans = splitStatements(sql);
  if (spans.length === 0) return { body: '', hasMoreStatements: false };
  const first = spans[0];
  // Tail starts after the semicolon that ends the first statement, if there is one.
  let tailStart = first.end;
  for (const token of tokenize(sql.slice(first.end))) {
    if (token.kind === 'punct' && token.text === ';') {
      tailStart = first.end + token.end;
      break;
    }
    if (token.kind !== 'space' && token.kind !== 'comment') break;
  }
  return { body: first.text, hasMoreStatements: pythonWouldRejectTail(sql.slice(tailStart)) };
}

const MAIN_STATEMENT_WORDS = new Set(['SELECT', 'VALUES', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE']);
/**
 * Every statement SQLite knows that is not a read query. Anything else that is no read query either (Markdown
 * fences, prose, garbage) cannot compile, so it is left to SQLite, whose syntax error is the honest answer.
 */
const NON_READ_LEADS: Record<string, string> = {
  INSERT: 'an INSERT',
  UPDATE: 'an UPDATE',
  DELETE: 'a DELETE',
  REPLACE: 'a REPLACE',
  CREATE: 'a CREATE',
  DROP: 'a DROP',
  ALTER: 'an ALTER',
  ATTACH: 'an ATTACH',
  DETACH: 'a DETACH',
  PRAGMA: 'a PRAGMA',
  VACUUM: 'a VACUUM',
  REINDEX: 'a REINDEX',
  ANALYZE: 'an ANALYZE',
  BEGIN: 'a BEGIN',
  COMMIT: 'a COMMIT',
  END: 'an END',
  ROLLBACK: 'a ROLLBACK',
  SAVEPOINT: 'a SAVEPOINT',
  RELEASE: 'a RELEASE',
};
/** Functions that reach outside the database; refused even inside a SELECT. */
const FORBIDDEN_FUNCTIONS = new Set(['LOAD_EXTENSION', 'READFILE', 'WRITEFILE', 'EDIT', 'FTS3_TOKENIZER']);

/**
 * Why a statement must not run, or null when it may. Refused: statements that would write, attach, change a
 * pragma or the transaction, call load_extension() and the like, and EXPLAIN (its result is a program
 * listing that VES Lens's result reader cannot hold). A read-only connection is not enough on its own
 * (VACUUM INTO creates its target file even then). Everything else runs, and what is no SQL at all fails
 * there with SQLite's own syntax error, as it does in the official scripts.
 */
export function refusalReason(statement: string): string | null {
  const tokens: Token[] = [];
  for (const token of tokenize(statement)) if (token.kind !== 'space' && token.kind !== 'comment') tokens.push(token);
  if (tokens.length === 0) return null;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const name = tokens[i].text.toUpperCase();
    if (tokens[i].kind === 'word' && tokens[i + 1].text === '(' && FORBIDDEN_FUNCTIONS.has(name)) {
      return `${tokens[i].text}() is not allowed`;
    }
  }
  let leadIndex = 0;
  while (tokens[leadIndex]?.text === '(') leadIndex++; // a parenthesised compound member
  const leadToken = tokens[leadIndex];
  if (leadToken?.kind !== 'word') return null;
  const lead = leadToken.text.toUpperCase();
  if (lead in NON_READ_LEADS) return `only read queries run; this statement is ${NON_READ_LEADS[lead]}`;
  if (lead === 'EXPLAIN') return 'EXPLAIN is not run: its result is a program listing, not a query result (use `ves-lens explain`)';
  if (lead === 'WITH') {
    let depth = 0;
    for (const token of tokens.slice(leadIndex + 1)) {
      if (token.text === '(') depth++;
      else if (token.text === ')') depth--;
      else if (depth === 0 && token.kind === 'word' && MAIN_STATEMENT_WORDS.has(token.text.toUpperCase())) {
        const main = token.text.toUpperCase();
        if (main !== 'SELECT' && main !== 'VALUES') return `only read queries run; this WITH statement is ${NON_READ_LEADS[main]}`;
        break;
      }
    }
  }
  return null;
}

const ID_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * How many parameters SQLite counts in a statement (sqlite3_bind_parameter_count): `?` takes the next number,
 * `?NNN` the number NNN, and `:name`, `@name`, `$name`, `#name` one number per distinct name, following
 * SQLite's tokenizer (`$a::b(c)` is one name). Python's sqlite3 refuses to run a statement with any when
 * no values are supplied ("Incorrect number of bindings supplied"); node's sqlite3 would bind NULL.
 */
export function parameterCount(sql: string): number {
  let count = 0;
  const names = new Set<string>();
  let skipUntil = 0;
  for (const token of tokenize(sql)) {
    if (token.start < skipUntil || token.kind !== 'punct') continue;
    const c = token.text;
    let i = token.start + 1;
    if (c === '?') {
      while (i < sql.length && sql[i] >= '0' && sql[i] <= '9') i++;
      if (i > token.start + 1) count = Math.max(count, Number(sql.slice(token.start + 1, i)));
      else count++;
      skipUntil = i;
    } else if (c === ':' || c === '@' || c === '$' || c === '#') {
      let n = 0;
      for (; i < sql.length; i++) {
        const ch = sql[i];
        if (ID_CHAR.test(ch)) n++;
        else if (ch === '(' && n > 0) {
          const close = sql.indexOf(')', i);
          i = close === -1 ? sql.length : close + 1;
          break;
        } else if (ch === ':' && sql[i + 1] === ':') i++;
        else break;
      }
      const name = sql.slice(token.start, i);
      if (n === 0 || (c === '#' && /^#[0-9]/.test(name))) continue; // no parameter: SQLite reports a syntax error
      if (!names.has(name)) {
        names.add(name);
        count++;
      }
      skipUntil = i;
    }
  }
  return count;
}
