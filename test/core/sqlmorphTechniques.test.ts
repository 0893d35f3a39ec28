import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { linearSumAssignment } from '../../src/core/results/sqlmorph/assignment';
import { greedyPairs, MAX_PARTIAL_PAIRS } from '../../src/core/results/sqlmorph/greedy';
import { compareCodePoints, PyFloat, pyFloatRepr, pyStr, PyValue, sortRows } from '../../src/core/results/sqlmorph/pyValues';
import { scoreTechniques } from '../../src/core/results/sqlmorph/scoreTechniques';
import { scoreQueryTechniques } from '../../src/core/results/sqlmorph';
import { readTypedResult } from '../../src/core/results/sqlmorph/typedResult';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase } from '../../src/core/db/engines';
import { makeDatabase, tempDir } from '../helpers';
import { compareWithOracle, EXACT_TECHNIQUES, runOracle } from './sqlmorphOracle';

const python = (code: string, input = '') => {
  const run = spawnSync('python3', ['-c', code], { input, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
};

const FIXTURE = `
CREATE TABLE t (id INTEGER, name TEXT, city TEXT, score REAL);
INSERT INTO t VALUES (1,'Ann','Paris',1.5), (2,'Bob','Rome',2.0), (3,'Cid','Oslo',NULL), (4,'Dee','Rome',4.0);
CREATE TABLE v (k INTEGER, x);
INSERT INTO v VALUES (1, 1), (2, 1.0), (3, 'a'), (4, x'00ff27'), (5, NULL), (6, 9007199254740993), (7, 1e16), (8, 1e-5),
  (9, -0.0), (10, 0.1), (11, 123456789.0), (12, 'b''q'), (13, char(128512)), (14, char(65533)), (15, 2.5), (16, 9007199254740992);
`;

/** SQLMorph's fidelity cases (C2-C15) and the Python behaviours VES Lens must match: each pair scored by the CPython oracle and by VES Lens. */
const PAIRS: [string, string][] = [
  ['select id,name from t', 'select id,name,city from t'], // C2 extra predicted column
  ['select id,name from t', 'select id,name from t where id<4'], // C3
  ['select name from t where id<3', 'select name from t union all select name from t where id=1'], // C4
  ['select id,name from t', 'select name,id from t'], // C5 column order
  ['select id,name,city from t', "select id,name,'X' as city from t"], // C7
  ['select id,name from t', 'select id,name from t where id>99'], // C8 empty prediction
  ['select id,name from t where id>99', 'select id,name from t'], // C9 empty gold
  ['select id from t', 'select name from t'], // C11
  ['select city from t', 'select city from t where id<3'], // C12 duplicate gold rows: NO_COLUMN raises in SQLMorph
  ["select 'a' as k, NULL as v union all select 'a', 1", "select 'a' as k, 2 as v"], // C13 NULL in the sort: partial raises
  ['select id,name from t', 'select cast(id as real) as id,name from t where id<4'], // C14 1 vs 1.0 in str()
  ['select id, id from t', 'select id from t'], // C15 duplicate gold names
  ['select k, x from v', 'select k, x from v where k % 2 = 0'], // every storage class, str() of each
  ['select k, x from v where k < 9', 'select k, typeof(x) as x from v where k < 9'],
  ['select x, k from v where k > 5', 'select x, k + 1 as k from v where k > 5'], // floats repr, big ints, astral text
  ['select x from v where k in (3, 12, 13, 14)', "select x || '' as x from v where k in (3, 13)"], // code-point order in the sort
  ['select T1.k, T2.k from v T1 join v T2 on T1.k = T2.k + 1', 'select k, k from v'], // duplicate predicted names
  ['select 1, 2', 'select 2, 1'], // numeric names
  ['select name collate nocase from t', 'select name from t'], // COLLATE: the result is named by its text
  ['select likely(id), true from t', 'select id, true from t'],
  ['select id as ID, id from t', 'select id, id as ID from t'], // case-colliding names
  ['select 1 as "x:1", 2 as x', 'select 3 as "x:1", 2 as x'], // a genuine name with a colon
  ['select id, name from t where id > 99', 'select name collate nocase, id from t where id > 99'], // empty both: EX 1
  ['select id % 2 as p, name from t', 'select id % 2 as p, city as name from t'], // ties in the greedy order
  ['select name, city from t', 'select city as name, name as city from t'],
  ['select 1 as a union all select 1 union all select 2', 'select 1 as a union all select 2 union all select 2'], // multiset counts
  ['select score from t', 'select score + 0 as score from t where score is not null'],
  ["select 'a' as c union all select 1", "select 'b' as c union all select 2"], // str next to int in the sort
];

describe("SQLMorph's techniques on tricky values agree with the CPython oracle", () => {
  let dbFile: string;
  let db: DatabaseConnection;
  before(async () => {
    dbFile = await makeDatabase(path.join(tempDir(), 'sqlmorph.sqlite'), FIXTURE);
    db = await openDatabase(dbFile);
  });

  it('scores every pair as SQLMorph, penalizing extra columns or not', async () => {
    const reference = await runOracle(PAIRS.map(([gold, pred]) => ({ db: dbFile, gold, pred })));
    const problems: string[] = [];
    for (const [i, [goldSql, predSql]] of PAIRS.entries()) {
      const limits = { maxRows: 1000 };
      const gold = await readTypedResult(db, goldSql, limits);
      const pred = await readTypedResult(db, predSql, limits);
      assert.ok(gold.status === 'ok' && pred.status === 'ok', `pair ${i} runs`);
      assert.deepEqual(
        { gold: gold.table.columns, pred: pred.table.columns },
        reference[i].columns ?? { gold: gold.table.columns, pred: pred.table.columns },
        `pair ${i}: column names as cursor.description`,
      );
      for (const penalize of [true, false]) {
        const report = await scoreTechniques(gold.table, pred.table, { techniques: EXACT_TECHNIQUES, penalizeExtraColumns: penalize });
        problems.push(...compareWithOracle(`pair ${i} (${goldSql} | ${predSql})`, report.scores, report.notes, reference[i], penalize));
      }
    }
    assert.deepEqual(problems, []);
    const raises = reference.flatMap((r) => Object.values(r).filter((v) => v && typeof v === 'object' && 'raises' in v));
    assert.ok(raises.length >= 4, 'the fixture reaches the TypeError and ValueError crashes');
  });

  it("scores one query pair for the editor, with the column alignment and each row's fate", async () => {
    const report = await scoreQueryTechniques(
      db,
      'select id, name, city from t',
      "select name, id from t where id < 3 union all select 'Zed', 9",
      { timeoutMs: 5000, maxRows: 1000, details: true },
    );
    assert.deepEqual(report.predicted?.columns, ['name', 'id']);
    const partial = report.details.exact_column_and_partial_cell!;
    assert.deepEqual(
      partial.columns!.map((c) => [c.predicted, c.gold]),
      [
        [1, 0],
        [0, 1],
      ],
    );
    assert.deepEqual(
      partial.goldRows!.map((r) => r.kind),
      ['exact', 'exact', 'none', 'none'],
    );
    assert.deepEqual(
      partial.predictedRows!.map((r) => r.kind),
      ['exact', 'exact', 'none'],
    );
    assert.deepEqual(report.scores.semantic_column_and_exact_cell, { error: 'no embedding provider' });
    const failing = await scoreQueryTechniques(db, 'select id from t', 'select nope from t', { timeoutMs: 5000, maxRows: 1000 });
    assert.deepEqual(failing.scores.exact_column_and_partial_cell, { EX: 0, EXP: 0, EXR: 0, F1: 0 });
    assert.equal(failing.failure?.side, 'prediction');
  });

  it('reads names as cursor.description gives them, for empty results too', async () => {
    const cases = [
      'select T1.k, T2.k, T1.k from v T1, v T2 where 0',
      'select 1, 2, 1 where 0',
      'select id as ID, id, Id from t where 0',
      'select T1.k, T2.k, T1.k from v T1, v T2 limit 1',
      'select * from (select T1.k, T2.k from v T1, v T2) limit 1',
      'select true, false, name collate nocase, likelihood(id, 0.5) from t',
    ];
    const expected = JSON.parse(
      python(
        `import json, sqlite3, sys\nconn = sqlite3.connect(${JSON.stringify(dbFile)})\nprint(json.dumps([[d[0] for d in conn.execute(q).description] for q in json.loads(sys.stdin.read())]))`,
        JSON.stringify(cases),
      ),
    );
    const got = [];
    for (const body of cases) got.push((await db.resultColumns(body, { hasRows: !/where 0/.test(body) })).names);
    assert.deepEqual(got, expected);
    // Without a row to read, a subquery's own `k:1` cannot be told from the view's suffix: inferred, and said.
    const inferred = await db.resultColumns('select * from (select T1.k, T2.k from v T1, v T2) where 0', { hasRows: false });
    assert.deepEqual(inferred.names, ['k', 'k']);
    assert.match(inferred.note ?? '', /inferred/);
  });
});

describe('Python behaviours', () => {
  it('prints floats as repr() does', () => {
    const values = [
      1,
      1.5,
      -0,
      0,
      1e16,
      1e15,
      1e-5,
      1e-4,
      0.1 + 0.2,
      123456789,
      1.2345e20,
      5e-324,
      1.7976931348623157e308,
      -2.5e-7,
      100,
      1 / 3,
      2 ** 53,
      // eslint-disable-next-line no-loss-of-precision -- an integer past 2^53, as Python and JavaScript each read it
      12345678901234567890,
    ];
    // Each double's bits go over as hex, so -0.0 and every last digit arrive intact.
    const hex = values.map((v) => Buffer.from(new Float64Array([v]).buffer).toString('hex'));
    const expected = JSON.parse(
      python(
        "import json,struct,sys; print(json.dumps([repr(struct.unpack('<d', bytes.fromhex(h))[0]) for h in json.loads(sys.stdin.read())]))",
        JSON.stringify(hex),
      ),
    );
    assert.deepEqual(values.map(pyFloatRepr), expected);
    assert.equal(pyStr(new PyFloat(Infinity)), 'inf');
    assert.equal(pyStr(Buffer.from([0, 0xff, 0x27])), 'b"\\x00\\xff\'"');
    assert.equal(pyStr(Buffer.from('a\'"\\', 'latin1')), "b'a\\'\"\\\\'");
    assert.equal(pyStr(null), 'None');
    assert.equal(pyStr(9007199254740993n), '9007199254740993');
  });

  it('orders strings by code point, as Python', () => {
    const strings = ['\u{1F600}', '\uFFFD', 'a', 'Z', '\uE000', 'é', ''];
    const expected = JSON.parse(
      python('import json,sys; print(json.dumps(sorted(json.loads(sys.stdin.read()))))', JSON.stringify(strings)),
    );
    assert.deepEqual([...strings].sort(compareCodePoints), expected);
  });

  it('raises on a tuple sort exactly when Python does, and sorts as Python where it does not', () => {
    // Deterministic pseudo-random tuples mixing None, ints, floats and text.
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pool: PyValue[] = [null, 0, 1, 2, new PyFloat(1), new PyFloat(1.5), 'a', 'b'];
    const lists = Array.from({ length: 300 }, () =>
      Array.from({ length: 1 + rand(6) }, () => Array.from({ length: 2 }, () => pool[rand(pool.length)])),
    );
    const encode = (v: PyValue) => (v instanceof PyFloat ? { f: v.value } : v);
    const expected = JSON.parse(
      python(
        'import json,sys\nout=[]\nfor rows in json.loads(sys.stdin.read()):\n' +
          '  rows=[tuple(float(v["f"]) if isinstance(v, dict) else v for v in r) for r in rows]\n' +
          '  try:\n    out.append([[repr(v) for v in r] for r in sorted(rows)])\n  except TypeError:\n    out.append(None)\nprint(json.dumps(out))',
        JSON.stringify(lists.map((rows) => rows.map((r) => r.map(encode)))),
      ),
    );
    lists.forEach((rows, i) => {
      const { sorted, raises } = sortRows(rows);
      assert.equal(raises, expected[i] === null, `list ${i}: ${JSON.stringify(rows.map((r) => r.map(encode)))}`);
      if (!raises)
        assert.deepEqual(
          sorted.map((r) => r.map((v) => (v === null ? 'None' : typeof v === 'string' ? `'${v}'` : pyStr(v)))),
          expected[i],
        );
    });
  });
});

describe('the greedy matching and the assignment', () => {
  it("takes the pairs SQLMorph's cubic loop takes, in its order", () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let trial = 0; trial < 200; trial++) {
      const G = 1 + rand(7);
      const P = 1 + rand(7);
      const n = 1 + rand(4);
      const sims = Array.from({ length: G }, () => Array.from({ length: P }, () => rand(n + 1)));
      // The literal loop: scan gold-major for the first strict maximum, take it, repeat.
      const freeG = new Set(Array.from({ length: G }, (_, i) => i));
      const freeP = new Set(Array.from({ length: P }, (_, i) => i));
      const literal: [number, number][] = [];
      for (;;) {
        let best = 0;
        let pick: [number, number] | undefined;
        for (const g of freeG) for (const p of freeP) if (sims[g][p] > best) [best, pick] = [sims[g][p], [g, p]];
        if (!pick) break;
        literal.push(pick);
        freeG.delete(pick[0]);
        freeP.delete(pick[1]);
      }
      const fast = greedyPairs(G, P, n, (g, p) => (sims[g][p] === 0 ? -1 : n - sims[g][p])).map((pair) => [pair.gold, pair.predicted]);
      assert.deepEqual(fast, literal, `trial ${trial}`);
    }
    assert.throws(() => greedyPairs(MAX_PARTIAL_PAIRS, 2, 1, () => 0), /exceed the bound/);
  });

  it("solves the assignment as SciPy's linear_sum_assignment, ties included", (t) => {
    if (spawnSync('python3', ['-c', 'import scipy']).status !== 0) return t.skip('SciPy is not installed for python3');
    let seed = 5;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const matrices = Array.from({ length: 150 }, () => {
      const rows = 1 + rand(6);
      const columns = 1 + rand(6);
      return Array.from({ length: rows }, () => Array.from({ length: columns }, () => rand(4) / 4)); // many ties
    });
    const expected = JSON.parse(
      python(
        'import json,sys\nfrom scipy.optimize import linear_sum_assignment as l\nimport numpy as np\n' +
          'print(json.dumps([[list(map(int, x)) for x in l(-np.array(m))] for m in json.loads(sys.stdin.read())]))',
        JSON.stringify(matrices),
      ),
    );
    matrices.forEach((m, i) => {
      const { rowInd, colInd } = linearSumAssignment(m.map((row) => row.map((x) => -x)));
      assert.deepEqual([rowInd, colInd], expected[i], `matrix ${i}: ${JSON.stringify(m)}`);
    });
  });
});
