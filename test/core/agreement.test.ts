import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { agreementStats, cohensKappa, Confusion } from '../../src/core/judge/agreement';
import { agreement, loadLabels, loadVerdicts, normalizeSql } from '../../src/core/judge/agreementFiles';
import { InputFileError } from '../../src/core/bird/problems';
import { tempDir } from '../helpers';
import { ROSE_DATA, roseDataMissing } from '../roseData';

/** Statistics ×100, rounded to two decimals as ROSE prints them. */
const printed = (c: Confusion) => {
  const s = agreementStats(c);
  const two = (x: number | null) => (x === null ? null : Number((x * 100).toFixed(2)));
  return { kappa: two(s.kappa), accuracy: two(s.accuracy), mcc: two(s.mcc), f1: two(s.f1) };
};

describe("agreement statistics, as ROSE's analyze.py computes them", () => {
  it("reproduce ROSE's published figures from their confusion matrices (ROSE-VEC BIRD's 322 labelled pairs)", () => {
    assert.deepEqual(printed({ tp: 190, tn: 103, fp: 3, fn: 26 }), { kappa: 80.68, accuracy: 90.99, mcc: 81.64, f1: 92.91 }); // o3 ROSE
    assert.deepEqual(printed({ tp: 168, tn: 99, fp: 7, fn: 48 }), { kappa: 64.79, accuracy: 82.92, mcc: 67.15, f1: 85.93 }); // gemini-2.5-pro ROSE
    assert.deepEqual(printed({ tp: 207, tn: 53, fp: 53, fn: 9 }), { kappa: 51.25, accuracy: 80.75, mcc: 54.62, f1: 86.97 }); // gemini ProverOnly
    assert.deepEqual(printed({ tp: 121, tn: 103, fp: 3, fn: 95 }), { kappa: 43.56, accuracy: 69.57, mcc: 51.36, f1: 71.18 }); // EX
    assert.deepEqual(printed({ tp: 0, tn: 106, fp: 0, fn: 216 }), { kappa: 0, accuracy: 32.92, mcc: 0, f1: 0 }); // EM: degenerate margins
  });

  it('κ is undefined (null) when both raters are constant and agree, as scikit-learn returns NaN', () => {
    assert.equal(cohensKappa({ tp: 5, tn: 0, fp: 0, fn: 0 }), null);
    assert.equal(cohensKappa({ tp: 0, tn: 0, fp: 0, fn: 0 }), null);
    assert.equal(agreementStats({ tp: 0, tn: 0, fp: 0, fn: 0 }).accuracy, null);
  });
});

