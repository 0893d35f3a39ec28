// A shifted gold or prediction file (issue 30): the shared mini-dev files with one line lost or added, scored as
// users run eval. A gold file shifted against the question file's own SQL is refused (exit 2) naming where and
// how many questions it moves; a shifted prediction file is named at the top of the report; whole files pass.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, runCli, tempDir } from '../helpers';

const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql');
const PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');

const evalWith = (gold: string | undefined, predictions: string, json?: string) =>
  runCli([
    'eval',
    '--questions',
    QUESTIONS,
    ...(gold ? ['--gold', gold] : []),
    '--predictions',
    predictions,
    '--db-root',
    path.join(BIRD_DATA, 'databases'),
    '--metrics',
    'ex',
    '--no-progress',
    ...(json ? ['--json', json] : []),
  ]);

describe('a shifted gold or prediction file', { skip: birdDataMissing() }, () => {
  it('a gold file one line short is refused, naming the question and the 461 questions it moves', () => {
    const lines = fs.readFileSync(GOLD, 'utf8').split('\n');
    const gold = path.join(tempDir(), 'gold.sql');
    fs.writeFileSync(gold, [...lines.slice(0, 39), ...lines.slice(40)].join('\n'));
    const run = evalWith(gold, PREDICTIONS);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /--gold \S+gold\.sql is shifted from question \d+ \(position 40\) on: a line is missing before it/);
    assert.match(run.stderr, /moves 461 questions onto another question's gold line: .*--gold-from questions/);
    assert.doesNotMatch(run.stdout + run.stderr, /wrote|EX/);
  });

  it('audit refuses the same gold file one line short', () => {
    const lines = fs.readFileSync(GOLD, 'utf8').split('\n');
    const gold = path.join(tempDir(), 'gold.sql');
    fs.writeFileSync(gold, [...lines.slice(0, 39), ...lines.slice(40)].join('\n'));
    const run = runCli([
      'audit',
      '--questions',
      QUESTIONS,
      '--gold',
      gold,
      '--db-root',
      path.join(BIRD_DATA, 'databases'),
      '--no-measure',
      '--no-progress',
    ]);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /is shifted from question \d+ \(position 40\) on: .*moves 461 questions/);
  });

  it('a gold file with an extra line is refused too', () => {
    const lines = fs.readFileSync(GOLD, 'utf8').split('\n');
    const gold = path.join(tempDir(), 'gold.sql');
    fs.writeFileSync(gold, [...lines.slice(0, 200), lines[199], ...lines.slice(200)].join('\n'));
    const run = evalWith(gold, PREDICTIONS);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /shifted from question \d+ \(position 201\) on: an extra line stands before it.*moves 300 questions/);
  });

  it('a prediction file one entry short is named at the top of the report with the questions it moves', () => {
    const official = JSON.parse(fs.readFileSync(PREDICTIONS, 'utf8')) as Record<string, string>;
    const values = Object.keys(official)
      .sort((a, b) => Number(a) - Number(b))
      .map((key) => official[key]);
    values.splice(100, 1);
    const predictions = path.join(tempDir(), 'predictions.json');
    fs.writeFileSync(predictions, JSON.stringify(Object.fromEntries(values.map((v, i) => [String(i), v]))));
    const json = path.join(tempDir(), 'report.json');
    const run = evalWith(undefined, predictions, json);
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as { headline_problems: string[] };
    const named = report.headline_problems.find((p) => p.includes('shifted'));
    assert.match(
      named ?? '',
      /the predictions are shifted from question \d+ \(position 128\) or earlier on: .*moves at least 373 questions/,
    );
    assert.match(run.stdout + run.stderr, /predictions are shifted/);
  });

  it('a prediction file of one SQL a line (no db_id) one line short is named, told by the tables each query reads', () => {
    const folder = path.join(BIRD_DATA, 'predictions', 'minidev-official');
    for (const file of fs.readdirSync(folder)) {
      const official = JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8')) as Record<string, string>;
      const sqls = Object.keys(official)
        .sort((a, b) => Number(a) - Number(b))
        .map((key) => official[key].split('\t----- bird -----\t')[0].replace(/\s+/g, ' '));
      const whole = path.join(tempDir(), 'whole.sql');
      fs.writeFileSync(whole, sqls.join('\n') + '\n');
      const wholeRun = evalWith(undefined, whole);
      assert.equal(wholeRun.status, 0, wholeRun.stderr);
      assert.doesNotMatch(wholeRun.stdout + wholeRun.stderr, /shifted/, file);
      const short = path.join(tempDir(), 'short.sql');
      fs.writeFileSync(short, [...sqls.slice(0, 420), ...sqls.slice(421)].join('\n') + '\n');
      const shortRun = evalWith(undefined, short);
      assert.equal(shortRun.status, 0, shortRun.stderr);
      assert.match(
        shortRun.stdout,
        /the predictions are shifted from question \d+ \(position 42[12]\) or earlier on: a line is missing/,
        file,
      );
    }
  });

  it('the whole files are not taken for shifted ones', () => {
    const run = evalWith(GOLD, PREDICTIONS);
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, /shifted/);
  });
});
