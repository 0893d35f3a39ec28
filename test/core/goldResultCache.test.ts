// The gold-result cache (eval/goldResultCache.ts) on the real SQLite engine and the real BIRD files: a hit gives what
// running the gold gives, a changed database or a gold that reads the clock never meets an entry, bounds and the
// shared time limit hold, a damaged entry is a miss, and the folder stays bounded.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { loadPredictions } from '../../src/core/bird/predictions';
import { loadQuestions } from '../../src/core/bird/questions';
import { buildTasks, EvalTask } from '../../src/core/bird/tasks';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase } from '../../src/core/db/engines';
import { sqliteFolder } from '../../src/core/db/source';
import { EvalRunOptions, evaluateTasks } from '../../src/core/eval/evaluate';
import {
  goldCacheLine,
  GoldResultCache,
  MAX_ENTRY_BYTES,
  MAX_ENTRY_ROWS,
  mergedGoldCacheCounts,
  pruneFolder,
  readGoldQuery,
  volatileReason,
} from '../../src/core/eval/goldResultCache';
import { QuestionResult } from '../../src/core/eval/types';
import { BIRD_DATA, birdDataMissing, makeDatabase, SAMPLE_SUPERHERO, tempDir } from '../helpers';

const PREDICTION_FILES = [
  'predict_mini_dev_gpt-4_sqlite.json',
  'predict_mini_dev_gpt-4-o_cot_SQLite.json',
  'predict_mini_dev_meta-llama-3-8b-instruct-2_sqlite.json',
  'predict_mini_dev_mistralai-mixtral-8x7b-instru-4_sqlite.json',
];

