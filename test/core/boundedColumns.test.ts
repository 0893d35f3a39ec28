import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/core/db/engines';
import { DatabaseConnection } from '../../src/core/db/engine';
import { readQuery } from '../../src/core/db/readQuery';
import { makeDatabase, tempDir } from '../helpers';

/**
 * SQLite's streamRows runs a query in a bounded form that names its columns; it guesses their number (one) and
 * learns it from SQLite's error when the guess is wrong, instead of compiling each query once more to count them.
 * Whatever the query, rows and errors must be what CPython's sqlite3 gives for the query alone.
 */
const PYTHON = `
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1]); out = []
for sql in json.loads(sys.stdin.read()):
    try:
        out.append({"rows": [list(r) for r in conn.execute(sql).fetchall()]})
    except Exception as e:
        out.append({"message": str(e)})
print(json.dumps(out))
`;

const FIXTURE = `
CREATE TABLE u (k INTEGER, v TEXT);
INSERT INTO u VALUES (1, 'a'), (2, 'b)'), (3, '(c');
`;

const QUERIES = [
  // One column (the guess), then two to six (learnt from SQLite's error).
  'SELECT k FROM u ORDER BY k',
  'SELECT k, v FROM u ORDER BY k',
  'SELECT *, k * 2, v || v, 7 FROM u ORDER BY k',
  'SELECT 1, 2, 3, 4, 5, 6',
  'VALUES (1, 2), (3, 4)',
  'SELECT v AS x, k AS x FROM u ORDER BY k',
  // Parentheses that could close the wrapper's: a syntax error alone, so they must be one here too.
  'SELECT 1), x AS (SELECT 2',
  "SELECT '(' || 1), x AS (SELECT 2",
  'SELECT 1) -- (',
  'SELECT (1',
  'SELECT k FROM u WHERE k IN (SELECT k FROM u',
  // Parentheses inside strings, quoted names and comments do not count.
  "SELECT v FROM u WHERE v = 'b)' OR v = '(c' ORDER BY k",
  'SELECT k AS "a(" FROM u /* ) */ ORDER BY k -- (',
  'SELECT [x)] FROM (SELECT 1 AS [x)])',
  // The query's own CTE named like the wrapper's, and its own column-count mismatch.
  'WITH "__ves_lens_result"(a, b) AS (SELECT 1, 2) SELECT a, b FROM "__ves_lens_result"',
  'WITH x(a) AS (SELECT 1, 2) SELECT * FROM x',
  'WITH __ves_lens_result(a) AS (SELECT 1, 2) SELECT * FROM __ves_lens_result',
  // Compile errors keep SQLite's own wording.
  'SELECT nope FROM u',
  'SELECT k FROM nowhere',
  'SELEC 1',
  'SELECT k, FROM u',
  // Wide (past 1,000 columns, where a flat sum of their sizes would be too deep for SQLite), and wider than SQLite
  // allows (2,000): then SQLite's own error, never a wrapper that grows with the text (a 31 MB `SELECT 1,1,…` once
  // built a string past what JavaScript can hold).
  `SELECT ${Array.from({ length: 1990 }, (_, i) => i).join(', ')}`,
  `SELECT ${'1, '.repeat(50_000)}1`,
];

describe("SQLite's bounded rows without counting columns first", () => {
  let dbFile: string;
  let db: DatabaseConnection;
  let expected: ({ rows: unknown[][] } | { message: string })[];
  before(async () => {
    dbFile = await makeDatabase(path.join(tempDir(), 'bounded.sqlite'), FIXTURE);
    const python = spawnSync('/usr/bin/python3', ['-c', PYTHON, dbFile], { input: JSON.stringify(QUERIES), encoding: 'utf8' });
    assert.equal(python.status, 0, python.stderr);
    expected = JSON.parse(python.stdout);
    db = await openDatabase(dbFile);
  });
  after(() => db.close());

  QUERIES.forEach((sql, i) => {
    it(sql.length > 120 ? `${sql.slice(0, 100)}… (${sql.length} characters)` : sql, async () => {
      const ours = await readQuery(db, sql, { maxRows: 1000 });
      const python = expected[i];
      if ('rows' in python) {
        assert.equal(ours.status, 'ok', `Python runs it; VES Lens says ${'message' in ours ? ours.message : ''}`);
        assert.deepEqual(ours.status === 'ok' ? ours.rows : [], python.rows);
      } else {
        assert.equal(ours.status, 'error', `Python: ${python.message}`);
        assert.equal('message' in ours ? ours.message : '', python.message);
      }
    });
  });

  it('compiles a query once more only when the guess cannot settle it', async () => {
    let counted = 0;
    const compiledAgain = async (sql: string) => {
      counted = 0;
      await db.streamRows(sql, () => {}, { maxRows: 1000 });
      return counted;
    };
    const original = Object.getPrototypeOf(db).columnCount as (body: string) => Promise<number | undefined>;
    Object.defineProperty(db, 'columnCount', {
      configurable: true,
      value: (body: string) => {
        counted++;
        return original.call(db, body);
      },
    });
    try {
      assert.equal(await compiledAgain('SELECT k FROM u'), 0);
      assert.equal(await compiledAgain('SELECT k, v, k FROM u'), 0);
      assert.equal(await compiledAgain("SELECT ')' || (1), '(' AS [)]"), 0);
      // A query that does not compile is compiled alone, for SQLite's own message.
      await assert.rejects(compiledAgain('SELECT nope FROM u'), /no such column: nope/);
      assert.equal(counted, 1);
    } finally {
      delete (db as unknown as Record<string, unknown>).columnCount;
    }
  });

  it('still bounds the rows of a query whose column count was learnt', async () => {
    await assert.rejects(
      db.streamRows('SELECT a.k, b.v FROM u a, u b', () => {}, { maxRows: 4 }),
      /more than 4 rows|4 rows/,
    );
  });
});
