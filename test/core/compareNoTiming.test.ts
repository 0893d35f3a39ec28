import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadEvalReport, uniqueLabels } from '../../src/core/eval/reportFile';
import { compareRuns, comparisonJson, RunComparison } from '../../src/core/report/compareRuns';
import { comparisonText } from '../../src/core/report/compareText';
import { compareHtml } from '../../src/core/report/htmlReports';
import { evalReport } from '../evalReports';
import { birdDataMissing, tempDir } from '../helpers';

const NO_TIMING = /no timing in/gi;
/** The text without the one note that says there is no timing (it names what is left out). */
const withoutNote = (text: string) => text.replace(/^.*no timing in.*$/gim, '');
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

function compare(files: string[]): { comparison: RunComparison; text: string; json: ReturnType<typeof comparisonJson>; html: string } {
  const labels = uniqueLabels(files);
  const runs = files.map((file, i) => ({ ...loadEvalReport(file), label: labels[i] }));
  const comparison = compareRuns(runs);
  return {
    comparison,
    text: plain(comparisonText(comparison)),
    json: comparisonJson(comparison),
    html: compareHtml(
      runs.map((r) => ({ label: r.label, file: r.file, report: r.report })),
      comparison,
    ),
  };
}

/** Real `ves-lens eval` reports of two official prediction files on the shared databases, with and without timing. */
describe('compare: timing sections only when every report was timed (real eval reports)', { skip: birdDataMissing() }, () => {
  let dir: string;
  const reports: Record<string, string> = {};
  before(() => {
    dir = tempDir('ves-lens-compare-timing-');
    reports.gpt4 = evalReport(dir, 'gpt4-scores', { model: 'gpt-4', metrics: 'ex,f1' }).json;
    reports.llama = evalReport(dir, 'llama-scores', { model: 'meta-llama-3-8b-instruct-2', metrics: 'ex,f1' }).json;
    // Timed runs on one shard (14 questions of the shared databases) keep the test short.
    reports.gpt4Shard = evalReport(dir, 'gpt4-shard-scores', { model: 'gpt-4', metrics: 'ex,f1', shard: '1/10' }).json;
    reports.gpt4Timed = evalReport(dir, 'gpt4-shard-timed', { model: 'gpt-4', metrics: 'ex,f1,ves,rves', shard: '1/10' }).json;
    reports.llamaTimed = evalReport(dir, 'llama-shard-timed', {
      model: 'meta-llama-3-8b-instruct-2',
      metrics: 'ex,f1,ves,rves',
      shard: '1/10',
    }).json;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('two reports without timing: no time rows, no much faster / slower, no time-ratio sections; said once', () => {
    const { comparison, text, json, html } = compare([reports.gpt4, reports.llama]);
    assert.equal(comparison.timed, false);
    assert.deepEqual(
      comparison.rows.map((r) => r.key),
      ['ex', 'f1'],
    );
    assert.doesNotMatch(withoutNote(text), /much faster|much slower|ms rows|time ratio/);
    assert.match(text, /now wrong \(\d+\)/, 'the correctness changes are still listed');
    assert.equal(text.match(NO_TIMING)?.length, 1);
    assert.match(text, /note: no timing in these reports \(EX, Soft-F1 only\)/);
    assert.equal(json.timed, false);
    assert.deepEqual(Object.keys(json.changes as object), ['now_correct', 'now_wrong']);
    assert.equal(json.notes.filter((n) => n.startsWith('no timing')).length, 1);
    assert.doesNotMatch(
      html.replace(/<li>no timing in[^<]*<\/li>/, ''),
      /id="ratios"|id="costs"|much faster|much slower|timing fast|ms rows|data-change="much/,
    );
    assert.equal(html.match(NO_TIMING)?.length, 1);
  });

  it('one report timed and one not: names the untimed one, and still compares no times', () => {
    const { comparison, text } = compare([reports.gpt4Timed, reports.gpt4Shard]);
    assert.equal(comparison.timed, false);
    // Its own metrics only: the timed report beside it does not lend it VES and R-VES.
    assert.match(text, /note: no timing in gpt4-shard-scores \(EX, Soft-F1 only\)/);
    assert.doesNotMatch(withoutNote(text), /much faster|predicted ms|gold ms/);
  });

  it('two timed reports keep every timing section', () => {
    const { comparison, text, json, html } = compare([reports.gpt4Timed, reports.llamaTimed]);
    assert.equal(comparison.timed, true);
    assert.ok(comparison.rows.some((r) => r.key === 'pred_ms'));
    assert.match(text, /much faster \(time ratio ×2 or more, repeat intervals apart\) \(\d+\)/);
    assert.doesNotMatch(text, NO_TIMING);
    assert.deepEqual(Object.keys(json.changes as object), ['now_correct', 'now_wrong', 'much_faster', 'much_slower']);
    assert.match(html, /<section id="ratios">/);
    assert.match(html, /<section id="costs">/);
    assert.match(html, /timing fast/);
  });
});
