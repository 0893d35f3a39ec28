import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { tokenize } from '../../src/core/sql/lexer';
import { firstStatement, parameterCount, refusalReason, splitStatements } from '../../src/core/sql/statements';

describe('splitStatements', () => {
  it('splits at top-level semicolons only', () => {
    const sql = 'SELECT \';\' AS a; SELECT "x;y" FROM t /* ; */;\n-- c;\nSELECT [p;q] FROM u';
    assert.deepEqual(
      splitStatements(sql).map((s) => s.text),
      ["SELECT ';' AS a", 'SELECT "x;y" FROM t', 'SELECT [p;q] FROM u'],
    );
  });

  it('keeps exact source ranges and the comments before each statement', () => {
    const sql = '-- bird: 12\nSELECT 1;\n\n-- ves-lens-ignore VL003\nSELECT 2';
    const spans = splitStatements(sql);
    assert.equal(spans.length, 2);
    assert.equal(sql.slice(spans[1].start, spans[1].end), 'SELECT 2');
    assert.deepEqual(
      spans[0].leadingComments.map((c) => c.text),
      ['-- bird: 12'],
    );
    assert.deepEqual(
      spans[1].leadingComments.map((c) => c.text),
      ['-- ves-lens-ignore VL003'],
    );
  });

  it('never throws on unterminated strings and comments', () => {
    for (const sql of ["SELECT 'abc", 'SELECT "abc', 'SELECT /* abc', 'SELECT [abc', '']) {
      assert.doesNotThrow(() => splitStatements(sql));
      assert.equal([...tokenize(sql)].map((t) => t.text).join(''), sql, 'tokens cover the text exactly');
    }
  });
});

describe('firstStatement follows Python sqlite3 (3.11) execute()', () => {
  // Each case was checked against CPython 3.11's sqlite3 module: ok = runs, multi = "You can only execute one statement at a time."
  const cases: [string, string, boolean][] = [
    [' ', '', false],
    ['', '', false],
    ['-- hi', '', false],
    ['select 1;', 'select 1', false],
    ['select 1;;', 'select 1', true],
    ['select 1; -- x', 'select 1', false],
    ['select 1; /* x */', 'select 1', false],
    ['select 1; /* unterminated', 'select 1', false],
    [';select 1', 'select 1', false],
    [' ; select 1', 'select 1', false],
    ['select 1;\n\f', 'select 1', false],
    ['select 1;\v', 'select 1', true],
    ['select 1;\r\n', 'select 1', false],
    ['select 1; select 2', 'select 1', true],
    ['select 1; -- x\nselect 2', 'select 1', true],
    ["select ';' as x", "select ';' as x", false],
  ];
  for (const [sql, body, multi] of cases) {
    it(JSON.stringify(sql), () => {
      assert.deepEqual(firstStatement(sql), { body, hasMoreStatements: multi });
    });
  }
});

describe('refusalReason', () => {
  const allowed = [
    'SELECT * FROM t',
    '  select replace(name, "a", "b") from t',
    'WITH x AS (SELECT 1) SELECT * FROM x',
    'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c',
    'VALUES (1, 2)',
    '(SELECT 1) UNION SELECT 2',
    "SELECT 'DELETE FROM t' AS text_only",
    'SELECT "delete" FROM t',
  ];
  for (const sql of allowed) it(`runs: ${sql}`, () => assert.equal(refusalReason(sql), null));

  const refused = [
    'DELETE FROM t',
    'insert into t values (1)',
    'UPDATE t SET a = 1',
    'REPLACE INTO t VALUES (1)',
    'DROP TABLE t',
    'CREATE TABLE x (a)',
    'ALTER TABLE t ADD COLUMN b',
    "ATTACH 'other.db' AS o",
    'DETACH o',
    'PRAGMA journal_mode = WAL',
    'PRAGMA table_info(t)',
    "VACUUM INTO '/tmp/copy.sqlite'",
    'VACUUM',
    'REINDEX',
    'ANALYZE',
    'BEGIN',
    'WITH x AS (SELECT 1) DELETE FROM t',
    'WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x',
    "SELECT load_extension('/tmp/evil.so')",
    "select LOAD_EXTENSION ('x')",
    'EXPLAIN DELETE FROM t',
  ];
  for (const sql of refused) it(`refuses: ${sql}`, () => assert.notEqual(refusalReason(sql), null));
});

