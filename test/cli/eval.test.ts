import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT, runCli, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const sampleArgs = [
  '--questions',
  path.join(SAMPLE, 'mini_dev_superhero.json'),
  '--gold',
  path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  '--predictions',
  path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
  '--db-root',
  SAMPLE,
];

const run = (args: string[]) => runCli(args);

const CONTRACT_KEYS = [
  'index',
  'question_id',
  'db_id',
  'difficulty',
  'outcome',
  'ex',
  'f1',
  'time_ratio',
  'ves',
  'rves',
  'error',
  'gold_ms',
  'pred_ms',
  'runs',
];

describe('ves-lens eval (a real process)', () => {
  it('prints the per-difficulty table and writes the JSON contract', () => {
    const json = path.join(tempDir(), 'out.json');
    const result = run(['eval', ...sampleArgs, '--metrics', 'ex,f1', '--json', json]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│ count\s+│\s+14 │\s+26 │\s+12 │\s+52 │/);
    assert.match(result.stdout, /│ EX\s+│\s+85\.71 │\s+80\.77 │\s+58\.33 │\s+76\.92 │/);
    assert.match(result.stdout, /Soft-F1/);
    assert.match(result.stdout, /prediction error \(1\)\n\s+#15 question 744 \(superhero\): no such table: dual/);

    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.equal(report.tool.name, 'ves-lens');
    assert.match(report.tool.sqlite, /^3\.\d+\.\d+$/);
    assert.deepEqual(report.inputs.metrics, ['ex', 'f1']);
    assert.equal(report.summary.total.count, 52);
    assert.equal(report.summary.simple.count, 14);
    assert.equal(report.questions.length, 52);
    for (const key of CONTRACT_KEYS) assert.ok(key in report.questions[0], `questions[].${key}`);
    assert.equal(report.questions[0].ves, null, 'not requested, so null');
    const correct = report.questions.filter((q: { outcome: string }) => q.outcome === 'correct').length;
    assert.equal(report.summary.total.ex, (correct / 52) * 100);
  });

  it('times correct predictions in fast mode: each carries its ratio, interval and runs', () => {
    const dir = tempDir();
    // The first 6 sample questions keep the run short.
    const questions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, 6);
    fs.writeFileSync(path.join(dir, 'q.json'), JSON.stringify(questions));
    const json = path.join(dir, 'out.json');
    const result = run([
      'eval',
      '--questions',
      path.join(dir, 'q.json'),
      '--predictions',
      path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      '--db-root',
      SAMPLE,
      '--json',
      json,
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│ VES /);
    assert.match(result.stdout, /│ R-VES /);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    const timed = report.questions.filter((q: { outcome: string }) => q.outcome === 'correct');
    assert.ok(timed.length >= 3);
    for (const q of timed) {
      if (q.same_program) {
        assert.equal(q.time_ratio, 1, 'the same program is not timed: ratio 1');
        continue;
      }
      assert.ok(q.time_ratio > 0);
      assert.ok(q.time_ratio_interval[0] <= q.time_ratio && q.time_ratio <= q.time_ratio_interval[1]);
      assert.ok(q.runs >= 3);
      assert.equal(q.ves, Math.sqrt(q.time_ratio));
      assert.equal(q.timing, 'fast');
    }
    for (const q of report.questions.filter((x: { outcome: string }) => x.outcome !== 'correct')) assert.equal(q.ves, 0);
  });

  it('runs the official protocol with the number of iterations asked for', () => {
    const dir = tempDir();
    const questions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, 2);
    fs.writeFileSync(path.join(dir, 'q.json'), JSON.stringify(questions));
    const json = path.join(dir, 'out.json');
    const result = run([
      'eval',
      '--questions',
      path.join(dir, 'q.json'),
      '--predictions',
      path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      '--db-root',
      SAMPLE,
      '--timing',
      'official',
      '--iterations',
      '4',
      '--json',
      json,
    ]);
    assert.equal(result.status, 0, result.stderr);
    const timed = JSON.parse(fs.readFileSync(json, 'utf8')).questions.filter((q: { outcome: string }) => q.outcome === 'correct');
    assert.ok(timed.length > 0);
    for (const q of timed) {
      assert.equal(q.timing, 'official-ves');
      assert.equal(q.runs, 4);
      assert.ok(q.rves_time_ratio > 0, "R-VES has its own ratio, from mini_dev's protocol");
      assert.equal(q.rves, Math.sqrt(q.rves_reward), 'official mode: the reward of the official ratio, as the script');
      assert.ok(q.notes.some((n: string) => /R-VES timing: \d+ of 4 ratios dropped/.test(n)));
      // The quantity fast mode estimates, from the same samples: within the range of the single ratios.
      assert.ok(q.time_ratio_typical > 0 && q.rves_time_ratio_typical > 0, 'official mode reports the typical ratio too');
    }
  });

  it('names the file and line of malformed JSON and exits 2', () => {
    const bad = path.join(tempDir(), 'bad.json');
    fs.writeFileSync(bad, '{\n  "0": "SELECT 1"\n  "1": "SELECT 2"\n}');
    const result = run(['eval', ...sampleArgs.slice(0, 4), '--predictions', bad, '--db-root', SAMPLE]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /bad\.json \(line 3, column 3\): not valid JSON/);
    assert.doesNotMatch(result.stderr, /at .*\.js:\d+/, 'no stack trace for a user error');
  });

  it('scores the other questions when one entry is bad, and lists the problem', () => {
    const predictions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'predict_gpt-4_superhero.json'), 'utf8'));
    predictions['3'] = 42;
    const file = path.join(tempDir(), 'p.json');
    fs.writeFileSync(file, JSON.stringify(predictions));
    const result = run(['eval', ...sampleArgs.slice(0, 4), '--predictions', file, '--db-root', SAMPLE, '--metrics', 'ex']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /p\.json \(key "3"\): value is not a string; scored as an empty query/);
    assert.match(result.stdout, /│ count\s+│\s+14 │\s+26 │\s+12 │\s+52 │/);
  });

  it('rejects an unknown metric with exit code 2', () => {
    const result = run(['eval', ...sampleArgs, '--metrics', 'ex,speed']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--metrics: unknown metric "speed"/);
  });
});
