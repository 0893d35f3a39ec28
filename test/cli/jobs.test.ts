import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';
import { MINIDEV_INPUTS } from '../evalReports';

const SAMPLE = path.join(REPO_ROOT, 'sample');

const miniDevArgs = (predictions: string) => [
  'eval',
  ...MINIDEV_INPUTS,
  '--predictions',
  path.join(BIRD_DATA, 'predictions', 'minidev-official', predictions),
  '--metrics',
  'ex,f1',
  '--no-progress',
];

/** The report without what describes the run rather than its scores (the tool's version line, the inputs). */
function scores(file: string) {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  return { summary: report.summary, problems: report.problems, questions: report.questions };
}

describe('eval --jobs (a real process)', () => {
  it('refuses a --jobs that is not a positive whole number, naming the option', () => {
    for (const value of ['0', '-2', '1.5', 'many']) {
      const run = runCli(['eval', '--questions', path.join(SAMPLE, 'mini_dev_superhero.json'), '--predictions', 'x.sql', '--jobs', value]);
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /--jobs: expected a positive (whole )?number/);
      assert.doesNotMatch(run.stderr, /\n\s+at /); // no stack trace
    }
  });

  it('writes the same scores, question by question in the same order, with --jobs 1 and --jobs 2', { skip: birdDataMissing() }, () => {
    const dir = tempDir();
    const reports = ['1', '2'].map((jobs) => {
      const json = path.join(dir, `jobs-${jobs}.json`);
      const run = runCli([...miniDevArgs('predict_mini_dev_gpt-4-o_cot_SQLite.json'), '--jobs', jobs, '--json', json]);
      assert.equal(run.status, 0, run.stderr);
      return { stdout: run.stdout, scores: scores(json) };
    });
    assert.equal(reports[1].stdout, reports[0].stdout);
    assert.deepEqual(reports[1].scores, reports[0].scores);
    assert.equal(reports[0].scores.questions.length, 500);
    assert.ok(reports[0].scores.questions.filter((q: { outcome: string }) => q.outcome === 'correct').length > 50);
    // A report that times nothing explains nothing: only a timed pair's plan cost is ever read (issue 33).
    for (const q of reports[1].scores.questions) assert.equal(q.plan_cost, undefined, `question ${q.index}`);
  });

  it('explains each timed pair in the lane that scored it, and no other question', () => {
    const json = path.join(tempDir(), 'timed.json');
    const args = ['--questions', path.join(SAMPLE, 'mini_dev_superhero.json'), '--gold', path.join(SAMPLE, 'mini_dev_superhero_gold.sql')];
    const run = runCli([
      'eval',
      ...args,
      '--predictions',
      path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      '--db-root',
      SAMPLE,
      '--metrics',
      'ex,rves',
      '--jobs',
      '2',
      '--no-gold-cache',
      '--json',
      json,
      '--no-progress',
    ]);
    assert.equal(run.status, 0, run.stderr);
    const questions: { index: number; outcome: string; plan_cost?: { gold: unknown; pred: unknown } }[] = JSON.parse(
      fs.readFileSync(json, 'utf8'),
    ).questions;
    const correct = questions.filter((q) => q.outcome === 'correct');
    assert.ok(correct.length >= 5 && correct.length < questions.length, `${correct.length} of ${questions.length} correct`);
    for (const q of questions) {
      if (q.outcome === 'correct') assert.ok(q.plan_cost?.gold && q.plan_cost.pred, `question ${q.index}: ${JSON.stringify(q.plan_cost)}`);
      else assert.equal(q.plan_cost, undefined, `question ${q.index} (${q.outcome})`);
    }
  });

  it('stays under 1 GiB with huge results in both lanes, each failing or scored as with one lane', () => {
    const dir = tempDir();
    const predictions = [
      'SELECT zeroblob(8000000) FROM hero_power',
      'SELECT a.id, b.superhero_name FROM superhero a, superhero b LIMIT 80000',
      'SELECT zeroblob(8000000) FROM hero_power',
      'SELECT a.id, b.superhero_name FROM superhero a, superhero b LIMIT 80000',
      'SELECT count(*) FROM superhero',
    ];
    const questions = predictions.map((_, i) => ({
      question_id: i,
      db_id: 'superhero',
      question: '',
      evidence: '',
      SQL: 'SELECT count(*) FROM superhero',
      difficulty: 'simple',
    }));
    fs.writeFileSync(path.join(dir, 'questions.json'), JSON.stringify(questions));
    fs.writeFileSync(path.join(dir, 'predictions.sql'), predictions.join('\n') + '\n');
    const rssFile = path.join(dir, 'rss');
    const json = path.join(dir, 'out.json');
    const args = ['--questions', path.join(dir, 'questions.json'), '--predictions', path.join(dir, 'predictions.sql'), '--db-root', SAMPLE];
    const run = spawnSync(
      process.execPath,
      [
        '--require',
        path.join(REPO_ROOT, 'bench', 'peak-rss.cjs'),
        CLI,
        'eval',
        ...args,
        '--metrics',
        'ex,f1',
        '--max-rows',
        '100000',
        '--jobs',
        '2',
        '--json',
        json,
      ],
      {
        encoding: 'utf8',
        env: cliEnv({ VES_LENS_RSS_FILE: rssFile }),
      },
    );
    assert.equal(run.status, 0, run.stderr);
    const peak = Number(fs.readFileSync(rssFile, 'utf8'));
    assert.ok(peak > 0 && peak < 2 ** 30, `peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`);
    const outcomes = JSON.parse(fs.readFileSync(json, 'utf8')).questions.map((q: { outcome: string; error: string | null }) => [
      q.outcome,
      q.error,
    ]);
    // 80,000 rows are within --max-rows 100,000: a mismatch, as with one lane, not a lane share's error.
    assert.deepEqual(
      outcomes.map(([outcome]: [string]) => outcome),
      ['prediction_error', 'mismatch', 'prediction_error', 'mismatch', 'correct'],
    );
    assert.match(outcomes[0][1], /more than 128 MiB of values/);
  });
});