describe('refused is only for what would write or reach outside (issue 8, item 4)', () => {
  // Garbage, Markdown fences and prose are no statements at all: SQLite's syntax error says so (see the
  // CPython oracle test), they are never "refused".
  const notRefused = [
    '```sql\nSELECT 1\n```',
    'Here is the query: SELECT 1',
    'SELEC 1',
    '"DELETE" FROM t',
    '\ufeffSELECT 1',
    '42',
    'SQL: DELETE FROM t',
  ];
  for (const sql of notRefused) it(`left to SQLite: ${JSON.stringify(sql)}`, () => assert.equal(refusalReason(sql), null));

  it('a byte-order mark before a write is a space to SQLite, and to the check', () => {
    assert.match(refusalReason('\ufeffDELETE FROM t') ?? '', /only read queries run; this statement is a DELETE/);
    assert.match(refusalReason("\ufeff VACUUM INTO '/tmp/x'") ?? '', /VACUUM/);
  });

  it('names what a refused statement is', () => {
    assert.equal(refusalReason('insert into t values (1)'), 'only read queries run; this statement is an INSERT');
    assert.equal(refusalReason('PRAGMA user_version = 3'), 'only read queries run; this statement is a PRAGMA');
    assert.equal(refusalReason("ATTACH 'x' AS y"), 'only read queries run; this statement is an ATTACH');
    assert.equal(refusalReason("SELECT load_extension('x')"), 'load_extension() is not allowed');
  });
});

describe('refusalReason on PostgreSQL', () => {
  const allowed = [
    'SELECT 1',
    'TABLE hero',
    'VALUES (1), (2)',
    'WITH x AS (SELECT 1) SELECT * FROM x',
    'WITH x AS MATERIALIZED (SELECT 1) SELECT * FROM x',
    'SELECT pg_sleep(1)',
    "SELECT nextval('s')",
    "SELECT name::text, '{1,2}'::int[] FROM hero",
    'SELECT set_configuration FROM t',
  ];
  for (const sql of allowed) it(`runs: ${sql}`, () => assert.equal(refusalReason(sql, 'postgres'), null));
  const refused: [string, string][] = [
    ["COPY hero TO '/tmp/x'", 'only read queries run; this statement is a COPY'],
    ['DO $$ BEGIN END $$', 'only read queries run; this statement is a DO block'],
    ['SET search_path = x', 'only read queries run; this statement is a SET'],
    ['CALL p()', 'only read queries run; this statement is a CALL'],
    ['LISTEN c', 'only read queries run; this statement is a LISTEN'],
    ["NOTIFY c, 'x'", 'only read queries run; this statement is a NOTIFY'],
    ['TRUNCATE hero', 'only read queries run; this statement is a TRUNCATE'],
    ['SELECT pg_terminate_backend(1)', 'pg_terminate_backend() is not allowed'],
    ['SELECT pg_catalog.PG_CANCEL_BACKEND(1)', 'PG_CANCEL_BACKEND() is not allowed'],
    ['SELECT "pg_reload_conf"()', 'pg_reload_conf() is not allowed'],
    ["SELECT pg_read_binary_file('x')", 'pg_read_binary_file() is not allowed'],
    ["SELECT lo_export(1, '/tmp/x')", 'lo_export() is not allowed'],
    ["SELECT set_config('a', 'b', false)", 'set_config() is not allowed'],
    ['SELECT pg_try_advisory_lock(1)', 'pg_try_advisory_lock() is not allowed'],
    ["SELECT * FROM dblink('x', 'SELECT 1') AS t(a int)", 'dblink() is not allowed'],
    ['WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x', 'only read queries run; this WITH statement holds a DELETE'],
    [
      'WITH x AS NOT MATERIALIZED (INSERT INTO t VALUES (1) RETURNING *) SELECT 1',
      'only read queries run; this WITH statement holds an INSERT',
    ],
    ['SELECT * INTO copy FROM hero', 'only read queries run; SELECT INTO creates a table'],
  ];
  for (const [sql, reason] of refused) it(`refuses: ${sql}`, () => assert.equal(refusalReason(sql, 'postgres'), reason));
  it("leaves SQLite's rules as they were", () => {
    assert.equal(refusalReason('SET x = 1'), null); // SQLite has no SET: its syntax error is the answer
    assert.equal(refusalReason('SELECT pg_terminate_backend(1)'), null);
    assert.equal(refusalReason("SELECT load_extension('x')", 'postgres'), null);
  });
});

describe('parameterCount follows sqlite3_bind_parameter_count (issue 8, item 5)', () => {
  // Each count was checked against CPython 3.11: "Incorrect number of bindings supplied. The current statement uses N".
  const cases: [string, number][] = [
    ['SELECT 1', 0],
    ["SELECT '?', ':x', \"@y\" -- ?\n/* $z */", 0],
    ['SELECT ?', 1],
    ['SELECT ?, ?', 2],
    ['SELECT ?1', 1],
    ['SELECT ?5', 5],
    ['SELECT ?3, ?', 4],
    ['SELECT ?, ?1', 1],
    ['SELECT :x', 1],
    ['SELECT :a, :a', 1],
    ['SELECT :a, @a, $a', 3],
    ['SELECT :a, ?1', 1],
    ['SELECT ?2, :a', 3],
    ['SELECT :1', 1],
    ['SELECT @x', 1],
    ['SELECT $x', 1],
    ['SELECT $a::b(c)', 1],
    ['SELECT #x', 1],
    ['SELECT #1', 0],
    ['SELECT a$b FROM t', 0],
  ];
  for (const [sql, n] of cases) it(`${JSON.stringify(sql)} uses ${n}`, () => assert.equal(parameterCount(sql), n));
});
