// The embedded PostgreSQL's threads: a second PGlite thread started for a connection kept waiting and ended when
// idle, a connection lent to one thread at a time, and one thread for good once memory is tight. A file of its own:
// each test file runs in its own process, and these instances' WASM memory beside the other file's would bring the
// process near the 960 MiB ceiling the engine watches (a CI run once met it there).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase, timeExecution } from '../../src/core/db/engines';
import { cachedCopy, workingCopy } from '../../src/core/db/pglite/embeddedCopy';
import { EmbeddedPostgres } from '../../src/core/db/pglite/embeddedPostgres';
import { embeddedTarget, serveCopy } from '../../src/core/db/pglite/pgliteEngine';
import { READ_ONLY, rows, sampleRoot } from './pgliteFixtures';
import { tempDir } from '../helpers';

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

  // A 100 MB string: its buffer's doublings grow the WASM memory past 256 MiB (never given back while the thread lives).
  const hungry = "SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 100000)";

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

  it('ends a thread whose statement grew its memory past 256 MiB once its session is free, not inside a transaction', async () => {
    const instance = new EmbeddedPostgres(() => workingCopy(kept), READ_ONLY);
    try {
      const [db] = await connectTwice(instance);
      const started = async () => (await rows(db, 'SELECT pg_postmaster_start_time()::text'))[0][0];
      const first = await started();
      assert.equal(await started(), first, 'an ordinary statement keeps the thread');
      const before = process.memoryUsage.rss();
      assert.deepEqual(await rows(db, hungry), [[100000000]]);
      const second = await started();
      assert.notEqual(second, first, 'the thread was started again');
      const after = process.memoryUsage.rss();
      assert.ok(after < before + 150 * 2 ** 20, `rss ${Math.round(before / 2 ** 20)} -> ${Math.round(after / 2 ** 20)} MiB`);
      // Inside a transaction the session's state lives in the thread: a result read in cursor batches of 1,000
      // rows, its memory grown by the first, is read to its end on the same thread, which ends after.
      const batches = await rows(db, `SELECT g, (${hungry}) FROM generate_series(1, 2500) g`);
      assert.equal(batches.length, 2500);
      assert.deepEqual(batches[2499], [2500, 100_000_000]);
      assert.notEqual(await started(), second, 'ended once the transaction did');
      await db.close();
    } finally {
      await instance.close();
    }
  });

  it("sheds a timing's thread before the next execution's clock starts, and sets a connection up again after", async () => {
    const instance = new EmbeddedPostgres(() => workingCopy(kept), READ_ONLY);
    const copy = path.join(root, `threads-${served++}`);
    serveCopy(embeddedTarget(copy, ''), Promise.resolve(instance));
    const target = embeddedTarget(copy, 'pg_catalog');
    const db = await openDatabase(target);
    try {
      for (let round = 0; round < 2; round++) {
        // Each execution on a fresh client that closes inside its BEGIN: the hungry one's thread ends with it.
        await timeExecution(target, hungry, 'full');
        const next = await timeExecution(target, 'SELECT 1', 'full');
        // A thread's start takes 0.35 s or more: paid inside the clock, it would show.
        assert.ok(next < 250, `SELECT 1 timed at ${Math.round(next)} ms after the hungry statement`);
      }
      // A connection kept open across the shed gets its settings again on the new thread.
      assert.deepEqual(await rows(db, 'SHOW search_path'), [['"pg_catalog"']]);
    } finally {
      await db.close();
      await instance.close();
    }
  });
});
