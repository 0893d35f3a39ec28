// `--timing official` on SQLite runs the scripts' loops in Python's sqlite3 (src/core/timing/pythonTimer.ts): a real
// python3 on the real BIRD database, 100 + 100 times through the same cleaning and score path as VES Lens's own
// loop, a runaway query interrupted at the loop's limit, a process that stops answering killed, a fetchall past
// the memory cap reported.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { QueryCancelled } from '../../src/core/db/database';
import { measureOfficial } from '../../src/core/timing/official';
import { officialTimingClock, stopPythonTiming, timeWithPython } from '../../src/core/timing/pythonTimer';
import { officialClean, pythonMean } from '../../src/core/timing/stats';
import { BIRD_DATA, birdDataMissing, REPO_ROOT, tempDir } from '../helpers';
import { pythonTimes } from '../pythonClock';

const SUPERHERO = path.join(BIRD_DATA, 'databases', 'superhero', 'superhero.sqlite');
const JOIN = 'SELECT T1.superhero_name FROM superhero AS T1 JOIN hero_power AS T2 ON T2.hero_id = T1.id';
const JOIN_OTHER_ORDER = 'SELECT T1.superhero_name FROM hero_power AS T2 JOIN superhero AS T1 ON T2.hero_id = T1.id';
const FOREVER = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

