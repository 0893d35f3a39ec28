import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { Row } from '../../src/core/db/database';
import { sameResultSet } from '../../src/core/metrics/executionMatch';
import { StreamingComparison } from '../../src/core/results/streamingComparison';
import { distinctRows, softF1 } from '../../src/core/metrics/softF1';

describe('sameResultSet (EX: Python set equality)', () => {
  const cases: [string, Row[], Row[], boolean][] = [
    ['identical', [[1, 'a']], [[1, 'a']], true],
    ['row order ignored', [[1], [2]], [[2], [1]], true],
    ['duplicates collapse', [[1], [1], [2]], [[2], [1]], true],
    ['column order matters', [[1, 'a']], [['a', 1]], false],
    ['1 == 1.0 (both arrive as numbers)', [[1.0]], [[1]], true],
    ['-0.0 == 0.0', [[-0]], [[0]], true],
    ['NULL equals NULL', [[null, 1]], [[null, 1]], true],
    ['NULL is not 0 or empty text', [[null]], [[0]], false],
    ['text is case-sensitive', [['Abc']], [['abc']], false],
    ['text "1" is not the number 1', [['1']], [[1]], false],
    ['bytes equal only bytes', [[Buffer.from('ab')]], [['ab']], false],
    ['equal bytes', [[Buffer.from('ab')]], [[Buffer.from('ab')]], true],
    ['floats compare exactly', [[0.1 + 0.2]], [[0.3]], false],
    ['both empty', [], [], true],
    ['empty vs rows', [], [[1]], false],
    ['subset is not equal', [[1]], [[1], [2]], false],
  ];
  for (const [name, predicted, gold, expected] of cases) {
    it(name, () => assert.equal(sameResultSet(predicted, gold), expected));
  }
});

describe('softF1 (mini_dev)', () => {
  it('scores 1 when both results are empty', () => assert.equal(softF1([], []), 1));
  it('scores 0 for rows against no rows', () => {
    assert.equal(softF1([[1]], []), 0);
    assert.equal(softF1([], [[1]]), 0);
  });
  it('scores 1 for the same rows in the same order', () =>
    assert.equal(
      softF1(
        [
          [1, 'a'],
          [2, 'b'],
        ],
        [
          [1, 'a'],
          [2, 'b'],
        ],
      ),
      1,
    ));
  it('pairs rows by position: swapped rows score 0 although EX is 1', () => {
    const predicted = [[1], [2]];
    const gold = [[2], [1]];
    assert.equal(sameResultSet(predicted, gold), true);
    assert.equal(softF1(predicted, gold), 0);
  });
  it('credits values found anywhere in the paired row (column order ignored within a row)', () => {
    assert.equal(softF1([['a', 1]], [[1, 'a']]), 1);
  });
  it('computes partial credit as the official script: one of two columns right', () => {
    // match 0.5, pred_only 0.5, truth_only 0.5 → P = R = 0.5
    assert.equal(softF1([[1, 'x']], [[1, 'a']]), 0.5);
  });
  it('counts extra predicted rows as spurious and missing gold rows as missed', () => {
    // gold row 1 matched fully; extra predicted row adds fp 1 → P = 1/2, R = 1 → F1 = 2/3
    assert.equal(softF1([[1], [2]], [[1]]), 2 / 3);
    // missing gold row adds fn 1 → P = 1, R = 1/2
    assert.equal(softF1([[1]], [[1], [2]]), 2 / 3);
  });
  it('de-duplicates before pairing, keeping first occurrences in place', () => {
    assert.deepEqual(distinctRows([[1], [1], [2], [1]]), [[1], [2]]);
    assert.equal(softF1([[1], [1], [2]], [[1], [2]]), 1);
  });
  it('treats NULL as an ordinary value', () => assert.equal(softF1([[null]], [[null]]), 1));
});

describe('StreamingComparison', () => {
  const cases: [string, Row[], Row[]][] = [
    ['equal sets in another order', [[2], [1], [1]], [[1], [2]]],
    [
      'partial overlap',
      [
        [1, 'a'],
        [3, 'c'],
        [1, 'a'],
        [4, 'd'],
      ],
      [
        [1, 'a'],
        [2, 'b'],
      ],
    ],
    ['more distinct predicted rows than gold', [[1], [2], [3], [2], [4]], [[1]]],
    ['no predicted rows', [], [[1], [2]]],
    ['no gold rows', [[1]], []],
    ['both empty', [], []],
    ['duplicate gold rows', [[1], [2]], [[2], [2], [1]]],
  ];
  for (const [name, predicted, gold] of cases) {
    it(`gives what the whole-list functions give: ${name}`, () => {
      const stream = new StreamingComparison(gold);
      for (const row of predicted) stream.add(row);
      assert.equal(stream.sameSet, sameResultSet(predicted, gold));
      assert.equal(stream.softF1, softF1(predicted, gold));
    });
  }

  it('lists missing and extra rows, blobs as literals', () => {
    const stream = new StreamingComparison([[1], [2]]);
    for (const row of [[1], [3], [Buffer.from([0xff])]] as Row[]) stream.add(row);
    assert.deepEqual(stream.difference(), { pred_rows: 3, gold_rows: 2, missing: [[2]], extra: [[3], ["X'ff'"]] });
  });
});
