// `ves-lens compare` and `eval --shard` + `ves-lens merge`, as real processes on real data.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, REPO_ROOT, runCli, tempDir } from '../helpers';
import { exactMcNemarP } from '../oracles/mcnemar';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const run = (args: string[]) => runCli(args);
const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql');
const PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-official');
const FILES = {
  gpt4: 'predict_mini_dev_gpt-4_sqlite.json',
  cot: 'predict_mini_dev_gpt-4-o_cot_SQLite.json',
  llama: 'predict_mini_dev_meta-llama-3-8b-instruct-2_sqlite.json',
};

describe('ves-lens compare (real processes, the official mini-dev prediction files)', { skip: birdDataMissing() }, () => {
  const dir = tempDir();
  const reports: Record<string, string> = {};

  before(() => {
    // EX and Soft-F1 only: no timing, so each eval of the 140 scorable questions takes a second or two.
    for (const [name, file] of Object.entries(FILES)) {
      reports[name] = path.join(dir, `${name}.json`);
      const result = run([
        'eval',
        '--questions',
        QUESTIONS,
        '--gold',
        GOLD,
        '--predictions',
        path.join(PREDICTIONS, file),
        '--db-root',
        path.join(BIRD_DATA, 'databases'),
        '--metrics',
        'ex,f1',
        '--json',
        reports[name],
        '--no-progress',
      ]);
      assert.equal(result.status, 0, result.stderr);
    }
  });

  it('--json: runs, deltas (B − A) with intervals, McNemar p; deterministic', () => {
    const first = run(['compare', reports.gpt4, reports.cot, '--json']);
    assert.equal(first.status, 0, first.stderr);
    const out = JSON.parse(first.stdout);
    const [a, b] = [read(reports.gpt4), read(reports.cot)];
    assert.deepEqual(
      out.runs.map((r: { file: string }) => r.file),
      [reports.gpt4, reports.cot],
    );
    assert.deepEqual(out.runs[0].summary, a.summary);
    assert.ok(Math.abs(out.deltas.ex.delta - (b.summary.total.ex - a.summary.total.ex)) < 1e-9);
    assert.ok(Math.abs(out.deltas.f1.delta - (b.summary.total.f1 - a.summary.total.f1)) < 1e-9);
    for (const key of ['ex', 'f1'])
      assert.ok(out.deltas[key].low <= out.deltas[key].delta && out.deltas[key].delta <= out.deltas[key].high);
    assert.equal(out.deltas.ves, undefined, 'no VES in either report: no row');

    const scored = a.questions
      .map((q: { ex: number; outcome: string }, i: number) => [q, b.questions[i]])
      .filter(([q]: { outcome: string }[]) => q.outcome !== 'skipped');
    const onlyA = scored.filter(([x, y]: { ex: number }[]) => x.ex === 1 && y.ex === 0).length;
    const onlyB = scored.filter(([x, y]: { ex: number }[]) => x.ex === 0 && y.ex === 1).length;
    assert.ok(Math.abs(out.ex_mcnemar_p - exactMcNemarP(onlyA, onlyB)) < 1e-9);
    assert.equal(out.changes.now_correct.length, onlyB);
    assert.equal(out.changes.now_wrong.length, onlyA);
    assert.ok(
      out.changes.now_correct.every((c: { question_id: number; from: string; to: string }) => c.to === 'correct' && c.from !== 'correct'),
    );

    const second = run(['compare', reports.gpt4, reports.cot, '--json']);
    assert.equal(second.stdout, first.stdout, 'the seeded bootstrap gives the same output');
  });

  it('the terminal table has a column per run and Δ, the test, and the lists of what changed', () => {
    const result = run(['compare', reports.gpt4, reports.cot]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│\s+│\s+gpt4 │\s+cot │\s+Δ \(95 % CI\) │\s+n │/);
    assert.match(result.stdout, /│ EX\s+│\s+59\.29 │\s+77\.14 │ \+17\.86 \[\+[\d.]+, \+[\d.]+\] │ 140 │/);
    assert.match(result.stdout, /EX, McNemar exact test gpt4 vs cot: \d+ correct only in gpt4, \d+ only in cot, p [<=] /);
    assert.match(result.stdout, /now correct \(\d+\)\n {2}question \d+ \(/);
    assert.match(result.stdout, /note: 360 questions skipped in at least one run/);
  });

  it('three files: each later one against the first; --html writes one self-contained file', () => {
    const html = path.join(dir, 'three.html');
    const result = run(['compare', reports.gpt4, reports.cot, reports.llama, '--json', '--html', html]);
    assert.equal(result.status, 0, result.stderr);
    const out = JSON.parse(result.stdout);
    assert.deepEqual(
      out.deltas.map((d: { file: string }) => d.file),
      [reports.cot, reports.llama],
    );
    assert.equal(out.ex_mcnemar_p.length, 2);
    const page = fs.readFileSync(html, 'utf8');
    assert.match(page, /<table id="comparison">/);
    assert.doesNotMatch(page, /<(script|link|img)[^>]+(src|href)=/i, 'nothing loaded from elsewhere');
  });

  it('refuses reports of other questions and files that are no eval report (exit 2, no stack trace)', () => {
    const sample = path.join(dir, 'sample.json');
    assert.equal(
      run([
        'eval',
        '--questions',
        path.join(SAMPLE, 'mini_dev_superhero.json'),
        '--predictions',
        path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
        '--db-root',
        SAMPLE,
        '--metrics',
        'ex',
        '--json',
        sample,
        '--no-progress',
      ]).status,
      0,
    );
    const other = run(['compare', reports.gpt4, sample]);
    assert.equal(other.status, 2);
    assert.match(
      other.stderr,
      new RegExp(
        `error: ${sample.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: does not cover the same questions as .*gpt4\\.json: 52 questions against 500`,
      ),
    );
    assert.doesNotMatch(other.stderr, /\n\s+at /);
    const predictions = run(['compare', reports.gpt4, path.join(PREDICTIONS, FILES.cot)]);
    assert.equal(predictions.status, 2);
    assert.match(predictions.stderr, /\(key "questions"\): a prediction file, not an eval report/);
    const one = run(['compare', reports.gpt4]);
    assert.equal(one.status, 2);
    assert.match(one.stderr, /at least two eval JSON reports/);
  });
});

describe('eval --shard i/n and ves-lens merge (real processes)', () => {
  const dir = tempDir();
  const base = [
    '--questions',
    path.join(SAMPLE, 'mini_dev_superhero.json'),
    '--gold',
    path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
    '--predictions',
    path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
    '--db-root',
    SAMPLE,
    '--no-progress',
  ];

  it('three shards merged equal one run over all questions (EX, Soft-F1: everything deterministic)', () => {
    const whole = path.join(dir, 'whole.json');
    assert.equal(run(['eval', ...base, '--metrics', 'ex,f1', '--json', whole]).status, 0);
    const shards = [1, 2, 3].map((i) => path.join(dir, `shard-${i}.json`));
    shards.forEach((file, i) => {
      const result = run(['eval', ...base, '--metrics', 'ex,f1', '--shard', `${i + 1}/3`, '--json', file]);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stderr, new RegExp(`\\d+ questions from .* \\(shard ${i + 1}/3 of 52\\)`));
      const report = read(file);
      assert.deepEqual(report.inputs.shard, { index: i + 1, count: 3, of_questions: 52 });
      assert.ok(report.questions.every((q: { index: number }) => q.index % 3 === i));
    });
    const merged = path.join(dir, 'merged.json');
    const result = run(['merge', shards[2], shards[0], shards[1], '--json', merged]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│ EX\s+│\s+85\.71 │\s+80\.77 │\s+58\.33 │\s+76\.92 │/);
    assert.deepEqual(read(merged), read(whole));
  });

  it('with timing: the same structure, identical outcomes, EX, F1 and counts; only timing-dependent values may differ', () => {
    const questions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, 8);
    const gold = fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero_gold.sql'), 'utf8').split('\n').slice(0, 8).join('\n') + '\n';
    const predictions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'predict_gpt-4_superhero.json'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'q8.json'), JSON.stringify(questions));
    fs.writeFileSync(path.join(dir, 'g8.sql'), gold);
    fs.writeFileSync(path.join(dir, 'p8.json'), JSON.stringify(Object.fromEntries(Object.entries(predictions).slice(0, 8))));
    const args = [
      '--questions',
      path.join(dir, 'q8.json'),
      '--gold',
      path.join(dir, 'g8.sql'),
      '--predictions',
      path.join(dir, 'p8.json'),
      '--db-root',
      SAMPLE,
      '--no-progress',
    ];
    const whole = path.join(dir, 'timed-whole.json');
    const ownCache = { env: { XDG_CACHE_HOME: tempDir() } }; // the whole run stores the gold results the shards take
    assert.equal(runCli(['eval', ...args, '--json', whole], ownCache).status, 0);
    const shards = [1, 2].map((i) => path.join(dir, `timed-${i}.json`));
    shards.forEach((file, i) => assert.equal(runCli(['eval', ...args, '--shard', `${i + 1}/2`, '--json', file], ownCache).status, 0));
    const merged = path.join(dir, 'timed-merged.json');
    assert.equal(run(['merge', ...shards, '--json', merged]).status, 0);
    const [a, b] = [read(whole), read(merged)];
    assert.deepEqual(Object.keys(b), Object.keys(a));
    const { gold_cache: wholeCache, ...wholeInputs } = a.inputs;
    const { gold_cache: mergedCache, ...mergedInputs } = b.inputs;
    assert.deepEqual(mergedInputs, wholeInputs);
    // The shards took from the gold-result cache what the whole run stored there: the merged report sums their counts.
    assert.ok(wholeCache.stored > 0);
    assert.deepEqual([mergedCache.hits, mergedCache.stored], [wholeCache.stored, 0]);
    assert.deepEqual(b.problems, a.problems);
    assert.equal(b.questions.length, a.questions.length);
    a.questions.forEach((q: Record<string, unknown>, i: number) => {
      const m = b.questions[i];
      assert.deepEqual(Object.keys(m).sort(), Object.keys(q).sort(), `question ${q.question_id}: same fields`);
      for (const key of ['index', 'question_id', 'outcome', 'ex', 'f1', 'same_program', 'error', 'plan_cost'])
        assert.deepEqual(m[key], q[key], `question ${q.question_id}: ${key}`);
    });
    for (const group of Object.keys(a.summary)) {
      if (group === 'skipped') continue;
      for (const key of ['count', 'ex', 'f1', 'outcomes'])
        assert.deepEqual(b.summary[group][key], a.summary[group][key], `${group}.${key}`);
    }
  });

  it('refuses a missing shard, a shard given twice, a report that is no shard, and shards of another split', () => {
    const s = (i: number, n: number) => {
      const file = path.join(dir, `e${i}of${n}.json`);
      if (!fs.existsSync(file)) assert.equal(run(['eval', ...base, '--metrics', 'ex', '--shard', `${i}/${n}`, '--json', file]).status, 0);
      return file;
    };
    const out = path.join(dir, 'never.json');
    const cases: [string[], RegExp][] = [
      [[s(1, 2)], /shard 2\/2 missing: give all 2 shard reports/],
      [[s(1, 2), s(1, 2), s(2, 2)], /\(inputs\.shard\.index\): shard 1\/2 again/],
      [[s(1, 2), s(2, 3)], /\(inputs\.shard\.count\): a shard of 3, but .* is a shard of 2/],
      [[path.join(dir, 'whole.json')], /\(inputs\.shard\): not a shard report/],
    ];
    for (const [files, message] of cases) {
      const result = run(['merge', ...files, '--json', out]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, message);
    }
    assert.equal(fs.existsSync(out), false);
    const bad = run(['eval', ...base, '--shard', '3/2']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--shard: the shard number must be from 1 to 2, got 3/);
  });
});
