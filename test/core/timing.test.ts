import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase, timeExecution } from '../../src/core/db/engines';
import { rvesBucketUncertain, rvesContribution, rvesOutlook, rvesReward, vesContribution } from '../../src/core/metrics/efficiency';
import { estimateRatio, probabilityBelow } from '../../src/core/timing/estimate';
import {
  DEFAULT_FAST_TIMING,
  ExecutionTimer,
  FastTimingOptions,
  measureFast,
  PairTimer,
  probabilityBelowFor,
  runPairTimer,
  timeInPasses,
  freshConnectionTimer,
} from '../../src/core/timing/fast';
import { extraBlocks, RunAllocation, varianceWeight } from '../../src/core/timing/runAllocation';
import { sameProgram } from '../../src/core/timing/sameProgram';
import { speedVerdict } from '../../src/core/timing/verdict';
import { TimedQuantity } from '../../src/core/timing/types';
import { measureOfficial } from '../../src/core/timing/official';
import { hodgesLehmann, officialClean, pythonMean } from '../../src/core/timing/stats';
import { median, sampleStandardDeviation } from 'simple-statistics';
import { makeDatabase, tempDir } from '../helpers';
import { Question } from '../../src/core/bird/questions';
import { evaluateTasks } from '../../src/core/eval/evaluate';
import { EvalTask } from '../../src/core/bird/tasks';
import { reportReason } from '../../src/app/scoreExplanations';
import { sqliteFolder } from '../../src/core/db/source';

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

describe('Hodges–Lehmann centre', () => {
  it('is the median of the pairwise means, each value with itself included', () => {
    // Walsh averages of 1, 2, 3, 10: 1 1.5 2 2 2.5 3 5.5 6 6.5 10 → median 2.75.
    assert.equal(hodgesLehmann([1, 2, 3, 10]), 2.75);
    assert.equal(hodgesLehmann([4]), 4);
    assert.equal(hodgesLehmann([3, 1, 2]), 2);
  });
  it('is not dragged by one stall, as a mean is', () => {
    const quiet = [0.01, -0.02, 0.03, 0, -0.01, 0.02, -0.03, 0.01, 0, -0.01];
    const stalled = [...quiet.slice(1), 3.4]; // one execution 30x slow
    assert.ok(Math.abs(hodgesLehmann(stalled) - hodgesLehmann(quiet)) < 0.02, `${hodgesLehmann(stalled)}`);
    assert.ok(pythonMean(stalled) > 0.3);
  });
});

