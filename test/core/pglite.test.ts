// The embedded PostgreSQL (PGlite in a worker thread) behind the engine seam: a copy of the sample's SQLite file
// built once and kept (built again when the file changes), opened read-only on a working copy of its own; the
// same connection as a server's (values as psycopg2 reads them, plans, schema, same work), with runaway statements
// stopped on time, results and memory bounded, and several connections sharing its PGlite threads (a second one
// started for a connection kept waiting, ended when idle or when memory is tight).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DatabaseError, QueryCancelled, QueryTimeout, ResultTooLarge, Row, TooManyRows, TypedValue } from '../../src/core/db/database';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase, timeExecution } from '../../src/core/db/engines';
import { setTimeout as delay } from 'node:timers/promises';
import { cachedCopy, workingCopy } from '../../src/core/db/pglite/embeddedCopy';
import { EmbeddedPostgres } from '../../src/core/db/pglite/embeddedPostgres';
import { embeddedTarget, serveCopy } from '../../src/core/db/pglite/pgliteEngine';
import { embeddedPostgres } from '../../src/core/db/pglite/embeddedSource';
import {
  MessageSplitter,
  optionSettings,
  ReadyForQueryWatcher,
  readyForQuery,
  TransactionStatus,
} from '../../src/core/db/pglite/wireProtocol';
import { serverSetting } from '../../src/core/db/postgres/connectionTarget';
import { DatabaseSource } from '../../src/core/db/source';
import { SAMPLE_SUPERHERO, sha256, tempDir } from '../helpers';

const READ_ONLY: [string, string][] = [['default_transaction_read_only', 'on']];

/** The sample's superhero database, copied to a folder of the test's own (a test changes its modification time). */
function sampleRoot(): string {
  const root = tempDir('ves-lens-pglite-root-');
  fs.mkdirSync(path.join(root, 'superhero'));
  fs.copyFileSync(SAMPLE_SUPERHERO, path.join(root, 'superhero', 'superhero.sqlite'));
  return root;
}

/** Every file of a folder with its size and modification time: what shows a folder was written to. */
function snapshot(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const stat = fs.statSync(file);
      return `${path.relative(folder, file)} ${stat.size} ${stat.mtimeMs}`;
    })
    .sort();
}

async function rows(
  db: DatabaseConnection,
  sql: string,
  limits: Partial<Parameters<DatabaseConnection['streamRows']>[2]> = {},
): Promise<Row[]> {
  const out: Row[] = [];
  await db.streamRows(sql, (row) => out.push(row), { maxRows: 10_000, ...limits });
  return out;
}

describe('the embedded PostgreSQL wire protocol pieces', () => {
  it("reads a startup packet's options as libpq writes them (-c, --name=value, backslash escapes)", () => {
    const options = [serverSetting('search_path', '"Student Club"'), serverSetting('DateStyle', 'ISO'), '--statement-timeout=5'].join(' ');
    assert.deepEqual(optionSettings(options), [
      ['search_path', '"Student Club"'],
      ['DateStyle', 'ISO'],
      ['statement_timeout', '5'],
    ]);
    assert.deepEqual(optionSettings(undefined), []);
  });

  it('splits what a client writes into whole messages, and finds ReadyForQuery across chunk boundaries', () => {
    const splitter = new MessageSplitter();
    const sync = Buffer.from([83, 0, 0, 0, 4]);
    const query = Buffer.concat([Buffer.from([81, 0, 0, 0, 13]), Buffer.from('SELECT 1\0')]);
    const both = Buffer.concat([query, sync]);
    assert.deepEqual(splitter.push(both.subarray(0, 7)), []);
    assert.deepEqual(
      splitter.push(both.subarray(7)).map((m) => String.fromCharCode(m[0])),
      ['Q', 'S'],
    );
    const seen: TransactionStatus[] = [];
    const watcher = new ReadyForQueryWatcher((status) => seen.push(status));
    const answer = Buffer.concat([Buffer.from([67, 0, 0, 0, 13]), Buffer.from('SELECT 1\0'), readyForQuery('T'), readyForQuery('I')]);
    for (let i = 0; i < answer.length; i += 3) watcher.push(answer.subarray(i, i + 3));
    assert.deepEqual(seen, ['T', 'I']);
  });
});

