import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { InputFileError } from '../../src/core/bird/problems';
import { parseShard, shardOf } from '../../src/core/eval/shard';
import { LoadedReport, ReportQuestion } from '../../src/core/eval/reportFile';
import { compareRuns, comparisonJson } from '../../src/core/report/compareRuns';
import { mcnemarExact, pairedBootstrap, seededRandom } from '../../src/core/report/compareStats';
import { ratioHistogram } from '../../src/core/report/htmlCharts';
import { exactMcNemarP } from '../oracles/mcnemar';

/** A question result with the fields the comparison reads. */
function question(index: number, ex: 0 | 1, extra: Partial<ReportQuestion> = {}): ReportQuestion {
  return {
    index,
    question_id: 100 + index,
    db_id: 'db',
    difficulty: index % 2 ? 'simple' : 'moderate',
    outcome: ex ? 'correct' : 'mismatch',
    ex,
    f1: ex,
    time_ratio: null,
    time_ratio_interval: null,
    ves: ex,
    rves: ex,
    rves_reward: ex,
    rves_uncertain: null,
    rves_bucket_probabilities: null,
    rves_expected_reward: null,
    rves_time_ratio: null,
    rves_time_ratio_interval: null,
    same_program: null,
    error: null,
    gold_ms: null,
    pred_ms: null,
    runs: null,
    timing: null,
    notes: [],
    ...extra,
  };
}

function report(file: string, questions: ReportQuestion[]): LoadedReport {
  return { file, label: file, report: { inputs: { metrics: ['ex', 'f1', 'ves', 'rves'], timing: 'fast' }, summary: {}, questions } };
}

describe('comparison statistics', () => {
  it("McNemar's exact p: twice the smaller binomial tail of the discordant pairs", () => {
    const a = [...Array(10).fill(1), ...Array(2).fill(0), ...Array(30).fill(1)];
    const b = [...Array(10).fill(0), ...Array(2).fill(1), ...Array(30).fill(1)];
    const m = mcnemarExact(a, b);
    assert.deepEqual([m.onlyA, m.onlyB], [10, 2]);
    assert.ok(Math.abs(m.p - 158 / 4096) < 1e-12, String(m.p));
    assert.equal(mcnemarExact([1, 0], [1, 0]).p, 1, 'no discordant pair: p = 1');
    for (const [x, y] of [
      [0, 7],
      [3, 40],
      [120, 135],
    ]) {
      const p = mcnemarExact([...Array(x).fill(1), ...Array(y).fill(0)], [...Array(x).fill(0), ...Array(y).fill(1)]).p;
      assert.ok(Math.abs(p - exactMcNemarP(x, y)) < 1e-9, `${x}/${y}: ${p} vs ${exactMcNemarP(x, y)}`);
    }
  });

  it('the paired bootstrap is seeded: the same inputs give the same interval, around the mean difference', () => {
    const random = seededRandom(7);
    const a = Array.from({ length: 80 }, () => (random() < 0.5 ? 1 : 0));
    const b = a.map((x, i) => (i % 5 === 0 ? 1 : x));
    const first = pairedBootstrap(a, b)!;
    assert.deepEqual(pairedBootstrap(a, b), first);
    assert.ok(first.low <= first.delta && first.delta <= first.high);
    assert.ok(first.low >= 0, 'b is never below a: no resample goes negative');
    const x = Array.from({ length: 50 }, () => random());
    const y = x.map((v) => v + random() - 0.3);
    assert.notDeepEqual(pairedBootstrap(x, y, { seed: 8 }), pairedBootstrap(x, y), 'another seed, other resamples');
    assert.deepEqual(pairedBootstrap([1, 2, 3], [3, 4, 5]), { delta: 2, low: 2, high: 2, n: 3 });
    assert.equal(pairedBootstrap([], []), null);
  });
});

