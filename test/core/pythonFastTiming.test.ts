// `--timing fast` on SQLite times its blocks in the Python process (src/core/timing/pythonTimer.ts, the script's
// fast_block): a real python3 on the real BIRD databases, n iterations per side in fast.ts's alternating order, a
// runaway query interrupted at the per-execution limit, an abort that kills the block in flight, a fetchall past the
// memory cap reported; without python3, fast mode falls back to node-sqlite3 and says so.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { QueryCancelled, QueryTimeout } from '../../src/core/db/database';
import { DEFAULT_FAST_TIMING, freshConnectionTimer, PairTimer, runPairTimer } from '../../src/core/timing/fast';
import { runClock, stopPythonTiming, timeBlockWithPython } from '../../src/core/timing/pythonTimer';
import { BIRD_DATA, birdDataMissing } from '../helpers';
import { pythonTimes } from '../pythonClock';

const SUPERHERO = path.join(BIRD_DATA, 'databases', 'superhero', 'superhero.sqlite');
const TOXICOLOGY = path.join(BIRD_DATA, 'databases', 'toxicology', 'toxicology.sqlite');
// 5,800 rows: draining them takes several times the first row.
const JOIN = 'SELECT T1.superhero_name FROM superhero AS T1 JOIN hero_power AS T2 ON T2.hero_id = T1.id';
const ONE_HERO = 'SELECT superhero_name FROM superhero WHERE id = 5';
const ATOMS = "SELECT count(*) FROM atom WHERE element = 'cl'";
const FOREVER = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

const block = (overrides: Partial<Parameters<typeof timeBlockWithPython>[0]> = {}) =>
  timeBlockWithPython({
    gold: { dbPath: SUPERHERO, body: JOIN },
    pred: { dbPath: SUPERHERO, body: ONE_HERO },
    quantity: 'full',
    iterations: 6,
    firstIndex: 0,
    executionLimitMs: 30_000,
    ...overrides,
  });

