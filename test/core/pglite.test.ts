// The embedded PostgreSQL (PGlite in a worker thread) behind the engine seam: a copy of the sample's SQLite file
// built once and kept (built again when the file changes), opened read-only on a working copy of its own; the
// same connection as a server's (values as psycopg2 reads them, plans, schema, same work), with runaway statements
// stopped on time, results and memory bounded, and several connections sharing its PGlite threads (their growing and
// shrinking: pgliteThreads.test.ts).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DatabaseError, QueryCancelled, QueryTimeout, ResultTooLarge, TooManyRows, TypedValue } from '../../src/core/db/database';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase, timeExecution } from '../../src/core/db/engines';
import { cachedCopy, workingCopy } from '../../src/core/db/pglite/embeddedCopy';
import { EmbeddedPostgres } from '../../src/core/db/pglite/embeddedPostgres';
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
import { rows, sampleRoot } from './pgliteFixtures';

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

  it('runs initdb once per cache folder and builds every copy from its folder; one that does not open is made again', async () => {
    const template = path.join(cacheDir, 'initdb');
    const madeAt = fs.statSync(path.join(template, 'complete')).mtimeMs;
    const file = path.join(root, 'superhero', 'superhero.sqlite');
    const touch = (ms: number) => fs.utimesSync(file, new Date(ms), new Date(ms));
    touch(Date.now() + 120_000);
    assert.equal((await cachedCopy(root, { cacheDir, layout: 'one-database' })).built, true);
    assert.equal(fs.statSync(path.join(template, 'complete')).mtimeMs, madeAt, 'the build copied the folder initdb made before');
    // As if another PGlite release had made it: PostgreSQL refuses a data folder of another major version.
    fs.writeFileSync(path.join(template, 'pgdata', 'PG_VERSION'), '17\n');
    touch(Date.now() + 180_000);
    const rebuilt = await cachedCopy(root, { cacheDir, layout: 'one-database' });
    assert.equal(rebuilt.built, true);
    assert.equal(fs.readFileSync(path.join(template, 'pgdata', 'PG_VERSION'), 'utf8').trim(), '18');
    const instance = new EmbeddedPostgres(() => workingCopy(rebuilt.dataDir), [['default_transaction_read_only', 'on']]);
    try {
      assert.match(await instance.version(), /^18\./);
    } finally {
      await instance.close();
    }
    // One a killed run left without its `complete` (half removed) is made again too.
    fs.rmSync(path.join(template, 'complete'));
    touch(Date.now() + 240_000);
    assert.equal((await cachedCopy(root, { cacheDir, layout: 'one-database' })).built, true);
    assert.ok(fs.existsSync(path.join(template, 'complete')));
  });
});
