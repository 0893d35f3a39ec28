// The comparison panel's words (src/extension/panels/compareSummary.ts): title, status line, Explorer selection.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { comparisonStatusLine, comparisonTitle, secondReport, selectedReports } from '../../src/extension/panels/compareSummary';

describe('comparison panel', () => {
  it('titles the panel with the runs, and says which is the baseline and what was left out', () => {
    assert.equal(comparisonTitle(['gpt-4', 'cot', 'llama']), 'Compare: gpt-4 vs cot vs llama');
    assert.equal(
      comparisonStatusLine({ labels: ['gpt-4', 'cot', 'llama'], compared: 140, questions: 500 }),
      'cot, llama against gpt-4 (the baseline) · 140 of 500 questions compared (skipped in a run: left out)',
    );
  });

  it('takes two or more JSON files selected in the Explorer; otherwise asks', () => {
    assert.deepEqual(selectedReports('/w/a.json', ['/w/a.json', '/w/b.json']), ['/w/a.json', '/w/b.json']);
    assert.deepEqual(selectedReports('/w/a.json', ['/w/a.json', '/w/notes.txt', '/w/b.JSON']), ['/w/a.json', '/w/b.JSON']);
    assert.equal(selectedReports('/w/a.json', ['/w/a.json']), undefined);
    assert.equal(selectedReports(undefined, undefined), undefined);
  });

  it("one report chosen: offers the workspace's others to compare it with, or says precisely what is missing", () => {
    assert.deepEqual(secondReport('/w/a.json', ['/w/a.json', '/w/b.json', '/w/c.json']), { offer: ['/w/b.json', '/w/c.json'] });
    const alone = secondReport('/w/a.json', ['/w/a.json']);
    assert.ok('missing' in alone);
    assert.match(
      alone.missing,
      /needs a second eval report of the same question file: only \/w\/a\.json was chosen, and the workspace holds no other/,
    );
    assert.match(alone.missing, /JSON report.*ves-lens eval --json.*Other files/);
    assert.doesNotMatch(alone.missing, /at least two/);
  });
});
