// The PostgreSQL engine on a real PostgreSQL 15 server (a throwaway cluster on a unix socket): values as psycopg2
// returns them and Python compares them (CPython with psycopg2 is the oracle), read-only runs, refusals, bounds,
// cancels, plans, schema, timing, the dataset's layouts, passwords kept out of every message, and a server that
// goes away mid-run.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Question } from '../../src/core/bird/questions';
import { EvalTask } from '../../src/core/bird/tasks';
import { ConnectionCache, DatabaseUnavailable } from '../../src/core/db/connectionCache';
import { QueryCancelled, QueryTimeout, ResultTooLarge, SqlValue, TooManyRows, TypedValue } from '../../src/core/db/database';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase, timeExecution } from '../../src/core/db/engines';
import { LocalCluster, localClusterMissing, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { openServerTarget, ServerLoadTarget } from '../../src/core/db/postgres/loadTarget';
import { plannedWork, readQuery } from '../../src/core/db/readQuery';
import { postgresServer } from '../../src/core/db/source';
import { evaluateTasks, NOT_RUN } from '../../src/core/eval/evaluate';
import { QuestionResult } from '../../src/core/eval/types';
import { valueKey } from '../../src/core/results/valueKey';
import { REPO_ROOT, tempDir } from '../helpers';

/** Debian's python3, which has psycopg2 (python3-psycopg2); the pyenv python3 on PATH does not. */
const PYTHON = '/usr/bin/python3';
const ORACLE = path.join(REPO_ROOT, 'test', 'oracles', 'minidev_pg_ex.py');

const missing =
  localClusterMissing() ||
  (spawnSync(PYTHON, ['-c', 'import psycopg2']).status === 0 ? false : `${PYTHON} has no psycopg2 (run scripts/setup-postgres.sh)`);

const FIXTURE = `
CREATE TABLE hero (id integer PRIMARY KEY, name text NOT NULL, height double precision, weight numeric, born date, alive boolean);
CREATE INDEX hero_name ON hero (name);
CREATE TABLE power (hero_id integer REFERENCES hero (id), power text);
INSERT INTO hero SELECT g, 'hero ' || g, 150 + g % 50, (g * 7) % 90 + 0.5, DATE '1950-01-01' + g, g % 3 = 0 FROM generate_series(1, 2000) g;
INSERT INTO power SELECT g % 2000 + 1, 'power ' || (g % 17) FROM generate_series(1, 5000) g;
CREATE SEQUENCE counter;
`;

function task(index: number, predictedSql: string, goldSql: string, dbId = 'bird'): EvalTask {
  const question: Question = { index, questionId: index, dbId, question: '', evidence: '', difficulty: 'simple' };
  return { question, goldSql, predictedSql, notes: [] };
}

/** Python's view of a list of single-value queries: for every pair, whether psycopg2's values are `==`. */
const EQUALITY_ORACLE = `
import json, sys, psycopg2
host, port, queries = sys.argv[1], int(sys.argv[2]), json.loads(sys.stdin.read())
connection = psycopg2.connect(host=host, port=port, user='postgres', dbname='bird')
cursor = connection.cursor(); values = []
for query in queries:
    cursor.execute(query); values.append(cursor.fetchall()[0][0])
pairs = [[i, j, values[i] == values[j]] for i in range(len(values)) for j in range(i + 1, len(values))]
hashes_agree = all(hash(values[i]) == hash(values[j]) for i, j, equal in pairs if equal)
print(json.dumps({'pairs': pairs, 'hashes_agree': hashes_agree, 'types': [type(v).__name__ for v in values]}))
`;

/** One value of each kind psycopg2 returns, and values that meet across kinds (1, 1.0, True, Decimal('1.00'), ...). */
const VALUES = [
  '1',
  '1::int8',
  '1::numeric',
  '1.00::numeric',
  '1.0::float8',
  '1.0::float4',
  'true',
  'false',
  '0',
  '-0.0::float8',
  '0.000::numeric',
  '0.5::numeric',
  '0.5::float8',
  '0.1::numeric',
  '0.1::float8',
  '0.1::float4',
  "'NaN'::float8",
  "'NaN'::numeric",
  "'Infinity'::float8",
  "'Infinity'::numeric",
  "'-Infinity'::numeric",
  '9007199254740993::int8',
  '9007199254740993::numeric',
  '9007199254740992::float8',
  '9007199254740992::int8',
  'power(2::numeric, 70)',
  'power(2::float8, 70)',
  '12345678901234567890::numeric',
  '1234.73::real',
  '1234.73::float8',
  "'2020-01-01'::date",
  "'2020-01-01'::timestamp",
  "'2020-01-01 00:00:00'::timestamp(0)",
  "'2020-01-01 00:00:00+00'::timestamptz",
  "'2020-01-01 02:00:00+02'::timestamptz",
  "'2020-01-01 00:00:00.5'::timestamp",
  "'2020-01-01'::text",
  "'12:00'::time",
  "'12:00:00.000001'::time",
  "'12:00+02'::timetz",
  "'10:00+00'::timetz",
  "'1 day'::interval",
  "'24 hours'::interval",
  "'1 mon'::interval",
  "'30 days'::interval",
  "'1 year'::interval",
  "'365 days'::interval",
  "'\\x31'::bytea",
  "'1'",
  "'abc'::varchar",
  "'abc'::char(5)",
  "'abc  '::text",
  'NULL::int',
  'NULL::text',
  "'1'::json",
  "'1.0'::json",
  '\'"1"\'::jsonb',
  "'true'::json",
  '(1, 2)',
  "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
  "'12.50'::money",
];

describe('the PostgreSQL engine on a real server', { skip: missing }, () => {
  let cluster: LocalCluster;
  let admin: ServerLoadTarget;
  let db: DatabaseConnection;
  const python = (script: string, input: unknown, ...args: string[]) => {
    const run = spawnSync(PYTHON, ['-c', script, cluster.socketDir, String(cluster.port), ...args], {
      input: JSON.stringify(input),
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  };
  const fingerprint = async () =>
    (
      await admin.main.query(
        "SELECT (SELECT md5(string_agg(h::text, ',' ORDER BY id)) FROM hero h) AS heroes, (SELECT count(*) FROM power) AS powers, " +
          "(SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace) AS relations, (SELECT count(*) FROM pg_largeobject_metadata) AS blobs, " +
          "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory') AS locks, (SELECT last_value FROM counter) AS counter",
      )
    ).rows[0];

  before(async () => {
    cluster = startLocalCluster({ database: 'bird' });
    admin = await openServerTarget(cluster.url);
    await admin.main.exec(FIXTURE);
    db = await openDatabase(cluster.url);
  });
  after(async () => {
    await db?.close();
    await admin?.close();
    cluster?.stop();
  });

  describe('values: Python equality of what psycopg2 returns', () => {
    it('makes two values equal exactly where Python says == (and their hashes agree)', async () => {
      const queries = VALUES.map((value) => `SELECT ${value}`);
      const oracle = python(EQUALITY_ORACLE, queries) as { pairs: [number, number, boolean][]; hashes_agree: boolean; types: string[] };
      assert.ok(oracle.hashes_agree);
      const ours: SqlValue[] = [];
      for (const query of queries) {
        const run = await readQuery(db, query, { maxRows: 1 });
        assert.equal(run.status, 'ok', `${query}: ${run.status !== 'ok' && run.message}`);
        if (run.status === 'ok') ours.push(run.rows[0][0]);
      }
      const disagreements = oracle.pairs
        .filter(([i, j, equal]) => (valueKey(ours[i]) === valueKey(ours[j])) !== equal)
        .map(([i, j, equal]) => `${VALUES[i]} ${equal ? '==' : '!='} ${VALUES[j]} in Python (${oracle.types[i]}, ${oracle.types[j]})`);
      assert.deepEqual(disagreements, []);
    });

    it("keeps each value's Python type: int8 exact past 2^53, numeric as Decimal, dates as dates", async () => {
      const run = await readQuery(
        db,
        "SELECT 9007199254740993::int8, 0.10::numeric, DATE '2020-02-29', true, 1.5::float8, '\\x00ff'::bytea",
        { maxRows: 1 },
      );
      assert.equal(run.status, 'ok');
      const [big, decimal, date, flag, float, bytes] = run.status === 'ok' ? run.rows[0] : [];
      assert.ok(big instanceof TypedValue && big.pythonType === 'int' && big.text === '9007199254740993');
      assert.ok(decimal instanceof TypedValue && decimal.pythonType === 'Decimal' && decimal.text === '0.10');
      assert.ok(date instanceof TypedValue && date.pythonType === 'date' && date.canonical === '2020-02-29');
      assert.ok(flag instanceof TypedValue && flag.pythonType === 'bool');
      assert.equal(float, 1.5);
      assert.deepEqual(bytes, Buffer.from([0, 255]));
    });
  });

  describe("EX and Soft-F1 agree with mini_dev's psycopg2 scoring", () => {
    const PAIRS: [string, string][] = [
      ['SELECT avg(height) FROM hero', 'SELECT avg(height::numeric) FROM hero'], // float vs Decimal: exact comparison
      ['SELECT 0.5::float8', 'SELECT 0.5::numeric'], // Decimal('0.5') == 0.5
      ['SELECT 0.1::float8', 'SELECT 0.1::numeric'], // Decimal('0.1') != 0.1
      ['SELECT count(*) > 0 FROM hero', 'SELECT 1'], // True == 1
      ["SELECT DATE '2020-01-01'", "SELECT '2020-01-01'"], // a date is not its text
      ['SELECT born FROM hero WHERE id < 5', 'SELECT born::timestamp FROM hero WHERE id < 5'], // date vs datetime
      ['SELECT name, weight FROM hero WHERE id <= 20', 'SELECT name, weight::float8 FROM hero WHERE id <= 20'], // x.5 meets exactly
      ['SELECT array_agg(id) FROM hero WHERE id < 3', 'SELECT 1'], // a list: set() raises
      ['SELECT 1', "SELECT json_build_object('a', 1)"], // a dict in the gold
      ['SELECT 1; SELECT 2', 'SELECT 2'], // psycopg2 runs both and returns the last result
      ['SELECT 1;\n```', 'SELECT 1'], // a Markdown fence is a syntax error for the whole entry
      [' ', 'SELECT 1 WHERE false'], // an empty entry: psycopg2 refuses it
      ['-- only a comment', 'SELECT 1 WHERE false'],
      ["SELECT DATE '0044-03-15 BC'", 'SELECT 1'], // psycopg2 cannot make the date
      ['SELECT alive, count(*) FROM hero GROUP BY alive ORDER BY 1', 'SELECT alive::int, count(*) FROM hero GROUP BY alive ORDER BY 1'],
      ['SELECT NULL', 'SELECT NULL::int'],
      ["SELECT 'NaN'::float8", "SELECT 'NaN'::float8"], // NaN equals nothing
      ['SELECT id, id FROM hero WHERE id < 4', 'SELECT id FROM hero WHERE id < 4'],
      ['SELECT power FROM power ORDER BY power DESC', 'SELECT DISTINCT power FROM power'],
      ['SELECT id::numeric / 3 FROM hero WHERE id < 5', 'SELECT id::float8 / 3 FROM hero WHERE id < 5'],
      ["SELECT interval '1 day'", "SELECT interval '24 hours'"],
      ['SELECT 9007199254740993::int8', 'SELECT 9007199254740992::float8'],
    ];

    it('scores every pair as the official script does, question by question', async () => {
      const folder = tempDir();
      const predictions = path.join(folder, 'predictions.json');
      const gold = path.join(folder, 'gold.sql');
      fs.writeFileSync(
        predictions,
        JSON.stringify(Object.fromEntries(PAIRS.map(([pred], i) => [String(i), `${pred}\t----- bird -----\tbird`]))),
      );
      fs.writeFileSync(gold, PAIRS.map(([, goldSql]) => `${goldSql.replace(/\n/g, ' ')}\tbird`).join('\n') + '\n');
      const run = spawnSync(PYTHON, [ORACLE, predictions, gold, cluster.socketDir, String(cluster.port), 'postgres', 'bird'], {
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      const expected = JSON.parse(run.stdout) as [number, number][];
      const results = await evaluateTasks(
        PAIRS.map(([pred, goldSql], i) => task(i, pred, goldSql.replace(/\n/g, ' '))),
        { source: postgresServer(cluster.url), metrics: ['ex', 'f1'], timing: 'fast', timeoutMs: 10_000, maxRows: 100_000 },
      );
      const differences = results
        .map((r, i) => ({ pair: PAIRS[i].join(' | '), ours: [r.ex, r.f1], python: expected[i], outcome: r.outcome, error: r.error }))
        .filter(({ ours, python }) => ours[0] !== python[0] || Math.abs((ours[1] ?? 0) - python[1]) > 1e-12);
      assert.deepEqual(differences, []);
    });
  });

  describe('nothing a prediction holds changes the server or its data', () => {
    const HOSTILE = [
      'DELETE FROM hero',
      'UPDATE hero SET name = 1',
      "INSERT INTO hero VALUES (99999, 'x')",
      'DROP TABLE power',
      'TRUNCATE power',
      'CREATE TABLE evil (a int)',
      'ALTER TABLE hero ADD COLUMN evil int',
      "COPY hero TO '/tmp/ves-lens-evil.csv'",
      "COPY (SELECT 1) TO PROGRAM 'touch /tmp/ves-lens-evil'",
      'DO $$ BEGIN DELETE FROM hero; END $$',
      'SET default_transaction_read_only = off',
      "SELECT set_config('default_transaction_read_only', 'off', false)",
      'CALL some_procedure()',
      'LISTEN channel',
      "NOTIFY channel, 'x'",
      "SELECT pg_notify('channel', 'x')",
      'SELECT pg_terminate_backend(pg_backend_pid())',
      'SELECT pg_catalog.pg_cancel_backend(1)',
      'SELECT "pg_terminate_backend"(1)',
      'SELECT pg_reload_conf()',
      "SELECT pg_read_file('/etc/passwd')",
      "SELECT pg_ls_dir('.')",
      "SELECT lo_import('/etc/passwd')",
      'SELECT lo_create(0)',
      'SELECT pg_advisory_lock(1)',
      "SELECT dblink_exec('x', 'DELETE FROM hero')",
      "SELECT query_to_xml('DELETE FROM hero RETURNING 1', true, true, '')",
      'SELECT pg_stat_reset()',
      "SELECT nextval('counter')",
      "SELECT setval('counter', 100)",
      'WITH gone AS (DELETE FROM hero RETURNING *) SELECT count(*) FROM gone',
      'SELECT * INTO evil FROM hero',
      'SELECT * FROM hero FOR UPDATE',
      'SELECT 1; DELETE FROM hero',
      'BEGIN',
      'VACUUM hero',
      'EXPLAIN ANALYZE DELETE FROM hero',
      'LOCK TABLE hero',
      'PREPARE p AS DELETE FROM hero',
      'GRANT ALL ON hero TO PUBLIC',
    ];

    it('refuses each, or the read-only transaction stops it: a clear outcome per question, the data as it was', async () => {
      const before_ = await fingerprint();
      const results = await evaluateTasks(
        HOSTILE.map((sql, i) => task(i, sql, 'SELECT count(*) FROM hero')),
        { source: postgresServer(cluster.url), metrics: ['ex', 'f1'], timing: 'fast', timeoutMs: 5000, maxRows: 100 },
      );
      for (const [i, result] of results.entries()) {
        assert.ok(['refused', 'prediction_error'].includes(result.outcome), `${HOSTILE[i]}: ${result.outcome}`);
        assert.ok(result.error, HOSTILE[i]);
      }
      const refused = results.filter((r) => r.outcome === 'refused').length;
      assert.ok(refused >= HOSTILE.length - 4, `only ${refused} refused before reaching the server`);
      assert.deepEqual(await fingerprint(), before_);
      assert.ok(!fs.existsSync('/tmp/ves-lens-evil.csv') && !fs.existsSync('/tmp/ves-lens-evil'));
      // The connection stays usable, and another session was never touched.
      assert.equal((await readQuery(db, 'SELECT count(*) FROM hero', { maxRows: 1 })).status, 'ok');
      assert.equal((await admin.main.query('SELECT 1 AS one')).rows[0].one, 1);
    });

    it('names the reason of each refusal', async () => {
      const [copy, set, terminate, lock, cte] = await evaluateTasks(
        [
          'COPY hero TO STDOUT',
          'SET search_path = x',
          'SELECT pg_terminate_backend(1)',
          'SELECT pg_advisory_xact_lock(1)',
          'WITH x AS (UPDATE hero SET id = 1 RETURNING 1) SELECT 1',
        ].map((sql, i) => task(i, sql, 'SELECT 1')),
        { source: postgresServer(cluster.url), metrics: ['ex'], timing: 'fast', timeoutMs: 5000, maxRows: 100 },
      );
      assert.equal(copy.error, 'only read queries run; this statement is a COPY');
      assert.equal(set.error, 'only read queries run; this statement is a SET');
      assert.equal(terminate.error, 'pg_terminate_backend() is not allowed');
      assert.equal(lock.error, 'pg_advisory_xact_lock() is not allowed');
      assert.equal(cte.error, 'only read queries run; this WITH statement holds an UPDATE');
    });

    it('runs pg_sleep into the time limit: a timeout, cancelled on the server', async () => {
      const started = performance.now();
      const [result] = await evaluateTasks([task(0, 'SELECT pg_sleep(30)', 'SELECT 1')], {
        source: postgresServer(cluster.url),
        metrics: ['ex'],
        timing: 'fast',
        timeoutMs: 1000,
        maxRows: 10,
      });
      assert.equal(result.outcome, 'timeout');
      assert.match(result.error ?? '', /timed out after 1\.0 s/);
      assert.ok(performance.now() - started < 15_000, 'stopped well before the 30 s sleep ends');
      // The server ends the statement on the cancel: a few seconds for the backend to get to it, then none sleeps.
      const sleepers = async () =>
        (
          await admin.main.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND state = 'active' AND pid <> pg_backend_pid()",
          )
        ).rows[0].n as number;
      const waitUntil = performance.now() + 10_000;
      while ((await sleepers()) > 0 && performance.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await sleepers(), 0);
    });

    it('stops a query when its caller aborts (a cancel request to the server)', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const started = performance.now();
      await assert.rejects(db.drain('SELECT pg_sleep(20)', { signal: controller.signal }), QueryCancelled);
      assert.ok(performance.now() - started < 10_000, 'stopped well before the 20 s sleep ends');
      assert.equal((await readQuery(db, 'SELECT 1', { maxRows: 1 })).status, 'ok');
    });
  });

  describe('bounds: rows and bytes, whatever a query returns', () => {
    it('stops past the row limit without reading the rest (rows come in batches)', async () => {
      const started = performance.now();
      await assert.rejects(
        db.streamRows('SELECT a.id FROM hero a, hero b, power c', () => undefined, { maxRows: 1000 }),
        TooManyRows,
      );
      assert.ok(performance.now() - started < 3000);
    });

    it('stops past the byte bound', async () => {
      await assert.rejects(
        db.streamRows("SELECT repeat('x', 1000) FROM generate_series(1, 100000)", () => undefined, {
          maxRows: 1_000_000,
          maxBytes: 2 ** 20,
        }),
        ResultTooLarge,
      );
    });

    it('closes the connection on one value larger than the bound before it fills memory, and reconnects', async () => {
      const heapBefore = process.memoryUsage().rss;
      await assert.rejects(
        db.streamRows("SELECT repeat('x', 400000000)", () => undefined, { maxRows: 10, maxBytes: 64 * 2 ** 20 }),
        ResultTooLarge,
      );
      assert.ok(process.memoryUsage().rss - heapBefore < 512 * 2 ** 20, 'memory stayed bounded');
      assert.equal((await readQuery(db, 'SELECT 1', { maxRows: 1 })).status, 'ok');
    });
  });

  describe('the engine seam', () => {
    it('names result columns from the row description, repeated names kept, without running the query', async () => {
      assert.deepEqual((await db.resultColumns('SELECT id, id, height * 2, name AS "Name" FROM hero', { hasRows: true })).names, [
        'id',
        'id',
        '?column?',
        'Name',
      ]);
      assert.equal(await db.columnCount('SELECT id, name FROM hero WHERE pg_sleep(10) IS NULL'), 2);
      await assert.rejects(db.columnCount('SELECT nope FROM hero'), /column "nope" does not exist/);
    });

    it('explains to the typed plan tree: node type, relation, index, estimates', async () => {
      const [root] = await db.explainPlan('SELECT name FROM hero WHERE id = 5');
      assert.equal(root.kind, 'search');
      assert.equal(root.nodeType, 'Index Scan');
      assert.equal(root.table, 'hero');
      assert.equal(root.index, 'hero_pkey');
      assert.ok((root.totalCost ?? 0) > 0 && root.estimatedRows === 1);
      const [sorted] = await db.explainPlan('SELECT * FROM hero h ORDER BY height');
      assert.equal(sorted.kind, 'temp-btree');
      assert.equal(sorted.children[0].kind, 'scan');
      assert.equal(sorted.children[0].alias, 'h');
      const [outer] = await db.explainPlan('SELECT name FROM hero h WHERE height > (SELECT avg(height) FROM hero i WHERE i.id = h.id)');
      const subquery = outer.children.find((child) => child.kind === 'subquery');
      assert.ok(subquery?.correlated);
    });

    it("plannedWork: the planner's Total Cost of every statement of an entry; 0 when it fails before running", async () => {
      const lookup = await plannedWork(db, 'SELECT name FROM hero WHERE id = 5');
      const join = await plannedWork(db, 'SELECT count(*) FROM hero a, hero b, hero c');
      assert.ok(lookup !== undefined && join !== undefined && join > 1000 * lookup, `${lookup} against ${join}`);
      assert.equal(await plannedWork(db, 'SELECT name FROM hero WHERE id = 5; SELECT name FROM hero WHERE id = 6'), 2 * lookup);
      assert.equal(await plannedWork(db, 'SELECT nope FROM hero'), 0);
      assert.equal(await plannedWork(db, 'DELETE FROM hero'), 0);
    });

    it('proves the same work from identical verbose plans; a different literal is not the same', async () => {
      assert.equal(await db.sameWork('SELECT name FROM hero WHERE id = 5', 'select   name from hero where id=5'), 'same');
      assert.equal(await db.sameWork('SELECT name FROM hero WHERE id = 5', 'SELECT name FROM hero WHERE id = 6'), 'unknown');
      assert.equal(await db.sameWork('SELECT name FROM hero', 'SELECT nope FROM hero'), 'different');
    });

    it('reads the schema from the catalog: columns, keys, indexes, foreign keys, row counts', async () => {
      const schema = await db.readSchema();
      const hero = schema.tables.get('hero')!;
      assert.equal(hero.rowCount, 2000);
      assert.deepEqual(
        hero.columns.filter((c) => c.primaryKey).map((c) => c.name),
        ['id'],
      );
      assert.deepEqual(hero.indexes.map((i) => [i.name, i.origin, i.columns]).sort(), [
        ['hero_name', 'c', ['name']],
        ['hero_pkey', 'pk', ['id']],
      ]);
      assert.deepEqual(schema.tables.get('power')!.foreignKeys, [{ column: 'hero_id', table: 'hero', to: 'id', target: 'id' }]);
    });

    it('times an execution on a fresh connection, to the first row or the last, within the deadline', async () => {
      assert.ok((await timeExecution(db.path, 'SELECT * FROM hero', 'full')) > 0);
      assert.ok((await timeExecution(db.path, 'SELECT * FROM hero', 'first-row')) > 0);
      await assert.rejects(
        timeExecution(db.path, 'SELECT pg_sleep(5)', 'full', { deadline: performance.now() + 300, budgetMs: 300 }),
        QueryTimeout,
      );
    });
  });

  describe('where the databases are: layouts, the environment, passwords', () => {
    before(async () => {
      await admin.main.exec(
        "CREATE SCHEMA superhero; CREATE TABLE superhero.colour (id int PRIMARY KEY, colour text); INSERT INTO superhero.colour VALUES (1, 'Red')",
      );
      const other = (await admin.database!('toxicology', true))!;
      await other.exec("CREATE TABLE atom (atom_id text PRIMARY KEY); INSERT INTO atom VALUES ('TR000_1')");
      await other.close();
    });

    const firstValue = async (opened: { db: DatabaseConnection } | DatabaseUnavailable, sql: string) => {
      assert.ok(!(opened instanceof DatabaseUnavailable), String(opened));
      const run = await readQuery(opened.db, sql, { maxRows: 1 });
      return run.status === 'ok' ? run.rows[0][0] : run.message;
    };

    it('finds a db_id in its schema (search_path) or its own database, and says which ones are missing', async () => {
      const bySchema = ConnectionCache.connections({ source: postgresServer(cluster.url, 'schema') });
      const byDatabase = ConnectionCache.connections({ source: postgresServer(cluster.url, 'database') });
      try {
        assert.equal(await firstValue(await bySchema.forQuestion('superhero'), 'SELECT colour FROM colour'), 'Red');
        assert.equal(await firstValue(await byDatabase.forQuestion('toxicology'), 'SELECT atom_id FROM atom'), 'TR000_1');
        const absent = await bySchema.forQuestion('formula_1');
        assert.ok(absent instanceof DatabaseUnavailable && absent.reason === 'not-found');
        assert.match(absent.message, /^database not found: schema formula_1 in postgresql:\/\/postgres@localhost/);
        assert.ok((await byDatabase.forQuestion('formula_1')) instanceof DatabaseUnavailable);
      } finally {
        await bySchema.closeAll();
        await byDatabase.closeAll();
      }
    });

    it('honours libpq environment variables for what the URL leaves out', async () => {
      const saved = { ...process.env };
      Object.assign(process.env, { PGHOST: cluster.socketDir, PGPORT: String(cluster.port), PGUSER: 'postgres', PGDATABASE: 'bird' });
      try {
        const description = await postgresServer('postgresql://').describe();
        assert.match(description.version, /^15\./);
      } finally {
        for (const key of ['PGHOST', 'PGPORT', 'PGUSER', 'PGDATABASE']) if (saved[key] === undefined) delete process.env[key];
      }
    });

    it('keeps a password out of every target, label, description and error', async () => {
      const withPassword = cluster.url.replace('postgres@', 'postgres:Sup3rSecretPw@');
      const source = postgresServer(withPassword, 'schema');
      const described = await source.describe();
      const texts = [source.targetFor('superhero'), source.label('superhero'), JSON.stringify(described)];
      const unreachable = postgresServer(
        `postgresql://postgres:Sup3rSecretPw@localhost:1/bird?host=${encodeURIComponent(cluster.socketDir)}`,
      );
      texts.push(
        await unreachable.describe().then(
          () => 'connected?',
          (error: Error) => error.message,
        ),
      );
      const cache = ConnectionCache.connections({ source: unreachable });
      const failed = await cache.forQuestion('bird');
      texts.push(String(failed instanceof DatabaseUnavailable ? failed.message : 'opened?'));
      for (const text of texts) assert.ok(!text.includes('Sup3rSecretPw'), text);
      assert.match(texts[3], /ENOENT|connect/);
    });
  });

  describe('a server that goes away mid-run', () => {
    it('gives the question it happened on and every later one an error, and says so once', async () => {
      const doomed = startLocalCluster({ database: 'bird' });
      const seen: string[] = [];
      let results: QuestionResult[];
      try {
        results = await evaluateTasks(
          [0, 1, 2, 3, 4].map((i) => task(i, `SELECT ${i}`, `SELECT ${i}`)),
          {
            source: postgresServer(doomed.url),
            metrics: ['ex', 'f1'],
            timing: 'fast',
            timeoutMs: 5000,
            maxRows: 10,
            onResult: (result) => {
              if (result.index === 1) doomed.stop();
            },
            onServerUnavailable: (message) => seen.push(message),
          },
        );
      } finally {
        doomed.stop();
      }
      assert.deepEqual(
        results.map((r) => r.outcome),
        ['correct', 'correct', 'gold_error', 'gold_error', 'gold_error'],
      );
      for (const r of results.slice(2)) assert.ok(r.error?.startsWith(NOT_RUN), r.error ?? '');
      assert.equal(seen.length, 1);
    });
  });
});
