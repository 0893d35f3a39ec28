import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { ReadOnlyDatabase } from '../../src/core/db/database';
import { rvesBucketUncertain, rvesContribution, rvesReward, vesContribution } from '../../src/core/metrics/efficiency';
import { measureFast } from '../../src/core/timing/fast';
import { measureOfficial } from '../../src/core/timing/official';
import { medianInterval, officialClean, pythonMean } from '../../src/core/timing/stats';
import { makeDatabase, tempDir } from '../helpers';

describe('official 3σ cleaning', () => {
  it('keeps values strictly inside mean ± 3σ (population σ)', () => {
    const values = [...Array(20).fill(1), 100];
    // mean 5.71, σ 21.1: 100 is inside 3σ (63.3 + 5.7 = 69.0)? No: 100 > 69.0, so it is dropped.
    assert.deepEqual(officialClean(values), Array(20).fill(1));
  });
  it('keeps nothing when every value is equal (σ = 0): the official scripts then score 0', () => {
    assert.deepEqual(officialClean([2, 2, 2]), []);
  });
  it('averages as Python does', () => assert.equal(pythonMean([0.1, 0.2, 0.3]), (0.1 + 0.2 + 0.3) / 3));
});

describe('median interval', () => {
  it('is the range below six values', () => {
    assert.deepEqual(medianInterval([3, 1, 2]), { value: 2, low: 1, high: 3 });
  });
  it('uses exact binomial ranks: for 20 values, the 6th and 15th', () => {
    const values = Array.from({ length: 20 }, (_, i) => i + 1);
    assert.deepEqual(medianInterval(values), { value: 10.5, low: 6, high: 15 });
  });
  it('covers the true median about 95 % of the time', () => {
    let covered = 0;
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 2000; trial++) {
      const sample = Array.from({ length: 15 }, () => -Math.log(random())); // exponential, median ln 2
      const { low, high } = medianInterval(sample);
      if (low <= Math.LN2 && Math.LN2 <= high) covered++;
    }
    assert.ok(covered / 2000 > 0.93 && covered / 2000 < 0.999, `coverage ${covered / 2000}`);
  });
});

describe('VES and R-VES contributions', () => {
  it('VES is sqrt(ratio), 0 for no ratio', () => {
    assert.equal(vesContribution(4), 2);
    assert.equal(vesContribution(0), 0);
  });
  it('R-VES buckets as mini_dev, edges included', () => {
    const cases: [number, number][] = [[0, 0], [0.1, 0.25], [0.25, 0.5], [0.49, 0.5], [0.5, 0.75], [0.99, 0.75], [1, 1], [1.99, 1], [2, 1.25], [50, 1.25]];
    for (const [ratio, reward] of cases) assert.equal(rvesReward(ratio), reward, `ratio ${ratio}`);
    assert.equal(rvesContribution(2), Math.sqrt(1.25));
  });
  it('flags an interval that crosses a bucket edge', () => {
    assert.equal(rvesBucketUncertain(0.97, 1.04), true);
    assert.equal(rvesBucketUncertain(1.1, 1.5), false);
  });
});

describe('timing protocols on a real database', () => {
  let dbFile: string;
  const slow = 'SELECT count(*) FROM t a, t b WHERE a.v < b.v';
  const quick = 'SELECT count(*) FROM t';
  before(async () => {
    dbFile = await makeDatabase(
      path.join(tempDir(), 'timing.sqlite'),
      'CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 600) INSERT INTO t SELECT x, x * 7 % 601 FROM n;',
    );
  });

  it('fast: sees a much faster prediction as a ratio well above 1, with an interval around it', async () => {
    const db = await ReadOnlyDatabase.open(dbFile);
    try {
      const timing = await measureFast(db, slow, quick, { minRounds: 5, maxRounds: 15, precision: 0.05, budgetMs: 3000, minSampleMs: 2, timeoutMs: 10_000 });
      assert.equal(timing.protocol, 'fast');
      assert.ok(timing.ratio > 5, `ratio ${timing.ratio}`);
      assert.ok(timing.low <= timing.ratio && timing.ratio <= timing.high);
      assert.ok(timing.goldMs > timing.predMs);
      assert.equal(timing.goldSamples.length, timing.predSamples.length);
      assert.ok(timing.runs >= 3);
    } finally {
      await db.close();
    }
  });

  it('official: times the set number of runs on fresh connections and cleans at 3σ', async () => {
    for (const protocol of ['ves', 'rves'] as const) {
      const timing = await measureOfficial(dbFile, quick, slow, protocol, 30_000, 12);
      assert.equal(timing.protocol, `official-${protocol}`);
      assert.equal(timing.runs, 12);
      assert.equal(timing.goldSamples.length, 12);
      assert.ok(timing.ratio > 0 && timing.ratio < 1, `a slower prediction has ratio below 1: ${timing.ratio}`);
    }
  });

  it('official: a loop that outlasts the limit scores 0, as under func_timeout', async () => {
    const timing = await measureOfficial(dbFile, slow, slow, 'rves', 50, 100);
    assert.equal(timing.ratio, 0);
    assert.match(timing.note ?? '', /did not finish within 0\.05 s/);
  });
});