describe('official timing in Python sqlite3', { skip: birdDataMissing() }, () => {
  after(stopPythonTiming);

  it('says python3 times it, and runs the scripts loop 100 + 100 times through the official cleaning', async (t) => {
    if (!(await pythonTimes(t))) return;
    const clock = await officialTimingClock();
    assert.match(clock.clock === 'python-sqlite3' ? clock.sqlite : '', /^3\.\d+/);
    for (const protocol of ['rves', 'ves'] as const) {
      const timing = await measureOfficial(SUPERHERO, JOIN, JOIN_OTHER_ORDER, protocol, 30_000);
      assert.equal(timing.protocol, `official-${protocol}`);
      assert.equal(timing.goldSamples.length, 100);
      assert.equal(timing.predSamples.length, 100);
      assert.equal(timing.runs, 100);
      assert.ok(timing.goldSamples.every((ms) => ms > 0) && timing.predSamples.every((ms) => ms > 0));
      // The same path as VES Lens's own loop: ratios of the times, 3σ cleaning, Python's mean.
      const ratios = timing.goldSamples.map((gold, i) => gold / timing.predSamples[i]);
      const expected = pythonMean(officialClean(ratios));
      assert.ok(Math.abs(timing.ratio - expected) < 1e-9 * expected, `${timing.ratio} vs ${expected}`);
      assert.match(timing.note ?? '', /ratios dropped by the 3σ cleaning/);
    }
  });

  it('times cursor.execute alone for VES and the whole fetchall for R-VES', async (t) => {
    if (!(await pythonTimes(t))) return;
    const ves = await measureOfficial(SUPERHERO, JOIN, JOIN, 'ves', 30_000);
    const rves = await measureOfficial(SUPERHERO, JOIN, JOIN, 'rves', 30_000);
    // 5,800 rows: fetching them all takes several times the first step.
    assert.ok(rves.goldMs > 3 * ves.goldMs, `R-VES ${rves.goldMs} ms vs VES ${ves.goldMs} ms`);
  });

  it('interrupts a runaway query at the loop limit (iterations x time limit) and scores 0', async (t) => {
    if (!(await pythonTimes(t))) return;
    const started = performance.now();
    const timing = await measureOfficial(SUPERHERO, 'SELECT 1', FOREVER, 'rves', 400, 2);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 8, `stopped after ${seconds.toFixed(2)} s, limit 0.8 s (the query never ends)`);
    assert.equal(timing.ratio, 0);
    assert.match(timing.note ?? '', /did not finish within 0\.8 s \(2 × the 0\.4 s time limit, as the scripts' func_timeout\)/);
    // The process survives its interrupted query and times the next pair.
    const next = await measureOfficial(SUPERHERO, 'SELECT 1', 'SELECT 2', 'ves', 30_000, 5);
    assert.equal(next.predSamples.length, 5);
  });

  it('reports a fetchall past the memory cap instead of taking the machine', async (t) => {
    if (!(await pythonTimes(t))) return;
    // 1,000 values of 1 MB: a gigabyte in Python's list, past the timing process's 448 MiB.
    const huge = 'SELECT zeroblob(1000000) FROM superhero LIMIT 1000';
    await assert.rejects(
      timeWithPython({ dbPath: SUPERHERO, gold: 'SELECT 1', pred: huge, protocol: 'rves', iterations: 1, loopLimitMs: 60_000 }),
      /the official loop ran out of memory: Python's fetchall needed more than the timing process's 448 MiB/,
    );
    const next = await measureOfficial(SUPERHERO, 'SELECT 1', 'SELECT 2', 'rves', 30_000, 3);
    assert.equal(next.goldSamples.length, 3);
  });
});

describe('official timing in Python sqlite3: scores and signals', { skip: birdDataMissing() }, () => {
  after(stopPythonTiming);

  it("scores 0 when Python's sqlite3 finds set(pred) != set(gold), as the scripts do, and says why", async (t) => {
    if (!(await pythonTimes(t))) return;
    const timing = await measureOfficial(SUPERHERO, 'SELECT 1', 'SELECT 2', 'rves', 30_000, 5);
    assert.equal(timing.ratio, 0);
    assert.match(timing.note ?? '', /returns different rows for the two queries \(set\(pred\) != set\(gold\).*score it 0/);
  });

  it('an abort kills the loop in flight at once (QueryCancelled); the next pair starts a new process', async (t) => {
    if (!(await pythonTimes(t))) return;
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(
      timeWithPython({
        dbPath: SUPERHERO,
        gold: 'SELECT 1',
        pred: FOREVER,
        protocol: 'rves',
        iterations: 1,
        loopLimitMs: 60_000,
        signal: controller.signal,
      }),
      QueryCancelled,
    );
    assert.ok(performance.now() - started < 20_000, 'not after the 60 s loop limit');
    const next = await measureOfficial(SUPERHERO, JOIN, JOIN_OTHER_ORDER, 'ves', 30_000, 3);
    assert.equal(next.predSamples.length, 3);
  });

  it("a terminal's Ctrl-C (SIGINT to the whole process group) does not reach the timing process", async (t) => {
    if (!(await pythonTimes(t))) return;
    // A real process in a group of its own, which (as an interruptible run) handles SIGINT itself.
    const script = path.join(tempDir('ves-lens-child-'), 'child.mts');
    fs.writeFileSync(
      script,
      `import { officialTimingClock, timeWithPython } from ${JSON.stringify(path.join(REPO_ROOT, 'src/core/timing/pythonTimer.ts'))};
       process.on('SIGINT', () => process.stderr.write('SIGINT handled\\n'));
       await officialTimingClock();
       process.stderr.write('timing\\n');
       const times = await timeWithPython({ dbPath: ${JSON.stringify(SUPERHERO)}, gold: ${JSON.stringify(JOIN)},
         pred: ${JSON.stringify(JOIN_OTHER_ORDER)}, protocol: 'rves', iterations: 100, loopLimitMs: 120000 });
       process.stdout.write(JSON.stringify({ pred: times.predSeconds.length, gold: times.goldSeconds.length }));
       process.exit(0);`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const started = Date.now();
    while (!stderr.includes('timing')) {
      assert.ok(Date.now() - started < 30_000, `the child never started timing: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 150)); // the loop is running
    process.kill(-child.pid!, 'SIGINT');
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /SIGINT handled/);
    assert.deepEqual(JSON.parse(stdout), { pred: 100, gold: 100 }, 'the loop in flight finished whole');
  });
});

describe('a Python that stops answering', { skip: birdDataMissing() }, () => {
  const saved = process.env.VES_LENS_PYTHON;
  afterEach(async () => {
    await stopPythonTiming();
    if (saved === undefined) delete process.env.VES_LENS_PYTHON;
    else process.env.VES_LENS_PYTHON = saved;
  });

  it('is killed past the loop limit and the pair scores 0 as timed out', async () => {
    // Says it is ready, then never answers: only the kill can end the request.
    const fake = path.join(tempDir(), 'python-hangs');
    fs.writeFileSync(fake, '#!/bin/sh\necho \'{"ready": true, "python": "0", "sqlite": "0"}\'\nexec sleep 600\n', { mode: 0o755 });
    process.env.VES_LENS_PYTHON = fake;
    assert.equal((await officialTimingClock()).clock, 'python-sqlite3');
    const started = performance.now();
    const timing = await measureOfficial(SUPERHERO, 'SELECT 1', 'SELECT 2', 'rves', 100, 2);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 20, `answered after ${seconds.toFixed(1)} s, the fake Python never answers`);
    assert.equal(timing.ratio, 0);
    assert.match(timing.note ?? '', /did not finish within 0\.2 s/);
  });

  it('falls back to VES Lens own clock, with the reason, when the interpreter is missing', async () => {
    process.env.VES_LENS_PYTHON = path.join(tempDir(), 'no-such-python');
    const clock = await officialTimingClock();
    assert.equal(clock.clock, 'node-sqlite3');
    assert.match(clock.clock === 'node-sqlite3' ? clock.reason : '', /no-such-python was not found on PATH/);
    const timing = await measureOfficial(SUPERHERO, 'SELECT 1', 'SELECT 2', 'rves', 30_000, 4);
    assert.equal(timing.goldSamples.length, 4);
  });
});
