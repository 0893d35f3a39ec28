// The Score panel's tab title follows what it shows (issue 22, broken 1): after scoring 744, the Judge lens on
// entry 765 turns the panel to that judgement, and the tab says so.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { panelTitle, showsAfterJudge } from '../../src/extension/panels/scorePanelTitle';

const entry = (questionId: number, offset: number) => ({ target: { uri: 'file:///ws/predict.json', offset }, questionId });

describe('the Score panel title', () => {
  it('a score says Score, a judgement of another prediction says Judge with its question', () => {
    const scored = { kind: 'score' as const, context: entry(744, 100) };
    assert.equal(panelTitle(scored), 'Score: question 744');
    assert.equal(panelTitle(showsAfterJudge(scored, entry(765, 900))), 'Judge: question 765');
  });

  it('judging the prediction on screen keeps its score (and its title)', () => {
    const scored = { kind: 'score' as const, context: entry(744, 100) };
    assert.equal(showsAfterJudge(scored, entry(744, 100)), scored);
    assert.equal(panelTitle(showsAfterJudge(undefined, { target: { sql: 'SELECT 1' }, questionIndex: 3 })), 'Judge: question #3');
  });

  it('a panel restored after a reload keeps its score title for a judgement of the same question', () => {
    assert.equal(panelTitle(showsAfterJudge(undefined, entry(717, 10), 'Score: question 717')), 'Score: question 717');
    assert.equal(panelTitle(showsAfterJudge(undefined, entry(765, 10), 'Score: question 744')), 'Judge: question 765');
  });
});