function realTasks(file: string): EvalTask[] {
  const questions = loadQuestions(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'));
  const gold = loadGold(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'));
  const predictions = loadPredictions(path.join(BIRD_DATA, 'predictions', 'minidev-official', file));
  return buildTasks(questions.questions, predictions, gold, []);
}

/** What the cache must not change: every field that does not come from a clock. */
const verdict = ({ index, outcome, ex, f1, error, difference, notes }: QuestionResult) => ({
  index,
  outcome,
  ex,
  f1,
  error,
  difference,
  notes,
});

async function evaluate(tasks: EvalTask[], dbRoot: string, more: Partial<EvalRunOptions> = {}) {
  return evaluateTasks(tasks, {
    source: sqliteFolder(dbRoot),
    metrics: ['ex', 'f1'],
    timing: 'fast',
    timeoutMs: 30_000,
    maxRows: 500_000,
    jobs: 2,
    ...more,
  });
}

/** Questions on `<root>/superhero/superhero.sqlite`, one per prediction, all with the same gold. */
function superheroTasks(goldSql: string, predictions: string[]): EvalTask[] {
  return predictions.map((predictedSql, index) => ({
    question: { index, questionId: index, dbId: 'superhero', difficulty: 'simple', question: '', evidence: '', sql: goldSql },
    goldSql,
    predictedSql,
    notes: [],
  }));
}

/** A folder holding a copy of the sample superhero database, as `<root>/superhero/superhero.sqlite`. */
function superheroCopy(): { root: string; file: string } {
  const root = tempDir('ves-lens-gold-db-');
  const file = path.join(root, 'superhero', 'superhero.sqlite');
  fs.mkdirSync(path.dirname(file));
  fs.copyFileSync(SAMPLE_SUPERHERO, file);
  return { root, file };
}

const entries = (cache: GoldResultCache) =>
  fs.existsSync(cache.folder) ? fs.readdirSync(cache.folder).filter((f) => f.endsWith('.v8')) : [];

describe('gold results kept between runs, on the real BIRD files', { skip: birdDataMissing() }, () => {
  const dbRoot = path.join(BIRD_DATA, 'databases');

  it('a second run takes every storable gold from the cache and scores exactly as running them (all four files)', async () => {
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    let stored = 0;
    for (const [n, file] of PREDICTION_FILES.entries()) {
      const tasks = realTasks(file);
      const before = cache.counts();
      const cached = await evaluate(tasks, dbRoot, { goldCache: cache });
      const plain = await evaluate(tasks, dbRoot, { jobs: 1 });
      assert.deepEqual(cached.map(verdict), plain.map(verdict), file);
      const scored = cached.filter((r) => r.outcome !== 'skipped');
      const storable = tasks.filter((t) => scored.some((r) => r.index === t.question.index) && !volatileReason(t.goldSql ?? ''));
      assert.ok(storable.length > 100 && storable.length < scored.length, `${storable.length} of ${scored.length}`);
      const after = cache.counts();
      if (n === 0) {
        assert.equal(after.hits, 0);
        assert.equal(after.stored, storable.length, 'every storable gold of the first run is stored');
        stored = after.stored;
      } else {
        assert.equal(after.hits - before.hits, storable.length, `${file}: every storable gold is a hit`);
        assert.equal(after.stored, stored, 'nothing new to store');
      }
    }
    assert.equal(entries(cache).length, stored);
  });

  it('a copy of the database with changed content, or only a new modification time, misses', async () => {
    const { root, file } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const tasks = superheroTasks('SELECT count(*) FROM superhero', ['SELECT 750']);
    const run = () => evaluate(tasks, root, { goldCache: cache, jobs: 1 });

    assert.equal((await run())[0].outcome, 'correct');
    assert.equal((await run())[0].outcome, 'correct');
    assert.deepEqual([cache.counts().hits, cache.counts().stored], [1, 1]);

    const old = fs.statSync(file);
    fs.utimesSync(file, old.atime, new Date(old.mtimeMs + 5_000));
    assert.equal((await run())[0].outcome, 'correct');
    assert.deepEqual([cache.counts().hits, cache.counts().stored], [1, 2], 'a new modification time is a miss');

    // Changed content with the size and the modification time put back: its change time (which utimes cannot set
    // back) still differs.
    const touched = fs.statSync(file);
    await makeDatabase(file, 'DELETE FROM superhero WHERE id = (SELECT max(id) FROM superhero)');
    fs.utimesSync(file, touched.atime, touched.mtime);
    assert.equal(fs.statSync(file).size, touched.size);
    const changed = await run();
    assert.equal(changed[0].outcome, 'mismatch', 'the gold ran on the changed database: 749 rows, not the stored 750');
    assert.deepEqual([cache.counts().hits, cache.counts().stored], [1, 3]);
  });

  it('never stores a gold that reads the clock, chance or the connection, and says why', async () => {
    for (const sql of [
      'SELECT random()',
      'SELECT abs(RANDOM ()) % 1 FROM superhero LIMIT 1',
      'SELECT randomblob(4) IS NOT NULL',
      "SELECT date('now') > '2000'",
      'SELECT "now" IS NOT NULL',
      'SELECT CURRENT_TIMESTAMP IS NOT NULL',
      'select current_date is not null',
      "SELECT strftime('%Y', full_name) FROM superhero LIMIT 1",
      'SELECT julianday() > 0',
      'SELECT changes()',
      'SELECT total_changes()',
      'SELECT last_insert_rowid()',
      'SELECT "random"()',
    ])
      assert.ok(volatileReason(sql), sql);
    // Names in a comment or inside a string that no function reads are data, not calls.
    for (const sql of [
      "SELECT 'random()' -- random()",
      "SELECT 'not now' /* date('now') */",
      'SELECT nowhere FROM t',
      'SELECT datetime_col FROM t',
    ])
      assert.equal(volatileReason(sql), undefined, sql);

    const { root } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const clockGold = superheroTasks("SELECT date('now') IS NOT NULL, random() IS NOT NULL", ['SELECT 1, 1']);
    for (let i = 0; i < 2; i++) assert.equal((await evaluate(clockGold, root, { goldCache: cache, jobs: 1 }))[0].outcome, 'correct');
    assert.deepEqual(cache.counts(), { folder: cache.folder, hits: 0, stored: 0 });
    assert.deepEqual(entries(cache), []);
  });

  it(`stores a result of ${MAX_ENTRY_ROWS} rows but none past the row or byte limits, and never a failure`, async () => {
    const { root } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const counting = (rows: number, extra = '') =>
      `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT ${rows}) SELECT x${extra} FROM c`;
    const store = async (goldSql: string) => {
      const before = cache.counts().stored;
      await evaluate(superheroTasks(goldSql, ['SELECT 1']), root, { goldCache: cache, jobs: 1 });
      return cache.counts().stored - before;
    };
    assert.equal(await store(counting(MAX_ENTRY_ROWS)), 1);
    assert.equal(await store(counting(MAX_ENTRY_ROWS + 1)), 0, 'past the row limit');
    const wide = Math.ceil(MAX_ENTRY_BYTES / 1000);
    assert.equal(await store(counting(wide, ', zeroblob(1000)')), 0, 'past the byte limit');
    assert.equal(await store('SELECT no_such_column FROM superhero'), 0, 'an error');
    assert.equal(await store(counting(20, ', x')), 1);
    assert.equal(entries(cache).length, 2);
  });

  it('a damaged or truncated entry is a miss, removed and replaced; an unwritable folder only stops storing', async () => {
    const { root } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const tasks = superheroTasks('SELECT id, full_name FROM superhero WHERE id < 20 ORDER BY id', [
      'SELECT id, full_name FROM superhero WHERE id < 20',
    ]);
    const first = await evaluate(tasks, root, { goldCache: cache, jobs: 1 });
    const [entry] = entries(cache).map((name) => path.join(cache.folder, name));
    const whole = fs.readFileSync(entry);
    for (const damage of [Buffer.from('not an entry'), whole.subarray(0, whole.length >> 1), v8.serialize({ format: 1, rows: 'x' })]) {
      fs.writeFileSync(entry, damage);
      const before = cache.counts();
      const again = await evaluate(tasks, root, { goldCache: cache, jobs: 1 });
      assert.deepEqual(again.map(verdict), first.map(verdict));
      assert.deepEqual([cache.counts().hits - before.hits, cache.counts().stored - before.stored], [0, 1], 'a miss, stored again');
      assert.notDeepEqual(fs.readFileSync(entry), damage, 'replaced by a whole entry');
    }
    const hits = cache.counts().hits;
    await evaluate(tasks, root, { goldCache: cache, jobs: 1 });
    assert.equal(cache.counts().hits, hits + 1);

    const notes: string[] = [];
    const blocked = path.join(tempDir(), 'a-file');
    fs.writeFileSync(blocked, '');
    const unwritable = new GoldResultCache(path.join(blocked, 'gold-results'), { onNote: (note) => notes.push(note) });
    const twice = [...tasks, ...tasks.map((t) => ({ ...t, question: { ...t.question, index: 1 } }))];
    const results = await evaluate(twice, root, { goldCache: unwritable, jobs: 1 });
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['correct', 'correct'],
    );
    assert.equal(notes.length, 1, 'said once');
    assert.match(notes[0], /gold results are not cached in this run: cannot write .*a-file/);
    assert.equal(unwritable.counts().stored, 0);
  });
});

describe('what a hit may stand for', () => {
  const withConnection = async (use: (db: DatabaseConnection, file: string) => Promise<void>) => {
    const { file } = superheroCopy();
    const db = await openDatabase(file);
    try {
      await use(db, file);
    } finally {
      await db.close();
    }
  };
  const gold = 'SELECT id FROM superhero ORDER BY id LIMIT 50';

  it('leaves the prediction the time limit minus the gold time stored, and runs a gold stored near the limit', async () => {
    await withConnection(async (db) => {
      const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
      const slot = await cache.slot(db, gold);
      assert.ok(slot);
      const real = await readGoldQuery(db, gold, { maxRows: 1000 }, { timeoutMs: 10_000 });
      assert.equal(real.gold.status, 'ok');
      const rows = real.gold.status === 'ok' ? real.gold.rows : [];
      cache.write(slot, rows, 4_000);
      const limits = { deadline: performance.now() + 10_000, budgetMs: 10_000, maxRows: 1000 };
      fs.utimesSync(slot.file, new Date(0), new Date(0));
      const hit = await readGoldQuery(db, gold, limits, { timeoutMs: 10_000, goldCache: cache });
      assert.deepEqual(hit.gold, real.gold);
      assert.ok(Date.now() - fs.statSync(slot.file).mtimeMs < 60_000, 'a hit counts as a use (the folder is pruned by it)');
      const left = (hit.shared.deadline ?? 0) - performance.now();
      assert.ok(left > 5_500 && left <= 6_000, `the prediction may use ${left} ms of 10 s after a 4 s gold`);
      assert.equal(hit.shared.budgetMs, 10_000, 'the message still names the whole limit');

      cache.write(slot, rows, 6_000); // over half the limit: whether the gold still fits depends on the moment
      const ran = await readGoldQuery(db, gold, limits, { timeoutMs: 10_000, goldCache: cache });
      assert.equal(ran.shared, limits);
      assert.equal(cache.counts().hits, 1);
    });
  });

  it('a prediction that needs more than the limit minus the stored gold time times out then', async () => {
    const { root, file } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const db = await openDatabase(file);
    try {
      const slot = await cache.slot(db, gold);
      const real = await readGoldQuery(db, gold, { maxRows: 1000 }, { timeoutMs: 10_000 });
      cache.write(slot!, real.gold.status === 'ok' ? real.gold.rows : [], 3_990);
    } finally {
      await db.close();
    }
    const endless = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
    const started = performance.now();
    // 8 s and a stored 4 s gold (under half, so it is trusted): seconds between the two ends, whatever the machine's load.
    const [result] = await evaluate(superheroTasks(gold, [endless]), root, { goldCache: cache, jobs: 1, timeoutMs: 8_000 });
    const took = performance.now() - started;
    assert.equal(cache.counts().hits, 1);
    assert.equal(result.outcome, 'timeout');
    assert.match(result.error ?? '', /^prediction: /);
    assert.ok(took < 7_000, `interrupted after the 4 s the stored gold left, not the whole 8 s (${Math.round(took)} ms)`);
  });

  it("is used only where the gold's rows fit the bounds in use: the row limit, and each lane's share of it", async () => {
    await withConnection(async (db) => {
      const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
      const slot = await cache.slot(db, gold);
      const real = await readGoldQuery(db, gold, { maxRows: 1000 }, { timeoutMs: 10_000 });
      cache.write(slot!, real.gold.status === 'ok' ? real.gold.rows : [], 1);
      const goldWith = (maxRows: number, share: number) =>
        readGoldQuery(db, gold, { maxRows }, { timeoutMs: 10_000, goldCache: cache, jobs: share });
      assert.equal((await goldWith(40, 1)).gold.status, 'error', 'the stored 50 rows do not pass a 40-row limit: the gold runs and fails');
      assert.equal(cache.counts().hits, 0);
      assert.equal((await goldWith(100, 4)).gold.status, 'ok', 'four lanes: 25 rows each, so the gold runs');
      assert.equal(cache.counts().hits, 0);
      assert.equal((await goldWith(100, 2)).gold.status, 'ok');
      assert.equal(cache.counts().hits, 1, 'two lanes: 50 rows each');
    });
  });

  it('is never looked for on an engine other than SQLite', async () => {
    await withConnection(async (db) => {
      const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
      const server = new Proxy(db, {
        get: (target, key) => (key === 'engine' ? { ...target.engine, name: 'postgres' } : Reflect.get(target, key)),
      });
      assert.equal(await cache.slot(server, gold), undefined);
    });
  });
});

describe('the cache folder stays bounded', () => {
  it('deletes the least recently used entries past the bound, at the first store of a run', async () => {
    const folder = tempDir('ves-lens-gold-cache-');
    const now = Date.now() / 1000;
    // 8 KiB each: whole blocks, so that the size on disk (what the bound counts) is the size.
    const ENTRY = 8192;
    for (let i = 0; i < 6; i++) {
      const file = path.join(folder, `${i}.v8`);
      fs.writeFileSync(file, Buffer.alloc(ENTRY));
      fs.utimesSync(file, now - 100 + i, now - 100 + i);
    }
    fs.utimesSync(path.join(folder, '0.v8'), now, now); // the oldest, used last
    fs.writeFileSync(path.join(folder, 'other.txt'), Buffer.alloc(10_000));
    pruneFolder(folder, 3.5 * ENTRY);
    assert.deepEqual(fs.readdirSync(folder).sort(), ['0.v8', '4.v8', '5.v8', 'other.txt']);
    // The bound on the number of entries holds whatever their bytes.
    pruneFolder(folder, 100 * ENTRY, 2);
    assert.deepEqual(fs.readdirSync(folder).sort(), ['0.v8', '5.v8', 'other.txt']);

    // The first store of a run prunes: a cache with a small bound keeps only what fits.
    const { file } = superheroCopy();
    const db = await openDatabase(file);
    try {
      const cache = new GoldResultCache(folder, { folderBytes: ENTRY + 100 });
      const slot = await cache.slot(db, 'SELECT 1');
      cache.write(slot!, [[1]], 1);
      const left = fs.readdirSync(folder).filter((f) => f.endsWith('.v8'));
      assert.deepEqual(left.sort(), ['0.v8', path.basename(slot!.file)].sort());
    } finally {
      await db.close();
    }
  });
});

describe('shards merged into one report', () => {
  it('sum their gold-cache counts; one shard without the cache makes it null; reports from before it leave it out', () => {
    const shard = (hits: number, stored: number, folder = '/a') => ({ folder, hits, stored });
    assert.deepEqual(mergedGoldCacheCounts([shard(3, 1), shard(2, 0)]), shard(5, 1));
    assert.deepEqual(mergedGoldCacheCounts([shard(3, 1), shard(2, 0, '/b')]), shard(5, 1, '/a, /b'));
    assert.equal(mergedGoldCacheCounts([shard(3, 1), null]), null);
    assert.equal(mergedGoldCacheCounts([shard(3, 1), undefined]), null);
    assert.equal(mergedGoldCacheCounts([undefined, undefined]), undefined);
  });
});

describe("the run's line about the cache", () => {
  it('writes a folder under the home folder with ~, and any other folder as it is', () => {
    const home = os.homedir();
    const line = (folder: string) => goldCacheLine({ folder, hits: 2, stored: 1 });
    assert.equal(
      line(path.join(home, '.cache', 'ves-lens', 'gold-results')),
      'gold results: 2 taken from the cache, 1 stored (~/.cache/ves-lens/gold-results)',
    );
    assert.equal(
      line('/var/cache/ves-lens/gold-results'),
      'gold results: 2 taken from the cache, 1 stored (/var/cache/ves-lens/gold-results)',
    );
    // A sibling whose name only starts like the home folder is not under it.
    assert.equal(line(`${home}2/gold-results`), `gold results: 2 taken from the cache, 1 stored (${home}2/gold-results)`);
  });
});

describe('the database file under a running connection', () => {
  it('a file renamed over the path after the connection opened is neither read from the cache nor stored to it', async () => {
    const { file } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const db = await openDatabase(file);
    try {
      assert.ok(await cache.slot(db, 'SELECT count(*) FROM superhero'), 'the file the connection reads: a slot');
      // A refreshed dataset moved into place (rsync, mv): the connection still reads the old file.
      const fresh = `${file}.new`;
      fs.copyFileSync(file, fresh);
      await makeDatabase(fresh, 'DELETE FROM superhero WHERE id > 10');
      fs.renameSync(fresh, file);
      assert.equal(await cache.slot(db, 'SELECT count(*) FROM superhero'), undefined);
      const { gold } = await readGoldQuery(db, 'SELECT count(*) FROM superhero', { maxRows: 10 }, { timeoutMs: 30_000, goldCache: cache });
      assert.deepEqual(gold, { status: 'ok', rows: [[750]] }, 'the old file, which the connection reads');
      assert.deepEqual(entries(cache), [], "the old file's rows are not stored under the new file's identity");
    } finally {
      await db.close();
    }
    // A new connection reads the new file, and its result is the new file's.
    const again = await openDatabase(file);
    try {
      const { gold } = await readGoldQuery(
        again,
        'SELECT count(*) FROM superhero',
        { maxRows: 10 },
        { timeoutMs: 30_000, goldCache: cache },
      );
      assert.deepEqual(gold, { status: 'ok', rows: [[10]] });
      assert.equal(entries(cache).length, 1);
    } finally {
      await again.close();
    }
  });

  it('a database written while the gold ran keeps nothing', async () => {
    const { file } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const db = await openDatabase(file);
    try {
      const slot = await cache.slot(db, 'SELECT count(*) FROM superhero');
      const old = fs.statSync(file);
      fs.utimesSync(file, old.atime, new Date(old.mtimeMs + 5_000)); // what any write does to the file's times
      cache.write(slot!, [[750]], 1);
      assert.deepEqual([entries(cache).length, cache.counts().stored], [0, 0]);
    } finally {
      await db.close();
    }
  });

  it("looking a gold up keeps SQLite's read lock: another process still cannot write under a reading connection", async (t) => {
    const { file } = superheroCopy();
    const cache = new GoldResultCache(tempDir('ves-lens-gold-cache-'));
    const db = await openDatabase(file);
    const tryToWrite = () =>
      spawnSync(
        'python3',
        [
          '-c',
          'import sqlite3, sys\n' +
            'c = sqlite3.connect(sys.argv[1], timeout=0)\n' +
            'try:\n    c.execute("UPDATE superhero SET height_cm = 1 WHERE id = 1"); c.commit(); print("written")\n' +
            'except sqlite3.OperationalError as e:\n    print(e)',
          file,
        ],
        { encoding: 'utf8' },
      );
    if (tryToWrite().error) return t.skip('no python3 here');
    try {
      await db.all('BEGIN'); // a read transaction: SQLite holds a SHARED lock from its first read to COMMIT
      await db.all('SELECT count(*) FROM superhero');
      assert.equal(tryToWrite().stdout.trim(), 'database is locked');
      for (let i = 0; i < 3; i++) await cache.slot(db, `SELECT ${i} FROM superhero`);
      assert.equal(tryToWrite().stdout.trim(), 'database is locked', 'the lookups left the read lock in place');
      await db.all('COMMIT');
    } finally {
      await db.close();
    }
  });
});