describe('compareRuns', () => {
  const a = report('a.json', [
    question(0, 1, { rves_time_ratio: 1, rves_time_ratio_interval: [0.9, 1.1], gold_ms: 2, pred_ms: 2 }),
    question(1, 1, { rves_time_ratio: 1, rves_time_ratio_interval: [0.9, 1.1], gold_ms: 2, pred_ms: 2 }),
    question(2, 0),
    question(3, 1, { rves_time_ratio: 1, rves_time_ratio_interval: [0.95, 1.05], gold_ms: 1, pred_ms: 1 }),
    question(4, 1, { outcome: 'correct', rves_time_ratio: 2.5, rves_time_ratio_interval: [1.2, 3], gold_ms: 1, pred_ms: 0.4 }),
  ]);
  const b = report('b.json', [
    question(0, 1, { rves_time_ratio: 4, rves_time_ratio_interval: [3.5, 4.5], gold_ms: 2, pred_ms: 0.5 }),
    question(1, 0),
    question(2, 1, { rves_time_ratio: 1, rves_time_ratio_interval: [0.9, 1.1], gold_ms: 1, pred_ms: 1 }),
    question(3, 1, { rves_time_ratio: 0.4, rves_time_ratio_interval: [0.35, 0.45], gold_ms: 1, pred_ms: 2.5 }),
    question(4, 1, { rves_time_ratio: 5, rves_time_ratio_interval: [1.1, 6], gold_ms: 1, pred_ms: 0.2 }),
  ]);

  it('rows per metric with each run and B − A with its interval; what changed', () => {
    const comparison = compareRuns([a, b]);
    const ex = comparison.rows.find((r) => r.key === 'ex')!;
    assert.deepEqual(ex.values, [80, 80]);
    assert.equal(ex.deltas[0]!.delta, 0);
    const predMs = comparison.rows.find((r) => r.key === 'pred_ms')!;
    assert.equal(predMs.n, 3, 'ms over the questions timed in both runs');
    assert.equal(predMs.unit, 'ms');
    const changes = comparison.versus[0].changes;
    assert.deepEqual(
      changes.now_correct.map((c) => c.index),
      [2],
    );
    assert.deepEqual(
      changes.now_wrong.map((c) => c.index),
      [1],
    );
    assert.deepEqual(
      changes.much_faster.map((c) => c.index),
      [0],
      'question 4 doubled its ratio but the intervals overlap',
    );
    assert.deepEqual(
      changes.much_slower.map((c) => c.index),
      [3],
    );
    assert.equal(changes.much_faster[0].factor, 4);
    assert.equal(comparison.versus[0].ex_mcnemar.p, 1);
  });

  it('--json: deltas per metric for two files; a list, each later file against the first, for more', () => {
    const two = comparisonJson(compareRuns([a, b])) as any;
    assert.deepEqual(Object.keys(two.deltas.ex), ['delta', 'low', 'high', 'n']);
    assert.equal(typeof two.ex_mcnemar_p, 'number');
    assert.deepEqual(
      two.runs.map((r: { file: string }) => r.file),
      ['a.json', 'b.json'],
    );
    const three = comparisonJson(compareRuns([a, b, report('c.json', a.report.questions)])) as any;
    assert.equal(three.deltas.length, 2);
    assert.equal(three.deltas[1].file, 'c.json');
    assert.equal(three.deltas[1].versus, 'a.json');
    assert.equal(three.deltas[1].ex.delta, 0);
    assert.equal(three.ex_mcnemar_p.length, 2);
  });

  it('judge scores and technique scores present in the reports become rows', () => {
    const withExtras = (r: LoadedReport, judge: number[], technique: number[]) =>
      report(
        r.file,
        r.report.questions.map((q, i) => ({
          ...q,
          judge: { score: judge[i] },
          techniques: { exact_column_exact_cell: { F1: technique[i] }, no_column: technique[i] },
        })),
      );
    const comparison = compareRuns([withExtras(a, [1, 1, 0, 1, 1], [1, 1, 0, 1, 1]), withExtras(b, [1, 0, 1, 1, 1], [1, 0.5, 1, 1, 1])]);
    const keys = comparison.rows.map((r) => r.key);
    assert.ok(keys.includes('judge'));
    assert.ok(keys.includes('technique:exact_column_exact_cell') && keys.includes('technique:no_column'));
    assert.ok(Math.abs(comparison.rows.find((r) => r.key === 'technique:no_column')!.deltas[0]!.delta - 10) < 1e-9);
  });

  it('refuses reports of other questions, naming the file and a question only one has', () => {
    const other = report('other.json', a.report.questions.slice(0, 3));
    assert.throws(
      () => compareRuns([a, other]),
      (error: Error) =>
        error instanceof InputFileError &&
        /other\.json: does not cover the same questions as a\.json: 3 questions against 5, 2 missing/.test(error.message) &&
        /question 103 \(db\) is only in a\.json/.test(error.message),
    );
  });
});

describe('shards and charts', () => {
  it('--shard i/n takes every n-th question from the i-th', () => {
    assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 });
    assert.match((parseShard('0/3') as { error: string }).error, /from 1 to 3/);
    assert.match((parseShard('a/b') as { error: string }).error, /expected i\/n/);
    const items = Array.from({ length: 8 }, (_, i) => i);
    assert.deepEqual(shardOf(items, { index: 1, count: 3 }), [0, 3, 6]);
    assert.deepEqual(shardOf(items, { index: 3, count: 3 }), [2, 5]);
    assert.deepEqual([1, 2, 3].flatMap((i) => shardOf(items, { index: i, count: 3 })).sort(), items);
  });

  it('time ratios fall into log-scale bins, with the outer bins open', () => {
    const { labels, counts } = ratioHistogram([0.001, 0.9, 1, 1.2, 3, 100]);
    assert.equal(
      counts.reduce((s, c) => s + c, 0),
      6,
    );
    assert.equal(labels[0], '<1/32');
    assert.equal(labels[labels.length - 1], '≥32');
    assert.equal(counts[0], 1);
    assert.equal(counts[counts.length - 1], 1);
  });
});
