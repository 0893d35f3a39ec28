import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ratioBinsText } from '../../src/core/report/htmlCharts';
import { evalReport } from '../evalReports';
import { birdDataMissing, tempDir } from '../helpers';

/** The y-axis ticks of one bar chart (the numbers at the left, not the slanted category labels). */
function yTicks(html: string, chartId: string): number[] {
  const figure = html.slice(html.indexOf(`id="${chartId}"`));
  const svg = figure.slice(0, figure.indexOf('</svg>'));
  return [...svg.matchAll(/<text class="tick" x="[\d.]+" y="[\d.]+" text-anchor="end">([^<]+)<\/text>/g)].map((m) => Number(m[1]));
}

/** "1/1.41" → 0.709…, "2" → 2. */
const labelValue = (label: string) => (label.startsWith('1/') ? 1 / Number(label.slice(2)) : Number(label));

/** `eval --html` of the official GPT-4 predictions on the shared databases (mini-dev v1: 360 of its 500 questions are on other databases). */
describe('the eval HTML report (a real eval of the shared BIRD files)', { skip: birdDataMissing() }, () => {
  let dir: string;
  let timed: string;
  let untimed: string;
  before(() => {
    dir = tempDir('ves-lens-html-');
    timed = fs.readFileSync(
      evalReport(dir, 'timed', { model: 'gpt-4', metrics: 'ex,f1,ves,rves', shard: '1/10', html: true }).html!,
      'utf8',
    );
    untimed = fs.readFileSync(evalReport(dir, 'scores', { model: 'gpt-4', metrics: 'ex,f1', html: true }).html!, 'utf8');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists the scored questions first and folds the skipped ones last, saying how many and on which databases', () => {
    const table = untimed.slice(
      untimed.indexOf('<table id="questions"'),
      untimed.indexOf('</table>', untimed.indexOf('<table id="questions"')),
    );
    const outcomes = [...table.matchAll(/<tr id="q-\d+" data-outcome="([a-z_ ]+)"/g)].map((m) => m[1]);
    assert.equal(outcomes.length, 140, 'the 140 questions of the three shared databases');
    assert.ok(!outcomes.includes('skipped'));
    const folded = untimed.slice(untimed.indexOf('<details id="skipped-questions">'));
    assert.ok(untimed.indexOf('<details id="skipped-questions">') > untimed.indexOf('<table id="questions"'), 'after the scored ones');
    assert.match(
      folded,
      /^<details id="skipped-questions"><summary>360 skipped questions, not scored \(database missing or not openable\): debit_card_specializing \(30\)/,
    );
    assert.equal([...folded.slice(0, folded.indexOf('</details>')).matchAll(/<tr id="q-/g)].length, 360);
  });

  it('wraps long words in the details column instead of widening the table', () => {
    assert.match(untimed, /td\.details \{[^}]*max-width: 460px;[^}]*overflow-wrap: anywhere;/);
    // A skipped question's reason is a long path: it sits in such a cell.
    assert.match(untimed, /<td class="details">database not found: \/[^<]+\.sqlite<\/td>/);
  });

  it('draws every score by difficulty on the same 0–100 axis (R-VES too)', () => {
    for (const metric of ['ex', 'f1', 'ves', 'rves']) {
      const ticks = yTicks(timed, `bars-${metric}`);
      assert.equal(ticks.length, 5, metric);
      const values = [...timed.matchAll(new RegExp(`data-category="[^"]+" data-value="([\\d.]+)"`, 'g'))];
      assert.ok(values.length > 0);
      assert.ok(Math.max(...ticks) >= 100, `${metric} axis tops at ${Math.max(...ticks)}`);
    }
    // The charts whose values stay under 100 all end at exactly 100.
    assert.equal(Math.max(...yTicks(timed, 'bars-rves')), 100);
    assert.equal(Math.max(...yTicks(timed, 'bars-ex')), 100);
  });

  it('labels the time-ratio histogram with the bins it has', () => {
    const chart = timed.slice(timed.indexOf('id="ratio-histogram"'));
    assert.doesNotMatch(timed, /powers of 2/);
    assert.match(timed, new RegExp(`Bins: ${ratioBinsText().replace(/[()×√/]/g, (c) => `\\${c}`)}`));
    const categories = [...new Set([...chart.slice(0, chart.indexOf('</svg>')).matchAll(/data-category="([^"]+)"/g)].map((m) => m[1]))];
    assert.ok(categories.length >= 10);
    // Each closed bin is as wide as the text says: ×√2 between 1/2 and 2, ×2 elsewhere.
    assert.match(
      ratioBinsText(),
      /×2 wide from 1\/32 to 1\/2, ×√2 wide from 1\/2 to 2, ×2 wide from 2 to 32; open below 1\/32 and from 32/,
    );
    for (const category of categories.filter((c) => c.includes('–'))) {
      const [low, high] = category.split('–').map(labelValue);
      const expected = low >= 0.5 - 1e-9 && high <= 2 + 1e-9 ? Math.SQRT2 : 2;
      assert.ok(Math.abs(high / low - expected) < 0.01, `${category}: ×${(high / low).toFixed(3)}, expected ×${expected.toFixed(3)}`);
    }
  });

  it('a report without timing has no time sections and says so once', () => {
    assert.doesNotMatch(untimed, /<section id="ratios">|<section id="costs">|timing fast|repeat interval/);
    assert.equal(untimed.match(/No timing in this report/g)?.length, 1);
    assert.match(timed, /<section id="ratios">/);
  });
});