describe('agreement files: labels matched to verdicts by question_id and SQL', () => {
  it("reproduces ROSE's statistics from ROSE's own verdict files (gemini-2.5-pro, ROSE and ProverOnly)", (t) => {
    const skip = roseDataMissing();
    if (skip) return t.skip(skip);
    const labels = loadLabels(path.join(ROSE_DATA, 'rose-vec-bird.json'));
    assert.equal(labels.items.length, 322);
    const rose = agreement(labels, loadVerdicts(path.join(ROSE_DATA, 'gemini-2.5-pro.ROSE.eval_results.json')));
    assert.equal(rose.kind, 'rose');
    assert.deepEqual([rose.stats.n, rose.stats.tp, rose.stats.tn, rose.stats.fp, rose.stats.fn], [322, 168, 99, 7, 48]);
    assert.deepEqual(printed(rose.stats), { kappa: 64.79, accuracy: 82.92, mcc: 67.15, f1: 85.93 });
    assert.deepEqual(
      Object.values(rose.mismatches).map((list) => list.length),
      [0, 0, 0, 0, 0, 0],
    );
    assert.deepEqual(Object.fromEntries(Object.entries(rose.by_branch).map(([b, s]) => [b, s.n])), {
      'results match → Refuter alone': 87,
      'Prover rejected': 56,
      'Prover passed → Refuter': 179,
    });
    const proverOnly = agreement(labels, loadVerdicts(path.join(ROSE_DATA, 'gemini-2.5-pro.ProverOnly.eval_results.json')));
    assert.deepEqual(printed(proverOnly.stats), { kappa: 51.25, accuracy: 80.75, mcc: 54.62, f1: 86.97 });
  });

  it('reports labels without verdict, verdicts without label, another SQL, no verdict and repeats, and leaves them out', () => {
    const dir = tempDir();
    const labels = path.join(dir, 'labels.json');
    fs.writeFileSync(
      labels,
      JSON.stringify([
        { question_id: 1, predicted_sql: 'SELECT a FROM t', label: true },
        { question_id: 2, predicted_sql: 'SELECT b FROM t', label: false },
        { question_id: 3, predicted_sql: 'SELECT c FROM t', label: true },
        { question_id: 4, predicted_sql: 'SELECT d FROM t', label: 'maybe' },
        { question_id: 5, predicted_sql: 'SELECT e FROM t', label: 'true' },
        { question_id: 6, predicted_sql: 'SELECT f FROM t', label: false },
      ]),
    );
    const verdicts = path.join(dir, 'judge.json');
    fs.writeFileSync(
      verdicts,
      JSON.stringify({
        questions: [
          { question_id: 1, predicted_sql: 'SELECT  a\nFROM t;', ex: 1, judge: { score: 1, branch: 'results_match' } },
          {
            question_id: 2,
            predicted_sql: 'SELECT b FROM t',
            ex: 1,
            judge: { score: 0, branch: 'results_differ', prover: { verdict: false } },
          },
          { question_id: 3, predicted_sql: 'SELECT other FROM t', ex: 0, judge: { score: 1 } },
          {
            question_id: 5,
            predicted_sql: 'SELECT e FROM t',
            ex: 0,
            judge: { score: null, error: 'judge_error: no JSON object in the reply' },
          },
          { question_id: 9, predicted_sql: 'SELECT z FROM t', ex: 0, judge: { score: 0 } },
          { question_id: 1, predicted_sql: 'SELECT a FROM t', ex: 1, judge: { score: 0 } },
        ],
      }),
    );
    const report = agreement(loadLabels(labels), loadVerdicts(verdicts));
    assert.equal(report.kind, 'judge');
    assert.deepEqual([report.stats.n, report.stats.tp, report.stats.tn], [2, 1, 1]);
    assert.deepEqual(report.mismatches.labels_without_verdict, ['6']);
    assert.deepEqual(report.mismatches.verdicts_without_label, ['9']);
    assert.deepEqual(report.mismatches.sql_differs, [
      { question_id: '3', label_sql: 'SELECT c FROM t', verdict_sql: 'SELECT other FROM t' },
    ]);
    assert.deepEqual(report.mismatches.no_verdict, [{ question_id: '5', why: 'judge_error: no JSON object in the reply' }]);
    assert.deepEqual(report.mismatches.repeated_verdicts, ['1']);
    assert.deepEqual(report.mismatches.unusable_labels, ['item 3: label is "maybe"']);
    // EX from the same judge report, on request.
    const ex = agreement(loadLabels(labels), loadVerdicts(verdicts, 'ex'));
    assert.equal(ex.kind, 'ex');
    assert.deepEqual([ex.stats.tp, ex.stats.fp, ex.stats.fn], [1, 1, 1]);
  });

  it('reads EX from an eval report (matched by question_id alone: it carries no SQL) and skips skipped questions', () => {
    const dir = tempDir();
    const labels = path.join(dir, 'labels.json');
    fs.writeFileSync(
      labels,
      JSON.stringify([
        { question_id: 1, predicted_sql: 'x', label: true },
        { question_id: 2, predicted_sql: 'y', label: false },
      ]),
    );
    const evalJson = path.join(dir, 'eval.json');
    fs.writeFileSync(
      evalJson,
      JSON.stringify({
        questions: [
          { question_id: 1, ex: 1, outcome: 'correct' },
          { question_id: 2, ex: 0, outcome: 'skipped' },
        ],
      }),
    );
    const report = agreement(loadLabels(labels), loadVerdicts(evalJson));
    assert.equal(report.kind, 'ex');
    assert.equal(report.matched_by_id_only, 2);
    assert.equal(report.stats.n, 1);
    assert.match(report.mismatches.no_verdict[0].why, /skipped/);
  });

  it('names files that are no label or verdict file', () => {
    const dir = tempDir();
    const file = (name: string, data: unknown) => {
      const full = path.join(dir, name);
      fs.writeFileSync(full, JSON.stringify(data));
      return full;
    };
    assert.throws(
      () => loadLabels(file('a.json', { questions: [] })),
      (e: InputFileError) => /must be a JSON list/.test(e.message),
    );
    assert.throws(() => loadLabels(file('b.json', [{ question_id: 1, score: 1 }])), /not a label file/);
    assert.throws(() => loadVerdicts(file('c.json', [{ question_id: 1, label: true }])), /looks like a label file/);
    assert.throws(() => loadVerdicts(file('d.json', { summary: {} })), /eval_results\.json \(a list\), or a JSON report/);
    assert.throws(() => loadVerdicts(file('e.json', { questions: [{ question_id: 1, ex: 1 }] }), 'judge'), /no judge verdicts/);
  });

  it('treats SQL texts that differ in spacing or a final semicolon as the same', () => {
    assert.equal(normalizeSql('SELECT a\n  FROM t ;;'), 'SELECT a FROM t');
  });
});
