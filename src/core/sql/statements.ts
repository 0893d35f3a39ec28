import { identifierName, Token, tokensOf } from './lexer';

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
  for (const token of tokensOf(sql)) {
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

/**
 * What SQLite's prepare would take from an entry: leading empty statements skipped, up to the first `;` (the
 * first of splitStatements' spans). The tail after that `;` is only read by pythonWouldRejectTail.
 */
export function firstStatement(sql: string): SingleStatement {
  let start = -1;
  let end = -1;
  let tailStart = -1; // just past the `;` that ends the first statement, if there is one
  for (const token of tokensOf(sql)) {
    if (token.kind === 'space' || token.kind === 'comment') continue;
    if (token.kind === 'punct' && token.text === ';') {
      if (start === -1) continue; // an empty statement before the first one
      tailStart = token.end;
      break;
    }
    if (start === -1) start = token.start;
    end = token.end;
  }
  if (start === -1) return { body: '', hasMoreStatements: false };
  return { body: sql.slice(start, end), hasMoreStatements: pythonWouldRejectTail(sql.slice(tailStart === -1 ? end : tailStart)) };
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

/** The SQL dialect whose rules decide what may run: the engine's (`sqlite`, `postgres`, `mysql`). */
export type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

/** MySQL's functions that reach outside the query (a server file, a lock that outlives it). */
const MYSQL_FORBIDDEN_FUNCTIONS = new Set(['load_file', 'get_lock', 'release_lock', 'release_all_locks', 'sys_exec', 'sys_eval']);

/**
 * PostgreSQL's statements that are no read query, beyond those SQLite shares with it. A READ ONLY transaction
 * refuses most of them anyway; these are refused before anything reaches the server, with one wording.
 */
const POSTGRES_NON_READ_LEADS: Record<string, string> = {
  ...NON_READ_LEADS,
  ABORT: 'an ABORT',
  CALL: 'a CALL',
  CHECKPOINT: 'a CHECKPOINT',
  CLOSE: 'a CLOSE',
  CLUSTER: 'a CLUSTER',
  COMMENT: 'a COMMENT',
  COPY: 'a COPY',
  DEALLOCATE: 'a DEALLOCATE',
  DECLARE: 'a DECLARE',
  DISCARD: 'a DISCARD',
  DO: 'a DO block',
  EXECUTE: 'an EXECUTE',
  FETCH: 'a FETCH',
  GRANT: 'a GRANT',
  IMPORT: 'an IMPORT',
  LISTEN: 'a LISTEN',
  LOAD: 'a LOAD',
  LOCK: 'a LOCK',
  MERGE: 'a MERGE',
  MOVE: 'a MOVE',
  NOTIFY: 'a NOTIFY',
  PREPARE: 'a PREPARE',
  REASSIGN: 'a REASSIGN',
  REFRESH: 'a REFRESH',
  RESET: 'a RESET',
  REVOKE: 'a REVOKE',
  SECURITY: 'a SECURITY LABEL',
  SET: 'a SET',
  SHOW: 'a SHOW',
  START: 'a START TRANSACTION',
  TRUNCATE: 'a TRUNCATE',
  UNLISTEN: 'an UNLISTEN',
};

/**
 * PostgreSQL functions with effects a rolled-back READ ONLY transaction does not undo (ending or signalling
 * other sessions, session locks, server files and settings, statistics, large objects, other databases,
 * SQL run from a string): refused by name, schema-qualified or quoted. pg_sleep is not among them: it runs
 * into statement_timeout; nextval and setval fail in a read-only transaction on their own.
 */
const POSTGRES_FORBIDDEN_FUNCTIONS = new Set([
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_stat_file',
  'pg_ls_dir',
  'set_config',
  'pg_notify',
  'pg_switch_wal',
  'pg_promote',
  'pg_backup_start',
  'pg_backup_stop',
  'pg_start_backup',
  'pg_stop_backup',
  'pg_create_restore_point',
  'pg_wal_replay_pause',
  'pg_wal_replay_resume',
  'pg_log_backend_memory_contexts',
  'pg_logical_emit_message',
  'pg_drop_replication_slot',
  'pg_import_system_collations',
]);
const POSTGRES_FORBIDDEN_PREFIXES =
  /^(pg_advisory_|pg_try_advisory_|dblink|lo_|pg_ls_|pg_file_|pg_stat_reset|pg_create_.*_slot$|pg_replication_origin_|query_to_xml|cursor_to_xml)/;

function forbiddenFunction(name: string, dialect: SqlDialect): boolean {
  if (dialect === 'sqlite') return FORBIDDEN_FUNCTIONS.has(name.toUpperCase());
  const lower = name.toLowerCase();
  if (dialect === 'mysql') return MYSQL_FORBIDDEN_FUNCTIONS.has(lower);
  return POSTGRES_FORBIDDEN_FUNCTIONS.has(lower) || POSTGRES_FORBIDDEN_PREFIXES.test(lower);
}

const MODIFYING_CTE_WORDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * Why a statement must not run, or null when it may. Refused: statements that would write, attach, change a
 * pragma, a setting or the transaction, call load_extension() and the like, and EXPLAIN (its result is a
 * program listing that VES Lens's result reader cannot hold). A read-only connection is not enough on its own
 * (VACUUM INTO creates its target file even then; a PostgreSQL session lock outlives a rollback). Everything
 * else runs, and what is no SQL at all fails there with the engine's own syntax error, as it does in the
 * official scripts. `postgres` adds PostgreSQL's own statements (COPY, DO, SET, CALL, LISTEN, ...), its
 * functions with lasting effects, data-modifying CTEs (`name AS [NOT] [MATERIALIZED] (INSERT ...`) and
 * SELECT INTO. One pass over the tokens (tokensOf: a long text's are not kept), so any text is checked in bounded memory.
 */
export function refusalReason(statement: string, dialect: SqlDialect = 'sqlite'): string | null {
  // MySQL's non-read statements (SET, CALL, DO, LOCK, GRANT, SELECT INTO, ...) are PostgreSQL's list's.
  const postgres = dialect !== 'sqlite';
  let previous: Token | undefined;
  let lead: Token | undefined; // the first token after any opening parentheses (a parenthesised compound member)
  let depth = 0; // from the first token (PostgreSQL's SELECT INTO)
  let depthAfterLead = 0; // after the lead (the main statement of a WITH)
  let withMain: string | undefined;
  let selectInto = false;
  let modifyingCte: string | undefined;
  let cteState: 'none' | 'as' | 'paren' = 'none';
  for (const token of tokensOf(statement)) {
    if (token.kind === 'space' || token.kind === 'comment') continue;
    const { kind, text } = token;
    const upper = kind === 'word' ? text.toUpperCase() : '';
    if (previous && text === '(') {
      const callable = previous.kind === 'word' || (postgres && previous.kind === 'quoted');
      if (callable && forbiddenFunction(identifierName(previous.text), dialect)) return `${identifierName(previous.text)}() is not allowed`;
    }
    if (lead === undefined) {
      if (text !== '(') lead = token;
    } else if (withMain === undefined) {
      if (text === '(') depthAfterLead++;
      else if (text === ')') depthAfterLead--;
      else if (depthAfterLead === 0 && kind === 'word' && MAIN_STATEMENT_WORDS.has(upper)) withMain = upper;
    }
    if (postgres) {
      if (text === '(') depth++;
      else if (text === ')') depth--;
      else if (depth === 0 && upper === 'INTO') selectInto = true;
      if (modifyingCte === undefined) {
        const state = cteState;
        cteState = 'none';
        if (/^AS$/i.test(text)) cteState = 'as';
        else if (state === 'as' && /^(NOT|MATERIALIZED)$/i.test(text)) cteState = 'as';
        else if (state === 'as' && text === '(') cteState = 'paren';
        else if (state === 'paren' && MODIFYING_CTE_WORDS.has(text.toUpperCase())) modifyingCte = text.toUpperCase();
      }
    }
    previous = token;
  }
  if (lead?.kind !== 'word') return null;
  const leads = postgres ? POSTGRES_NON_READ_LEADS : NON_READ_LEADS;
  const leadWord = lead.text.toUpperCase();
  if (leadWord in leads) return `only read queries run; this statement is ${leads[leadWord]}`;
  if (leadWord === 'EXPLAIN') return 'EXPLAIN is not run: its result is a program listing, not a query result (use `ves-lens explain`)';
  if (postgres) {
    if (leadWord === 'WITH' && modifyingCte)
      return `only read queries run; this WITH statement holds ${POSTGRES_NON_READ_LEADS[modifyingCte]}`;
    if (selectInto) return 'only read queries run; SELECT INTO creates a table';
  }
  if (leadWord === 'WITH' && withMain && withMain !== 'SELECT' && withMain !== 'VALUES')
    return `only read queries run; this WITH statement is ${leads[withMain]}`;
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
  for (const token of tokensOf(sql)) {
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
