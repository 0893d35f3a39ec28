import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { summarize } from '../../src/core/eval/evalSummary';
import { Outcome, QuestionResult } from '../../src/core/eval/types';

function result(difficulty: string, outcome: Outcome, ves: number | null = null, dbId = 'a'): QuestionResult {
  return {
    index: 0,
    question_id: 0,
    db_id: dbId,
    difficulty,
    outcome,
    ex: outcome === 'correct' ? 1 : 0,
    f1: outcome === 'correct' ? 1 : 0,
    time_ratio: null,
    time_ratio_interval: null,
    ves,
    rves: null,
    rves_reward: null,
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
  };
}

describe('summarize', () => {
  it('groups by difficulty in BIRD order, then total, and leaves skipped questions out of every score', () => {
    const summary = summarize(
      [
        result('challenging', 'correct', 2),
        result('simple', 'correct', 1),
        result('simple', 'mismatch', 0),
        result('simple', 'skipped', null, 'gone'),
        result('moderate', 'timeout', 0),
      ],
      ['ex', 'ves'],
    );
    assert.deepEqual(
      summary.groups.map((g) => g.group),
      ['simple', 'moderate', 'challenging', 'total'],
    );
    const [simple, moderate, challenging, total] = summary.groups;
    assert.equal(simple.count, 2);
    assert.equal(simple.scores.ex, 50);
    assert.equal(simple.outcomes.skipped, 1);
    assert.equal(moderate.scores.ex, 0);
    assert.equal(challenging.scores.ves, 200);
    assert.equal(total.count, 4);
    assert.equal(total.scores.ves, 75);
    assert.deepEqual(summary.skipped, { count: 1, databases: { gone: 1 } });
  });

  it('shows only the total for files without difficulty, and null scores for an empty group', () => {
    const summary = summarize([result('', 'skipped')], ['ex']);
    assert.deepEqual(
      summary.groups.map((g) => g.group),
      ['total'],
    );
    assert.equal(summary.groups[0].scores.ex, null);
  });
});