describe('VES and R-VES contributions', () => {
  it('VES is sqrt(ratio), 0 for no ratio', () => {
    assert.equal(vesContribution(4), 2);
    assert.equal(vesContribution(0), 0);
  });
  it('R-VES buckets as mini_dev, edges included', () => {
    const cases: [number, number][] = [
      [0, 0],
      [0.1, 0.25],
      [0.25, 0.5],
      [0.49, 0.5],
      [0.5, 0.75],
      [0.99, 0.75],
      [1, 1],
      [1.99, 1],
      [2, 1.25],
      [50, 1.25],
    ];
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
  // As slow, with quick's result: the official loop's correctness run (set(pred) == set(gold)) passes, so it is timed.
  const slowSameResult = 'SELECT count(*) FROM t a WHERE (SELECT count(*) FROM t b WHERE a.v < b.v) >= 0';
  before(async () => {
    dbFile = await makeDatabase(
      path.join(tempDir(), 'timing.sqlite'),
      'CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 600) INSERT INTO t SELECT x, x * 7 % 601 FROM n;',
    );
  });

  it('fast: sees a much faster prediction as a ratio well above 1, both quantities, in blocks, on fresh connections', async () => {
    const timing = await measureFast(dbFile, slow, quick, { ...DEFAULT_FAST_TIMING, timeoutMs: 10_000 });
    for (const quantity of ['first-row', 'full'] as const) {
      const t = timing[quantity]!;
      assert.equal(t.protocol, 'fast');
      assert.equal(t.quantity, quantity);
      assert.ok(t.ratio > 5, `${quantity} ratio ${t.ratio}`);
      assert.ok(t.low <= t.ratio && t.ratio <= t.high);
      assert.ok(t.goldMs > t.predMs);
      assert.equal(t.goldSamples.length, t.predSamples.length);
      // The full ratio only needs its R-VES bucket, and a ratio this far from every edge settles it in one block.
      assert.ok(
        (t.blocks ?? 0) >= (quantity === 'full' ? 1 : DEFAULT_FAST_TIMING.minBlocks) && (t.blocks ?? 0) <= DEFAULT_FAST_TIMING.maxBlocks,
      );
      assert.ok(t.runs >= t.goldSamples.length, 'each sample is at least one execution');
    }
  });

  it('eval scores 0, as the official scripts do, a pair whose 100-iteration loop would outlast the limit, and stops timing it', async () => {
    const root = tempDir();
    await makeDatabase(
      path.join(root, 'limit', 'limit.sqlite'),
      'CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3);',
    );
    const question: Question = { index: 0, questionId: 0, dbId: 'limit', question: '', evidence: '', difficulty: 'simple' };
    const task: EvalTask = { question, goldSql: 'SELECT count(*) FROM t', predictedSql: 'SELECT count(id) FROM t', notes: [] };
    const score = (fastTiming?: Partial<FastTimingOptions>) =>
      evaluateTasks([task], {
        source: sqliteFolder(root),
        metrics: ['ex', 'ves', 'rves'],
        timing: 'fast',
        timeoutMs: 10_000,
        maxRows: 100,
        fastTiming,
      });
    // A 5 ms limit: 100 iterations of two fresh-connection executions take far longer.
    const [cut] = await score({ officialLimitMs: 5 });
    assert.equal(cut.ex, 1);
    assert.ok(cut.time_ratio! > 0, 'the measured ratio is still shown');
    assert.equal(cut.ves, 0);
    assert.equal(cut.rves, 0);
    assert.equal(cut.rves_reward, 0);
    assert.match(
      cut.notes.join('\n'),
      /official loop of 100 iterations would take about [\d.]+ s, past the 0\.005 s limit: the official scripts cut it off and score 0/,
    );
    assert.match(cut.notes.join('\n'), /in 1 block\b/, 'one block: more could not change the score');
    assert.match(
      reportReason(cut),
      /^correct, but its official timing loop would outlast the limit: VES and R-VES 0, as officially \([\d.]+× gold's speed\)$/,
      'the report row says why',
    );
    assert.deepEqual(cut.past_official_limit, ['ves', 'rves']);
    const [kept] = await score();
    assert.ok(kept.ves! > 0 && kept.rves! > 0);
    assert.doesNotMatch(kept.notes.join('\n'), /official loop/);
  });

  it("a run's extra blocks go to the real pair that dominates the VES total, not to the pair at 1×", async () => {
    const runAllocation: RunAllocation = { extraShare: 5, officialShare: 1, maxBlocks: 5, precision: 10, dominantShares: 1 };
    const options = { ...OWN_THREE, timeoutMs: 10_000, runAllocation };
    // The cross join's count against a plain count: the prediction is far faster, and √ratio carries its noise.
    const heavy = new PairTimer(freshConnectionTimer(dbFile, slow), freshConnectionTimer(dbFile, quick), options);
    const even = new PairTimer(freshConnectionTimer(dbFile, quick), freshConnectionTimer(dbFile, 'SELECT count(v) FROM t'), options);
    const summary = await timeInPasses([heavy, even]);
    // How many extra blocks depends on the times measured here: the meaning is that the heavy pair gets more than the
    // even share of three own blocks, and the pair at 1x gets fewer extra than it (usually none).
    const extraOf = (timer: PairTimer) => timer.blocksOf('first-row') - 3;
    assert.ok(extraOf(heavy) > 0 && heavy.blocksOf('first-row') <= 5, `heavy pair: ${heavy.blocksOf('first-row')} blocks`);
    assert.ok(extraOf(even) >= 0 && extraOf(even) < extraOf(heavy), `even pair: ${even.blocksOf('first-row')} blocks`);
    assert.equal(summary.extraBlocks, extraOf(heavy) + extraOf(even));
    assert.ok(heavy.result('first-row').ratio > 5);
  });

  it('first row is prepare plus one step: a query whose rows come slowly has a fast first row', async () => {
    // Each outer row runs a correlated count over the whole table: the first row is quick, all rows are not.
    const correlated = 'SELECT a.id, (SELECT count(*) FROM t b WHERE b.v < a.v) FROM t a';
    const first = await timeExecution(dbFile, correlated, 'first-row');
    const full = await timeExecution(dbFile, correlated, 'full');
    assert.ok(full > 5 * first, `first row ${first} ms, full ${full} ms`);
  });

  it('official: times the set number of runs on fresh connections and cleans at 3σ', async () => {
    for (const protocol of ['ves', 'rves'] as const) {
      const timing = await measureOfficial(dbFile, quick, slowSameResult, protocol, 30_000, 12);
      assert.equal(timing.protocol, `official-${protocol}`);
      assert.equal(timing.runs, 12);
      assert.equal(timing.goldSamples.length, 12);
      assert.ok(timing.ratio > 0 && timing.ratio < 1, `a slower prediction has ratio below 1: ${timing.ratio}`);
    }
  });

  it('official: a loop that outlasts 100 × the time limit scores 0, as under func_timeout(meta_time_out * iterate_num)', async () => {
    // A 0.05 ms time limit: the loop may take 100 × 0.05 ms = 5 ms, far less than 200 executions of the cross join.
    const timing = await measureOfficial(dbFile, slow, slow, 'rves', 0.05, 100);
    assert.equal(timing.ratio, 0);
    assert.match(timing.note ?? '', /did not finish within 0\.005 s \(100 × the 0\.00005 s time limit/);
    // The same pair with a limit per iteration it meets runs its 100 iterations: the limit is the loop's, not one execution's.
    const single = await timeExecution(dbFile, slowSameResult, 'full');
    const whole = await measureOfficial(dbFile, quick, slowSameResult, 'rves', Math.max(5, 4 * single), 100);
    assert.equal(whole.runs, 100);
    assert.ok(whole.ratio > 0);
  });
});

describe('same program', () => {
  let db: DatabaseConnection;
  before(async () => {
    const file = await makeDatabase(path.join(tempDir(), 'same.sqlite'), 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, v INTEGER);');
    db = await openDatabase(file);
  });
  it('holds for text that differs only in spacing, case and aliases', async () => {
    assert.equal(await sameProgram(db, 'SELECT name FROM t WHERE v > 3', 'select  T1.name\nFROM t AS T1 WHERE T1.v > 3'), true);
  });
  it('never holds for another literal, another column or another order', async () => {
    assert.equal(await sameProgram(db, 'SELECT name FROM t WHERE v > 3', 'SELECT name FROM t WHERE v > 4'), false);
    assert.equal(await sameProgram(db, "SELECT name FROM t WHERE name = 'a'", "SELECT name FROM t WHERE name = 'b'"), false);
    assert.equal(await sameProgram(db, 'SELECT name FROM t', 'SELECT v FROM t'), false);
    assert.equal(await sameProgram(db, 'SELECT name FROM t ORDER BY v', 'SELECT name FROM t ORDER BY v DESC'), false);
  });
  it('is false when a query does not compile', async () => {
    assert.equal(await sameProgram(db, 'SELECT nope FROM t', 'SELECT nope FROM t'), false);
  });
});

/** A seeded synthetic pair: gold and prediction take `goldMs` and `predMs` times log-normal noise of `noise`. */
function syntheticPair(goldMs: number, predMs: number, noise: number, seed: number): [ExecutionTimer, ExecutionTimer] {
  let state = seed;
  const uniform = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  const gaussian = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const timer =
    (ms: number): ExecutionTimer =>
    async () =>
      ms * Math.exp(noise * gaussian());
  return [timer(goldMs), timer(predMs)];
}

const SYNTHETIC: FastTimingOptions = {
  ...DEFAULT_FAST_TIMING,
  quantities: ['full'],
  settle: { ratioOf: [], bucketOf: ['full'] },
  blockPauseMs: 0,
  pairBudgetMs: Infinity,
};

describe('fast protocol on synthetic samplers', () => {
  it('stops at the minimum blocks when the bucket is clear', async () => {
    const [gold, pred] = syntheticPair(3, 1, 0.05, 7); // ratio 3: far inside the 1.25 bucket
    const timer = new PairTimer(gold, pred, SYNTHETIC);
    const timing = (await runPairTimer(timer)).full!;
    assert.equal(timer.blockCount, SYNTHETIC.minBlocks);
    assert.ok(timer.settled);
    assert.ok(
      timing.low <= 3 && 3 <= timing.high && Math.abs(Math.log(timing.ratio / 3)) < 0.15,
      `ratio ${timing.ratio} [${timing.low}, ${timing.high}]`,
    );
    const outlook = rvesOutlook(probabilityBelowFor({ ratio: timing.ratio, ...timing.spread! }));
    assert.equal(outlook.reward, 1.25);
    assert.equal(outlook.uncertain, false);
  });

  it('settles a bucket far from every edge after one block of long iterations, but still pins down a ratio that VES needs', async () => {
    // Ratio 8 on 45 ms iterations: half or twice that stays in the 1.25 bucket, so more blocks could not change the reward.
    const bucketOnly = new PairTimer(...syntheticPair(40, 5, 0.05, 31), SYNTHETIC);
    const timing = (await runPairTimer(bucketOnly)).full!;
    assert.equal(bucketOnly.blockCount, 1);
    assert.ok(bucketOnly.settled);
    assert.equal(rvesOutlook(probabilityBelowFor({ ratio: timing.ratio, ...timing.spread! })).reward, 1.25);
    assert.ok(timing.low <= 8 && 8 <= timing.high, `one block's interval is wide: [${timing.low}, ${timing.high}]`);
    const ratioToo = new PairTimer(...syntheticPair(40, 5, 0.05, 31), { ...SYNTHETIC, settle: { ratioOf: ['full'], bucketOf: ['full'] } });
    await runPairTimer(ratioToo);
    assert.ok(ratioToo.blockCount >= SYNTHETIC.minBlocks);
    // Ratio 3: twice as small would be another bucket: the usual minimum of blocks.
    const nearer = new PairTimer(...syntheticPair(30, 10, 0.05, 32), SYNTHETIC);
    await runPairTimer(nearer);
    assert.equal(nearer.blockCount, SYNTHETIC.minBlocks);
    // Short iterations never settle in one block: a true ratio of 1.5 whose first kept gold execution stalls
    // (0.6 ms → 6 ms) must not lock in the 1.25 bucket.
    let goldRuns = 0;
    const stalling: ExecutionTimer = async () => (++goldRuns === 3 ? 6 : 0.6);
    const steady: ExecutionTimer = async () => 0.4;
    const short = new PairTimer(stalling, steady, SYNTHETIC);
    const shortTiming = (await runPairTimer(short)).full!;
    assert.ok(short.blockCount >= SYNTHETIC.minBlocks, `${short.blockCount} blocks`);
    assert.notEqual(rvesOutlook(probabilityBelowFor({ ratio: shortTiming.ratio, ...shortTiming.spread! })).reward, 1.25);
  });

  it('near a bucket edge says it is uncertain, gives each bucket its probability, and stops once the ratio is known', async () => {
    const [gold, pred] = syntheticPair(1, 1, 0.03, 11); // ratio 1: exactly on the 0.75 | 1 edge
    const timer = new PairTimer(gold, pred, SYNTHETIC);
    const timing = (await runPairTimer(timer)).full!;
    assert.ok(timer.blockCount >= SYNTHETIC.minBlocks && timer.blockCount <= SYNTHETIC.maxBlocks);
    // More blocks would not settle a ratio that sits on the edge: it stops when the ratio is within the precision.
    assert.ok(Math.log(timing.high / timing.ratio) <= SYNTHETIC.precision || timer.blockCount === SYNTHETIC.maxBlocks);
    const outlook = rvesOutlook(probabilityBelowFor({ ratio: timing.ratio, ...timing.spread! }));
    assert.equal(outlook.uncertain, true);
    assert.ok(outlook.probabilities['1'] > 0.1 && outlook.probabilities['0.75'] > 0.1, JSON.stringify(outlook.probabilities));
    const sum = Object.values(outlook.probabilities).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 0.01, `probabilities sum to ${sum}`);
    assert.ok(outlook.expectedContribution > Math.sqrt(0.75) && outlook.expectedContribution < 1);
  });

  it('stops each quantity on its own: a clear R-VES bucket does not wait for a first-row ratio still moving', async () => {
    // First row: ratio 1 with heavy noise (never within the precision, so it runs to maxBlocks); all rows: ratio 3.
    const [noisyGold, noisyPred] = syntheticPair(1, 1, 0.5, 21);
    const [clearGold, clearPred] = syntheticPair(3, 1, 0.02, 22);
    const executions = { 'first-row': 0, full: 0 };
    const timer =
      (first: ExecutionTimer, full: ExecutionTimer): ExecutionTimer =>
      (quantity, limits) => {
        executions[quantity]++;
        return quantity === 'first-row' ? first(quantity, limits) : full(quantity, limits);
      };
    const options: FastTimingOptions = {
      ...SYNTHETIC,
      quantities: ['first-row', 'full'],
      settle: { ratioOf: ['first-row'], bucketOf: ['full'] },
    };
    const pair = new PairTimer(timer(noisyGold, clearGold), timer(noisyPred, clearPred), options);
    const timing = await runPairTimer(pair);
    assert.equal(timing['first-row']!.blocks, options.maxBlocks);
    assert.equal(timing.full!.blocks, options.minBlocks);
    assert.match(timing['first-row']!.note!, /not settled/);
    assert.doesNotMatch(timing.full!.note!, /not settled/);
    assert.ok(executions.full < executions['first-row'], JSON.stringify(executions));
  });

  it("keeps a long all-rows warm-up iteration as its first block once the first row's warm-up has run the queries", async () => {
    // First row 0.4 ms, all rows 60 ms: the all-rows warm-up iteration is long and comes second, so it is kept;
    // the first row's warm-up (the queries' first executions) never is.
    const calls: TimedQuantity[] = [];
    const timer =
      (firstMs: number, fullMs: number): ExecutionTimer =>
      async (quantity) => (calls.push(quantity), quantity === 'first-row' ? firstMs : fullMs);
    const options: FastTimingOptions = { ...SYNTHETIC, quantities: ['first-row', 'full'], settle: { ratioOf: [], bucketOf: ['full'] } };
    const pair = new PairTimer(timer(0.4, 60), timer(0.4, 30), options);
    await pair.runBlock();
    const fullCalls = calls.filter((q) => q === 'full').length;
    assert.equal(pair.blocksOf('full'), 1);
    assert.equal(fullCalls, 2, 'one all-rows iteration (a gold and a prediction execution): the warm-up kept as block 1');
    assert.equal(pair.blocksOf('first-row'), 1);
    assert.ok(calls.filter((q) => q === 'first-row').length > 2 * 2, 'the first row still warms up (2 iterations) before its block');
    assert.equal(pair.result('full').runs, 1);
    // Long first rows: their warm-up is the queries' first execution and is still left out.
    const first: TimedQuantity[] = [];
    const longFirst: ExecutionTimer = async (quantity) => (first.push(quantity), 30);
    const longPair = new PairTimer(longFirst, longFirst, {
      ...options,
      quantities: ['first-row'],
      settle: { ratioOf: ['first-row'], bucketOf: [] },
    });
    await longPair.runBlock();
    assert.equal(longPair.blocksOf('first-row'), 1);
    assert.equal(first.length, 4, 'a warm-up iteration left out, then a block of one iteration');
  });

  it('never flips a settled reward between repeat runs, and its intervals cover repeat runs', async () => {
    // Ratios a fair way from the bucket edges (0.25, 0.5, 1, 2), and the noise of a sub-millisecond query;
    // each truth timed as 5 independent pairs of runs.
    const truths = [0.15, 0.35, 0.7, 1.4, 3, 5];
    let settledPairs = 0;
    let covered = 0;
    let total = 0;
    for (const [i, truth] of truths.entries()) {
      for (let seed = 0; seed < 5; seed++) {
        const first = (await runPairTimer(new PairTimer(...syntheticPair(truth, 1, 0.1, 100 + 10 * i + seed), SYNTHETIC))).full!;
        const second = (await runPairTimer(new PairTimer(...syntheticPair(truth, 1, 0.1, 900 + 10 * i + seed), SYNTHETIC))).full!;
        const a = rvesOutlook(probabilityBelowFor({ ratio: first.ratio, ...first.spread! }));
        const b = rvesOutlook(probabilityBelowFor({ ratio: second.ratio, ...second.spread! }));
        if (!a.uncertain && !b.uncertain) {
          settledPairs++;
          assert.equal(a.reward, b.reward, `ratio ${truth}: ${first.ratio} vs ${second.ratio}`);
          assert.equal(a.reward, rvesReward(truth));
        }
        total++;
        if (first.low <= second.ratio && second.ratio <= first.high) covered++;
      }
    }
    assert.ok(settledPairs >= 20, `${settledPairs} settled`);
    assert.ok(covered / total >= 0.9, `coverage ${covered}/${total}`);
  });
});

/** A synthetic pair whose executions also take real time (about 1 ms each), so that blocks have a cost. */
function costlyPair(goldMs: number, predMs: number, noise: number, seed: number): [ExecutionTimer, ExecutionTimer] {
  const wait = () => new Promise((resolve) => setTimeout(resolve, 1));
  return syntheticPair(goldMs, predMs, noise, seed).map((timer) => async (quantity, limits) => (await wait(), timer(quantity, limits))) as [
    ExecutionTimer,
    ExecutionTimer,
  ];
}

/** VES only: first-row ratios, three own blocks each, every one settled by its own rules after them. */
const OWN_THREE: FastTimingOptions = {
  ...SYNTHETIC,
  quantities: ['first-row'],
  settle: { ratioOf: ['first-row'], bucketOf: [] },
  minBlocks: 3,
  maxBlocks: 3,
  precision: 10,
};
const allocated = (runAllocation: RunAllocation): FastTimingOptions => ({ ...OWN_THREE, runAllocation });

describe("a run's allocation of extra blocks", () => {
  it("weighs a pair by how much its ratio moves its total: √ratio's slope for VES, the expected reward's near a bucket edge", () => {
    assert.equal(varianceWeight({ ratio: 4, logSe: 0.05, df: 10 }, false), 1);
    assert.equal(varianceWeight({ ratio: 36, logSe: 0.05, df: 10 }, false), 9);
    // R-VES: 1.45 sits between the edges 1 and 2, far in log steps of 0.03; 1.02 sits on the edge at 1.
    assert.ok(varianceWeight({ ratio: 1.45, logSe: 0.03, df: 10 }, true) < 1e-6);
    assert.ok(varianceWeight({ ratio: 1.02, logSe: 0.03, df: 10 }, true) > 0.1);
  });

  it('gives extra blocks to the pair that dominates the VES total, and none to the light ones once settled', async () => {
    const allocation: RunAllocation = { extraShare: 5, officialShare: 1, maxBlocks: 6, precision: 10, dominantShares: 1 };
    // One prediction 36× faster than gold (√36 = 6: its noise reaches the total 36 times a ratio-1 pair's), four at 1×.
    const heavy = new PairTimer(...costlyPair(3.6, 0.1, 0.1, 41), allocated(allocation));
    const light = [42, 43, 44, 45].map((seed) => new PairTimer(...costlyPair(1, 1, 0.1, seed), allocated(allocation)));
    const summary = await timeInPasses([heavy, ...light]);
    assert.equal(heavy.blocksOf('first-row'), 6);
    for (const timer of light) assert.equal(timer.blocksOf('first-row'), 3);
    assert.equal(summary.extraBlocks, 3);
  });

  it('keeps the extra blocks within their share of the own blocks and of the official loops, most valuable first', async () => {
    const pairs = (allocation: RunAllocation) =>
      [1, 2, 3, 4, 5, 6].map((seed) => new PairTimer(...costlyPair(1 + seed / 10, 1, 0.1, 50 + seed), allocated(allocation)));
    // Every interval counts as wide (precision 0): each pair wants blocks up to the maximum, and the budget decides.
    const wanting: RunAllocation = { extraShare: 0.25, officialShare: 1, maxBlocks: 6, precision: 0, dominantShares: 2 };
    const timers = pairs(wanting);
    // The pass stops starting blocks once the budget is spent, so it may overrun by the block then running: the
    // longest block as it actually ran (a loaded machine stretches a block far past its median cost).
    let blockMs = 0;
    for (const timer of timers) {
      const runBlock = timer.runBlock.bind(timer);
      timer.runBlock = async (quantities) => {
        const started = performance.now();
        await runBlock(quantities);
        blockMs = Math.max(blockMs, performance.now() - started);
      };
    }
    const summary = await timeInPasses(timers);
    assert.ok(summary.extraBlocks > 0 && summary.extraBlocks < 6 * 3, `${summary.extraBlocks} extra blocks`);
    assert.ok(summary.extraMs <= 0.25 * summary.ownMs + blockMs, `${summary.extraMs} ms extra for ${summary.ownMs} ms own`);
    // The official loops' share: 100 iterations of a pair take far more than 0.1 % of them, so nothing is added.
    const capped = await timeInPasses(pairs({ ...wanting, extraShare: 5, officialShare: 0.001 }));
    assert.equal(capped.extraBlocks, 0);
    assert.ok(capped.projectedOfficialMs > 0);
  });

  it("separates a pair's extra blocks by at least a pass's minimum, however few blocks a pass holds", async () => {
    // One pair: each extra pass is a single short block, so only the wait between passes keeps its blocks apart.
    const wanting: RunAllocation = { extraShare: 5, officialShare: 1, maxBlocks: 6, precision: 0, dominantShares: 0 };
    const timer = new PairTimer(...costlyPair(1.5, 1, 0.1, 71), allocated(wanting));
    const starts: number[] = [];
    const runBlock = timer.runBlock.bind(timer);
    timer.runBlock = async (quantities) => (starts.push(performance.now()), runBlock(quantities));
    const passes: number[] = [];
    const summary = await timeInPasses([timer], { onPass: (pass) => passes.push(pass) });
    assert.ok(summary.extraBlocks >= 2, `${summary.extraBlocks} extra blocks`);
    const extraStarts = starts.slice(OWN_THREE.minBlocks);
    for (let i = 1; i < extraStarts.length; i++)
      assert.ok(
        extraStarts[i] - extraStarts[i - 1] >= 49,
        `extra blocks ${i - 1} and ${i}: ${extraStarts[i] - extraStarts[i - 1]} ms apart`,
      );
    assert.equal(passes.length, OWN_THREE.minBlocks + summary.extraBlocks);
  });

  it('never adds blocks to a quantity more blocks cannot move: a bucket far from every edge, the official limit', async () => {
    const wantAll: RunAllocation = { extraShare: 5, officialShare: 1, maxBlocks: 6, precision: 0, dominantShares: 0 };
    // Ratio 8 on 45 ms iterations: settled in one block (as above); then no extra block either.
    const far = new PairTimer(...costlyPair(40, 5, 0.05, 61), { ...SYNTHETIC, runAllocation: wantAll });
    const near = new PairTimer(...costlyPair(1.05, 1, 0.05, 62), { ...SYNTHETIC, minBlocks: 3, maxBlocks: 3, runAllocation: wantAll });
    await timeInPasses([far, near]);
    assert.equal(far.blocksOf('full'), 1);
    assert.equal(near.blocksOf('full'), 6, 'a ratio on the 1× edge takes every block it may');
    assert.deepEqual(
      extraBlocks([far, near], wantAll).map((block) => block.timer),
      [],
      'both at their end: the far one closed, the near one at the maximum',
    );
  });
});

describe('ratio estimate', () => {
  it("moderates a deceptively quiet spread with the prior, and widens with the blocks' own spread", () => {
    const quiet = estimateRatio([
      [2, 2],
      [2, 2],
      [2, 2],
    ]);
    assert.ok(quiet.high > quiet.ratio * 1.02, 'identical blocks still get an interval: runs move between processes');
    const noisy = estimateRatio([
      [1.5, 1.6],
      [2.5, 2.4],
      [2, 2.1],
    ]);
    assert.ok(noisy.high / noisy.low > quiet.high / quiet.low);
    assert.ok(noisy.low <= noisy.ratio && noisy.ratio <= noisy.high);
  });
  it('repeats more closely than the median of block medians, on sub-millisecond noise with stalls', () => {
    // 200 runs of one pair of true ratio 1: 4 blocks of 11 iterations, log-normal noise of 10 % per execution,
    // and one execution in 50 stalled 3-30x. VES sums sqrt(ratio) over pairs, so this spread reaches the total.
    let state = 42;
    const uniform = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
    const gaussian = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const execution = () => Math.exp(0.1 * gaussian()) * (uniform() < 0.02 ? 3 + 27 * uniform() : 1);
    const centres: number[] = [];
    const mediansOfMedians: number[] = [];
    for (let run = 0; run < 200; run++) {
      const blocks = Array.from({ length: 4 }, () => Array.from({ length: 11 }, () => execution() / execution()));
      centres.push(Math.log(estimateRatio(blocks).ratio));
      mediansOfMedians.push(median(blocks.map((block) => median(block.map(Math.log)))));
    }
    const spread = sampleStandardDeviation(centres);
    assert.ok(spread < 0.9 * sampleStandardDeviation(mediansOfMedians), `${spread} vs ${sampleStandardDeviation(mediansOfMedians)}`);
    assert.ok(Math.abs(median(centres)) < 0.01, 'centred on the true ratio despite the stalls');
  });
  it("gives a repeat run's probability below a threshold", () => {
    const e = estimateRatio([
      [2, 2.1],
      [1.9, 2],
      [2, 2.05],
    ]);
    assert.ok(probabilityBelow(e, 1) < 0.001);
    assert.ok(probabilityBelow(e, 4) > 0.999);
    assert.ok(Math.abs(probabilityBelow(e, e.ratio) - 0.5) < 1e-9);
  });
});

describe('speed verdicts', () => {
  it('says faster or slower only with the whole interval past 1 and a 10 % change; otherwise no difference', () => {
    assert.equal(speedVerdict({ ratio: 1.5, low: 1.3, high: 1.7 }), 'faster');
    assert.equal(speedVerdict({ ratio: 1.04, low: 1.01, high: 1.07 }), 'no-difference');
    assert.equal(speedVerdict({ ratio: 1.3, low: 0.95, high: 1.6 }), 'no-difference');
    assert.equal(speedVerdict({ ratio: 0.56, low: 0.52, high: 0.6 }), 'slower');
    assert.equal(speedVerdict({ ratio: 0.97, low: 0.93, high: 0.99 }), 'no-difference');
  });
});