describe('fast timing blocks in Python sqlite3', { skip: birdDataMissing() }, () => {
  after(stopPythonTiming);

  it('returns n times per side, in the alternating order fast.ts uses, on each side its own database', async (t) => {
    if (!(await pythonTimes(t))) return;
    const even = await block({ iterations: 5, firstIndex: 0 });
    assert.equal(even.goldMs.length, 5);
    assert.equal(even.predMs.length, 5);
    assert.deepEqual(even.predFirst, [true, false, true, false, true]);
    // A block starting at an odd index starts with the gold.
    const odd = await block({ iterations: 3, firstIndex: 3 });
    assert.deepEqual(odd.predFirst, [false, true, false]);
    assert.ok([...even.goldMs, ...even.predMs].every((ms) => ms > 0));
    // The join drains 5,800 rows; one hero by its key is a single row. Medians: a block's first execution of a side
    // may be a cold one (a CI run's: 0.63 ms against 0.09-0.17 after), and one slow gold run is noise too.
    assert.ok(median(even.goldMs) > 3 * median(even.predMs), `${even.goldMs} vs ${even.predMs}`);
    const across = await block({ pred: { dbPath: TOXICOLOGY, body: ATOMS }, iterations: 2 });
    assert.equal(across.predMs.length, 2);
  });

  it('times the first row for VES and every row and the close for R-VES', async (t) => {
    if (!(await pythonTimes(t))) return;
    const firstRow = await block({ quantity: 'first-row', iterations: 8 });
    const full = await block({ quantity: 'full', iterations: 8 });
    assert.ok(median(full.goldMs) > 3 * median(firstRow.goldMs), `full ${median(full.goldMs)} ms, first row ${median(firstRow.goldMs)} ms`);
  });

  it('interrupts a runaway query at the per-execution limit (QueryTimeout), in time; the process times the next block', async (t) => {
    if (!(await pythonTimes(t))) return;
    const started = performance.now();
    await assert.rejects(block({ pred: { dbPath: SUPERHERO, body: FOREVER }, iterations: 10, executionLimitMs: 1000 }), QueryTimeout);
    const seconds = (performance.now() - started) / 1000;
    // The first execution of the prediction runs away: one limit, not ten or twenty of them (a busy machine's
    // start-up of the Python process fits in the margin).
    assert.ok(seconds < 6, `stopped after ${seconds.toFixed(2)} s, limit 1 s`);
    assert.equal((await block({ iterations: 2 })).goldMs.length, 2);
  });

  it('an abort kills the block in flight at once (QueryCancelled); the next block starts a new process', async (t) => {
    if (!(await pythonTimes(t))) return;
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(block({ gold: { dbPath: SUPERHERO, body: FOREVER }, signal: controller.signal }), QueryCancelled);
    assert.ok(performance.now() - started < 15_000, 'not after the 30 s execution limit');
    assert.equal((await block({ iterations: 2 })).predMs.length, 2);
  });

  it('reports a fetchall past the memory cap instead of taking the machine', async (t) => {
    if (!(await pythonTimes(t))) return;
    const huge = 'SELECT zeroblob(1000000) FROM superhero LIMIT 1000';
    await assert.rejects(
      block({ pred: { dbPath: SUPERHERO, body: huge }, iterations: 1 }),
      /a fast timing block ran out of memory: Python's fetchall needed more than the timing process's 448 MiB/,
    );
    assert.equal((await block({ iterations: 1 })).goldMs.length, 1);
  });

  it('PairTimer takes its blocks from Python, and `eval` says fast mode is timed by Python', async (t) => {
    if (!(await pythonTimes(t))) return;
    const timer = new PairTimer(freshConnectionTimer(SUPERHERO, JOIN), freshConnectionTimer(SUPERHERO, ONE_HERO), DEFAULT_FAST_TIMING);
    const timing = await runPairTimer(timer);
    assert.equal(timer.timedBy, 'python-sqlite3');
    assert.ok(timing.full!.ratio > 3, `full ratio ${timing.full!.ratio}`);
    assert.ok(timing['first-row']!.goldSamples.length >= DEFAULT_FAST_TIMING.minBlocks * DEFAULT_FAST_TIMING.minIterations);
    const clock = await runClock('sqlite', 'fast', ['ex', 'ves']);
    assert.equal(clock.inputs.timing_clock, 'python-sqlite3');
    assert.match(clock.inputs.timing_runtime ?? '', /^Python [\d.]+, SQLite [\d.]+$/);
    assert.match(clock.line?.text ?? '', /^fast timing: timed by Python [\d.]+'s sqlite3 \(SQLite [\d.]+\)/);
    // PostgreSQL, or no timed metric: nothing to say.
    assert.deepEqual(await runClock('postgres', 'fast', ['ves']), { inputs: {} });
    assert.deepEqual(await runClock('sqlite', 'fast', ['ex']), { inputs: {} });
  });
});

describe('fast timing without python3', { skip: birdDataMissing() }, () => {
  after(async () => {
    delete process.env.VES_LENS_PYTHON;
    await stopPythonTiming();
  });

  it('falls back to node-sqlite3 and says so', async () => {
    await stopPythonTiming();
    process.env.VES_LENS_PYTHON = path.join(BIRD_DATA, 'no-such-python');
    const timer = new PairTimer(freshConnectionTimer(SUPERHERO, JOIN), freshConnectionTimer(SUPERHERO, ONE_HERO), DEFAULT_FAST_TIMING);
    const timing = await runPairTimer(timer);
    assert.equal(timer.timedBy, 'node-sqlite3');
    assert.ok(timing.full!.ratio > 3, `full ratio ${timing.full!.ratio}`);
    const clock = await runClock('sqlite', 'fast', ['ves', 'rves']);
    assert.deepEqual(clock.inputs, { timing_clock: 'node-sqlite3' });
    assert.equal(clock.line?.fallback, true);
    assert.match(
      clock.line?.text ?? '',
      /^fast timing: timed by VES Lens's node-sqlite3, not as the scripts \(.*no-such-python was not found/,
    );
  });
});
