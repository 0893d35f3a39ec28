import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { sameResultSet } from '../../src/core/metrics/executionMatch';
import { softF1 } from '../../src/core/metrics/softF1';
import { openDatabase } from '../../src/core/db/engines';
import { readQuery } from '../../src/core/db/readQuery';
import { makeDatabase, tempDir } from '../helpers';

/**
 * The real Python sqlite3 module decides what "equal" means for EX; this test asks it directly. Each pair
 * runs in CPython (rows as Python returns them, compared with set() and with the Soft-F1 definition of
 * the official BIRD scripts) and in VES Lens; both must agree.
 */
const PYTHON_ORACLE = `
import json, sqlite3, sys
def row_match(p, g):
    n = len(g)
    m = sum(1 for v in p if v in g); po = len(p) - m
    to = sum(1 for v in g if v not in p)
    return m / n, po / n, to / n
def f1(pred, gold):
    if not pred and not gold: return 1.0
    pred = list(dict.fromkeys(pred)); gold = list(dict.fromkeys(gold))
    ms, ps, ts = [], [], []
    for i, g in enumerate(gold):
        if i >= len(pred): ms.append(0); ts.append(1); continue
        a, b, c = row_match(pred[i], g); ms.append(a); ps.append(b); ts.append(c)
    for i in range(len(gold), len(pred)): ms.append(0); ps.append(1); ts.append(0)
    tp, fp, fn = sum(ms), sum(ps), sum(ts)
    p = tp / (tp + fp) if tp + fp > 0 else 0
    r = tp / (tp + fn) if tp + fn > 0 else 0
    return 2 * p * r / (p + r) if p + r > 0 else 0
db, pairs = sys.argv[1], json.loads(sys.stdin.read())
conn = sqlite3.connect(db); cur = conn.cursor(); out = []
for pred_sql, gold_sql in pairs:
    pred = cur.execute(pred_sql).fetchall(); gold = cur.execute(gold_sql).fetchall()
    out.append([int(set(pred) == set(gold)), f1(pred, gold)])
print(json.dumps(out))
`;

const FIXTURE = `
CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB, n NUMERIC, name TEXT COLLATE NOCASE);
INSERT INTO t VALUES (1, 1, 1.0, '1', x'31', '1', 'Ann'), (2, 2, 2.5, 'two', x'00ff', 2.0, 'ann'),
  (3, NULL, NULL, NULL, NULL, NULL, 'Bob'), (4, 3, -0.0, 'Two', x'', '3.0', 'bob'), (5, 1, 1.0, '1', x'31', 1, 'ANN');
CREATE TABLE u (k INTEGER, v TEXT);
INSERT INTO u VALUES (1, 'Ann'), (2, 'ann'), (1, 'Ann');
`;

const PAIRS: [string, string][] = [
  ['SELECT i FROM t', 'SELECT r FROM t'], // 1 vs 1.0, NULL
  ['SELECT s FROM t', 'SELECT i FROM t'], // '1' vs 1
  ['SELECT b FROM t WHERE id = 1', 'SELECT s FROM t WHERE id = 1'], // x'31' vs '1'
  ['SELECT r FROM t WHERE id = 4', 'SELECT 0'], // -0.0 vs 0
  ['SELECT n FROM t ORDER BY id', 'SELECT i FROM t ORDER BY id'], // NUMERIC affinity
  ['SELECT name FROM t', 'SELECT lower(name) FROM t'], // case-sensitive despite NOCASE
  ['SELECT DISTINCT name FROM t', 'SELECT name FROM t'], // NOCASE DISTINCT collapses what Python keeps apart
  ['SELECT i, s FROM t', 'SELECT s, i FROM t'], // column order
  ['SELECT T1.v, T2.v FROM u T1 JOIN u T2 ON T1.k = T2.k', 'SELECT v, v FROM u'], // duplicate column names
  ['SELECT 1, 2', 'SELECT 2, 1'], // numeric column names keep their order
  ['SELECT k FROM u ORDER BY k', 'SELECT k FROM u ORDER BY k DESC'], // order: EX 1, F1 pairs by position
  ['SELECT 0.1 + 0.2', 'SELECT 0.3'], // exact floats
  ['SELECT 1e999', 'SELECT 9e999'], // infinities
  ['SELECT * FROM t WHERE 0', 'SELECT * FROM u WHERE 0'], // both empty
  ['SELECT k, v, 1 FROM u', 'SELECT k, v FROM u'], // wider prediction
  ['WITH x AS (SELECT k FROM u) SELECT k FROM x ORDER BY k DESC LIMIT 2', 'SELECT 1 UNION ALL SELECT 2'],
  ['SELECT avg(r), sum(i), count(*) FROM t', 'SELECT total(r) / 4, 7, 5 FROM t'],
];