// Before the tests below open their instance, which would hold a third thread's memory beside these two.
describe("the embedded PostgreSQL's threads", () => {
  const cacheDir = tempDir('ves-lens-pglite-cache-');
  const root = sampleRoot();
  let kept: string;
  before(async () => {
    kept = (await cachedCopy(root, { cacheDir, layout: 'one-database' })).dataDir;
  });
  after(() => {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  let served = 0;
  /** Two connections to `instance` as the engine opens any (PostgresConnection over its sessions), on a target of its own. */
  const connectTwice = async (instance: EmbeddedPostgres) => {
    const target = embeddedTarget(path.join(root, `threads-${served++}`));
    serveCopy(target, Promise.resolve(instance));
    return [await openDatabase(target), await openDatabase(target)];
  };

  it('starts a second thread for a connection kept waiting behind a long statement, and ends it once idle', async () => {
    const instance = new EmbeddedPostgres(() => workingCopy(kept), READ_ONLY);
    try {
      const [first, second] = await connectTwice(instance);
      assert.equal(instance.threadsRunning, 1, 'one thread until a connection waits');
      const started = performance.now();
      const long = rows(first, 'SELECT pg_sleep(10)');
      await delay(300);
      assert.deepEqual(await rows(second, 'SELECT COUNT(*) FROM superhero'), [[750]]);
      const answeredAfter = performance.now() - started;
      assert.ok(answeredAfter < 9_500, `answered after ${Math.round(answeredAfter)} ms: it waited for the 10 s statement`);
      assert.equal(instance.threadsRunning, 2);
      // What the lanes read to tell a time limit met while waiting (eval/parallelEval.ts).
      assert.ok(second.executorWaitMs!() >= 2_500, `waited ${Math.round(second.executorWaitMs!())} ms`);
      await long;
      assert.ok(first.executorWaitMs!() < 1_000, `first waited ${Math.round(first.executorWaitMs!())} ms`);
      await delay(6_500);
      assert.equal(instance.threadsRunning, 1, 'the second thread ends once idle for 5 s');
      assert.deepEqual(await rows(second, 'SELECT 1'), [[1]]);
      await Promise.all([first.close(), second.close()]);
    } finally {
      await instance.close();
    }
    assert.equal(instance.threadsRunning, 0);
  });

  it('keeps each connection on one thread at a time while both threads serve connections of different settings', async () => {
    const instance = new EmbeddedPostgres(() => workingCopy(kept), READ_ONLY);
    const copy = path.join(root, `threads-${served++}`);
    serveCopy(embeddedTarget(copy, ''), Promise.resolve(instance));
    // Different search paths: a thread changing hands sets the session up again (RESET ALL) before running.
    const [publicPath, catalogPath] = [
      await openDatabase(embeddedTarget(copy, 'public')),
      await openDatabase(embeddedTarget(copy, 'pg_catalog')),
    ];
    try {
      const long = rows(publicPath, 'SELECT pg_sleep(8)');
      await delay(300);
      await rows(catalogPath, 'SELECT 1');
      assert.equal(instance.threadsRunning, 2);
      await long;
      // Results of several cursor batches (1,000 rows each), on both connections at once, again and again.
      const counted = 'SELECT g, (SELECT COUNT(*) FROM superhero) FROM generate_series(1, 2500) g';
      for (let round = 0; round < 16; round++) {
        // Which connection asks first alternates, so each thread serves each in turn and changes hands every round.
        const asks = [() => rows(publicPath, counted), () => rows(catalogPath, 'SELECT g FROM generate_series(1, 2500) g')] as const;
        const [a, b] = round % 2 ? (await Promise.all([asks[1](), asks[0]()])).reverse() : await Promise.all([asks[0](), asks[1]()]);
        assert.equal(a.length, 2500);
        assert.deepEqual(a[2499], [2500, 750]);
        assert.equal(b.length, 2500);
      }
    } finally {
      await Promise.all([publicPath.close(), catalogPath.close()]);
      await instance.close();
    }
  });

  it('keeps to one thread once a statement took the process past its memory ceiling', async () => {
    const instance = new EmbeddedPostgres(() => workingCopy(kept), READ_ONLY);
    try {
      const [first, second] = await connectTwice(instance);
      const long = rows(first, 'SELECT pg_sleep(8)');
      await delay(300);
      await rows(second, 'SELECT 1');
      assert.equal(instance.threadsRunning, 2);
      await long;
      // A ceiling 200 MiB above the memory of both threads: the string below passes it, and is stopped.
      instance.memoryCeilingBytes = process.memoryUsage.rss() + 200 * 2 ** 20;
      await assert.rejects(
        rows(first, "SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 900000)"),
        /took the process past/,
      );
      instance.memoryCeilingBytes = 2 ** 31; // out of the way of what follows: the threads' memory is what is tested
      await delay(200);
      assert.ok(instance.threadsRunning <= 1, 'the idle second thread is ended');
      const again = rows(first, 'SELECT pg_sleep(5)');
      await delay(300);
      assert.deepEqual(await rows(second, 'SELECT 2'), [[2]]);
      await again;
      assert.equal(instance.threadsRunning, 1, 'no second thread starts again');
      await Promise.all([first.close(), second.close()]);
    } finally {
      await instance.close();
    }
  });
});

describe('the embedded PostgreSQL (PGlite)', () => {
  const cacheDir = tempDir('ves-lens-pglite-cache-');
  const root = sampleRoot();
  let source: DatabaseSource;
  let db: DatabaseConnection;
  let kept: string;
  let keptBefore: string[];
  const sampleHash = sha256(SAMPLE_SUPERHERO);

  before(async () => {
    source = embeddedPostgres(root, { cacheDir });
    await source.describe();
    kept = (await cachedCopy(root, { cacheDir, layout: 'one-database' })).dataDir;
    keptBefore = snapshot(kept);
    db = await openDatabase(source.targetFor('superhero'));
  });
  after(async () => {
    await db?.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('says what it is, and which databases it holds', async () => {
    const description = await source.describe();
    assert.equal(description.engine, 'postgres');
    assert.equal(description.runs, 'embedded');
    assert.equal(description.build, 'embedded PGlite, WASM');
    assert.match(description.version, /^18\.\d+/);
    assert.match(description.note ?? '', /not a PostgreSQL server's/);
    assert.equal(await source.exists('superhero'), true);
    assert.equal(await source.exists('toxicology'), false);
    assert.match(source.label('superhero'), /superhero's tables in the embedded PostgreSQL copy of /);
  });

  it('reads values as psycopg2 does, names columns, explains, reads the schema and tells same work', async () => {
    assert.deepEqual(await rows(db, 'SELECT id, superhero_name FROM superhero ORDER BY id LIMIT 2'), [
      [1, '3-D Man'],
      [2, 'A-Bomb'],
    ]);
    const [[count, average]] = await rows(db, 'SELECT COUNT(*), AVG(height_cm) FROM superhero');
    assert.equal(count, 750);
    assert.ok(average instanceof TypedValue && average.pythonType === 'Decimal');
    assert.deepEqual((await db.resultColumns('SELECT id, id FROM superhero', { hasRows: true })).names, ['id', 'id']);
    const [plan] = await db.explainPlan('SELECT * FROM superhero WHERE id = 3');
    assert.equal(plan.nodeType, 'Index Scan');
    const schema = await db.readSchema();
    assert.equal(schema.tables.get('superhero')?.rowCount, 750);
    assert.equal(await db.sameWork('SELECT id FROM superhero', 'select id from superhero'), 'same');
    assert.equal(await db.sameWork('SELECT id FROM superhero WHERE id = 1', 'SELECT id FROM superhero WHERE id = 2'), 'unknown');
    assert.equal(await db.sameWork('SELECT nothing', 'SELECT 1'), 'different');
  });

  it('writes nothing: statements that write fail, the kept copy and the SQLite file stay as they were', async () => {
    for (const sql of ['CREATE TABLE scratch (a int)', "INSERT INTO colour (id, colour) VALUES (999, 'x')", "SELECT nextval('x')"]) {
      await assert.rejects(rows(db, sql), DatabaseError);
    }
    await assert.rejects(rows(db, 'CREATE TABLE scratch (a int)'), /read-only transaction/);
    assert.deepEqual(snapshot(kept), keptBefore);
    assert.equal(sha256(SAMPLE_SUPERHERO), sampleHash);
  });

  it('stops a runaway statement on time and on a cancel, then goes on', async () => {
    const started = performance.now();
    await assert.rejects(
      rows(db, 'SELECT pg_sleep(60)', { deadline: performance.now() + 1500, budgetMs: 1500 }),
      (error) => error instanceof QueryTimeout,
    );
    const seconds = (performance.now() - started) / 1000;
    // Well short of the 60 s sleep, with room for a busy machine (the deadline is not what a timer's lag says of it).
    assert.ok(seconds < 20, `stopped after ${seconds.toFixed(1)} s`);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(rows(db, 'SELECT pg_sleep(60)', { signal: controller.signal }), (error) => error instanceof QueryCancelled);
    assert.deepEqual(await rows(db, 'SELECT COUNT(*) FROM colour'), [[35]]);
  });

  it('bounds results by rows and bytes, and memory: a statement past the limit fails, the process stays under 1 GiB', async () => {
    await assert.rejects(rows(db, 'SELECT * FROM generate_series(1, 100000)', { maxRows: 1000 }), TooManyRows);
    await assert.rejects(rows(db, "SELECT repeat('x', 1000000) FROM generate_series(1, 500)", { maxBytes: 64 * 2 ** 20 }), ResultTooLarge);
    await assert.rejects(rows(db, "SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 900000)"), /out of memory/);
    assert.ok(process.memoryUsage.rss() < 2 ** 30, `rss ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MiB`);
    assert.deepEqual(await rows(db, 'SELECT COUNT(*) FROM colour'), [[35]]);
  });

  it('serves several connections, a transaction at a time on each of its threads', async () => {
    const other = await openDatabase(source.targetFor('superhero'));
    try {
      const [long, short] = await Promise.all([
        rows(db, 'SELECT g FROM generate_series(1, 5000) g'),
        rows(other, 'SELECT COUNT(*) FROM superhero'),
      ]);
      assert.equal(long.length, 5000);
      assert.deepEqual(short, [[750]]);
    } finally {
      await other.close();
    }
  });

  it('times executions on fresh sessions, within the deadline', async () => {
    const target = source.targetFor('superhero');
    const ms = await timeExecution(target, 'SELECT COUNT(*) FROM superhero JOIN hero_power ON hero_id = superhero.id', 'full');
    assert.ok(ms > 0 && ms < 5000, `${ms} ms`);
    await assert.rejects(
      timeExecution(target, 'SELECT pg_sleep(60)', 'full', { deadline: performance.now() + 1000, budgetMs: 1000 }),
      QueryTimeout,
    );
  });

  it('keeps the copy for the next run, and builds it again when the SQLite file changed', async () => {
    const again = await cachedCopy(root, { cacheDir, layout: 'one-database' });
    assert.equal(again.built, false);
    assert.equal(again.dataDir, kept);
    const file = path.join(root, 'superhero', 'superhero.sqlite');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    const rebuilt = await cachedCopy(root, { cacheDir, layout: 'one-database' });
    assert.equal(rebuilt.built, true);
    assert.notEqual(rebuilt.dataDir, kept);
    assert.ok(!fs.existsSync(kept), 'the copy of the older file is removed');
  });
});
