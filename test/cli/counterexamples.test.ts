import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { fragileDeltaNotes } from '../../src/core/report/fragileDelta';
import type { ReportQuestion } from '../../src/core/eval/reportFile';
import { BIRD_DATA, birdDataMissing, runCli, SAMPLE_SUPERHERO, tempDir } from '../helpers';

const skip = birdDataMissing();
const Q = path.join(BIRD_DATA, 'questions');
const args = (out: string) => [
  'eval',
  '--questions',
  path.join(Q, 'mini_dev_sqlite.v1-2024.json'),
  '--gold',
  path.join(Q, 'mini_dev_sqlite_gold.v1-2024.sql'),
  '--predictions',
  path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json'),
  '--db-root',
  path.join(BIRD_DATA, 'databases'),
  '--metrics',
  'ex',
  '--shard',
  '1/4',
  '--no-progress',
  '--counterexample-seconds',
  '1',
  '--counterexamples',
  path.join(out, 'witnesses'),
];

describe('ves-lens eval --counterexamples', { skip }, () => {
  it('writes witnesses, reports them per question, in the summary, the terminal and the HTML report', () => {
    const out = tempDir();
    const run = runCli([...args(out), '--json', path.join(out, 'r.json'), '--html', path.join(out, 'r.html')], { timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /of \d+ searched \(\d+ EX-correct predictions\) return a different result from the gold on a counterexample database/,
    );
    assert.match(run.stdout, /provably equivalent/);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'r.json'), 'utf8'));
    const robustness = report.summary.robustness;
    const witnesses = report.questions.filter((q: ReportQuestion) => q.counterexample);
    assert.ok(witnesses.length > 0);
    assert.equal(robustness.with_counterexample, witnesses.length);
    for (const q of witnesses) {
      assert.ok(fs.existsSync(q.counterexample.database), q.counterexample.database);
      assert.ok(q.counterexample.how.length > 0);
      assert.ok(Array.isArray(q.counterexample.gold_rows) && Array.isArray(q.counterexample.prediction_rows));
    }
    const html = fs.readFileSync(path.join(out, 'r.html'), 'utf8');
    assert.match(html, /id="counterexamples"/);
    assert.match(html, /Can EX be trusted here\?/);
  });

  it('refuses a file as the witness folder, naming the option', () => {
    const out = tempDir();
    const file = path.join(out, 'witnesses');
    fs.writeFileSync(file, 'not a folder');
    const run = runCli(args(out), { timeout: 60_000 });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--counterexamples: .* is a file/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  });
});

describe('--counterexamples is checked by real path, as --json', { skip }, () => {
  it('refuses a folder that is a symbolic link into --db-root, naming both', () => {
    const out = tempDir();
    const dbRoot = path.join(out, 'dbs');
    fs.mkdirSync(path.join(dbRoot, 'superhero'), { recursive: true });
    fs.copyFileSync(SAMPLE_SUPERHERO, path.join(dbRoot, 'superhero', 'superhero.sqlite'));
    fs.symlinkSync(path.join(dbRoot, 'superhero'), path.join(out, 'witnesses'));
    const run = runCli(
      args(out).map((arg) => (arg === path.join(BIRD_DATA, 'databases') ? dbRoot : arg)),
      { timeout: 60_000 },
    );
    assert.equal(run.status, 2, run.stderr);
    assert.match(
      run.stderr,
      /--counterexamples: .*witnesses \(through .*dbs\/superhero\) is inside the database folder .*dbs \(--db-root\)/,
    );
    assert.deepEqual(fs.readdirSync(path.join(dbRoot, 'superhero')), ['superhero.sqlite']);
  });
});

describe('compare says when an EX change rests on fragile questions', () => {
  it('counts the changed questions with a counterexample or an EX-fragile mismatch', () => {
    const q = (ex: 0 | 1, extra: Partial<ReportQuestion> = {}) => ({ ex, ...extra }) as ReportQuestion;
    const fragile = { kind: 'float_digits' as const, detail: '' };
    const notes = fragileDeltaNotes(
      ['a', 'b'],
      [
        [q(0, { ex_fragile: fragile }), q(0), q(1)],
        [q(1), q(1), q(1)],
      ],
    );
    assert.equal(notes.length, 1);
    assert.match(notes[0], /^1 of the 2 questions whose EX differs between a and b/);
    assert.deepEqual(fragileDeltaNotes(['a', 'b'], [[q(0)], [q(1)]]), []);
  });
});