describe('EX and Soft-F1 agree with CPython sqlite3 on tricky values', () => {
  let dbFile: string;
  let expected: [number, number][];
  before(async () => {
    dbFile = await makeDatabase(path.join(tempDir(), 'oracle.sqlite'), FIXTURE);
    const python = spawnSync('python3', ['-c', PYTHON_ORACLE, dbFile], { input: JSON.stringify(PAIRS), encoding: 'utf8' });
    assert.equal(python.status, 0, python.stderr);
    expected = JSON.parse(python.stdout);
  });

  PAIRS.forEach(([pred, gold], i) => {
    it(`${pred}  vs  ${gold}`, async () => {
      const db = await openDatabase(dbFile);
      try {
        const limits = { maxRows: 1000 };
        const p = await readQuery(db, pred, limits);
        const g = await readQuery(db, gold, limits);
        assert.ok(p.status === 'ok' && g.status === 'ok');
        assert.equal(sameResultSet(p.rows, g.rows) ? 1 : 0, expected[i][0], 'EX');
        assert.equal(softF1(p.rows, g.rows), expected[i][1], 'Soft-F1');
      } finally {
        await db.close();
      }
    });
  });
});

/**
 * What CPython 3.11's sqlite3 does with entries that are not plain queries (issue 8, items 1, 4, 5): each runs in
 * Python (rows, or the exception's class and message) and through VES Lens's readQuery; both must agree.
 * The one deliberate difference: where Python raises "You can only execute one statement at a time.", VES
 * Lens says `refused` (both score 0).
 */
const PYTHON_ERRORS = `
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1]); out = []
for sql in json.loads(sys.stdin.read()):
    try:
        out.append({"rows": [list(r) for r in conn.execute(sql).fetchall()]})
    except Exception as e:
        out.append({"error": type(e).__name__, "message": str(e)})
print(json.dumps(out))
`;

const ENTRIES: string[] = [
  // NUL anywhere: Python refuses before SQLite sees it (node-sqlite3 would never call back).
  'SELECT 1\0',
  "SELECT 'a\0b'",
  'SELECT 1 -- \0',
  'SELECT 1; \0',
  '\0',
  // A byte-order mark is a space to SQLite's tokenizer, wherever a token may start.
  '\ufeffSELECT 1',
  ' \ufeffSELECT k FROM u',
  'SELECT \ufeff1',
  '\ufeff\ufeffSELECT k FROM u ORDER BY k',
  'SELECT 1\ufeff',
  'SELECT 1;\ufeff',
  // Parameters with nothing bound: Python refuses; node-sqlite3 would bind NULL (and could score 1).
  'SELECT ?',
  'SELECT * FROM u WHERE v = ? OR 1',
  'SELECT :x',
  'SELECT @x',
  'SELECT $x',
  'SELECT ?1',
  'SELECT ?3, ?',
  'SELECT :a, :a',
  "SELECT '?', ':x' -- ?",
  'SELECT ? FROM no_such_table',
  'SELECT ?; SELECT 2',
  // Markdown fences, prose, garbage: syntax errors, not refusals.
  '```sql\nSELECT 1\n```',
  'Here is the SQL: SELECT 1',
  'SELEC 1',
  'garbage; SELECT 1',
  'SELECT nope FROM u; SELECT 1',
  // Several statements.
  'SELECT 1; SELECT 2',
  'SELECT 1; garbage',
  // A tab is whitespace inside a query.
  'SELECT k FROM\tu WHERE\tk = 1',
];

describe('errors, refusals and odd characters agree with CPython sqlite3 (issue 8, items 1, 4, 5)', () => {
  let dbFile: string;
  let expected: ({ rows: unknown[][] } | { error: string; message: string })[];
  before(async () => {
    dbFile = await makeDatabase(path.join(tempDir(), 'errors.sqlite'), FIXTURE);
    const python = spawnSync('python3', ['-c', PYTHON_ERRORS, dbFile], { input: JSON.stringify(ENTRIES), encoding: 'utf8' });
    assert.equal(python.status, 0, python.stderr);
    expected = JSON.parse(python.stdout);
  });

  ENTRIES.forEach((sql, i) => {
    it(JSON.stringify(sql), async () => {
      const db = await openDatabase(dbFile);
      try {
        const ours = await readQuery(db, sql, { maxRows: 1000 });
        const python = expected[i];
        if ('rows' in python) {
          assert.equal(ours.status, 'ok', `Python runs it; VES Lens says ${'message' in ours ? ours.message : ''}`);
          assert.ok(ours.status === 'ok' && sameResultSet(ours.rows, python.rows as never), 'same rows');
        } else if (python.message === 'You can only execute one statement at a time.') {
          assert.equal(ours.status, 'refused');
          assert.match('message' in ours ? ours.message : '', /more than one statement.*You can only execute one statement at a time/);
        } else {
          assert.equal(ours.status, 'error', `Python: ${python.error}: ${python.message}`);
          assert.equal('message' in ours ? ours.message : '', python.message);
        }
      } finally {
        await db.close();
      }
    });
  });
});
