import { strict as assert } from 'node:assert';
import { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { loadPredictions } from '../../src/core/bird/predictions';
import { loadQuestions } from '../../src/core/bird/questions';
import { buildTasks, EvalTask } from '../../src/core/bird/tasks';
import { DEFAULT_BUSY_TIMEOUT_MS, setBusyTimeout } from '../../src/core/db/sqlite/sqliteConnection';
import { sqliteFolder } from '../../src/core/db/source';
import { databaseRunProblems } from '../../src/core/eval/databaseProblems';
import { evaluateTasks } from '../../src/core/eval/evaluate';
import { REPO_ROOT, runCli } from '../helpers';
import { copiedRoot, holdExclusive } from '../lockedDatabase';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const QUESTIONS = path.join(SAMPLE, 'mini_dev_superhero.json');
const PREDICTIONS = path.join(SAMPLE, 'predict_gpt-4_superhero.json');

function tasks(count: number): EvalTask[] {
  return buildTasks(loadQuestions(QUESTIONS).questions, loadPredictions(PREDICTIONS), undefined, []).slice(0, count);
}

const evaluate = (root: string, count: number) =>
  evaluateTasks(tasks(count), { source: sqliteFolder(root), metrics: ['ex', 'f1'], timing: 'fast', timeoutMs: 30_000, maxRows: 500_000 });

describe('a database another process holds locked (issue 20)', () => {
  const lockers: ChildProcess[] = [];
  afterEach(() => {
    setBusyTimeout(DEFAULT_BUSY_TIMEOUT_MS);
    for (const locker of lockers.splice(0)) locker.kill();
  });
  const roots: string[] = [];
  after(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

  it('held past the busy timeout: each question waits, then is "locked" (0, as Python scores it), with a headline', async () => {
    const root = copiedRoot();
    roots.push(root);
    lockers.push(await holdExclusive(path.join(root, 'superhero', 'superhero.sqlite'), 60));
    setBusyTimeout(400);
    const started = performance.now();
    const results = await evaluate(root, 3);
    const elapsed = performance.now() - started;
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['locked', 'locked', 'locked'],
    );
    for (const r of results) {
      assert.equal(r.ex, 0);
      assert.equal(r.f1, 0);
      assert.match(
        r.error ?? '',
        /^gold: database is locked: another process held a lock on it for longer than the busy timeout \(0\.4 s\)/,
      );
    }
    // The wait happened (SQLite's busy handler on a read-only connection), once per question: the prediction is not run.
    assert.ok(elapsed >= 3 * 350 && elapsed < 3 * 3000, `waited ${elapsed.toFixed(0)} ms`);
    const problems = databaseRunProblems(sqliteFolder(root), results);
    assert.equal(problems.length, 1);
    assert.equal(problems[0].headline, true);
    assert.match(problems[0].message, /3 questions scored 0 \(outcome "locked"\).*not comparable/);
  });

  it('released within the busy timeout: the run waits and scores exactly as an unlocked run', async () => {
    const root = copiedRoot();
    roots.push(root);
    const unlocked = await evaluate(root, 6);
    lockers.push(await holdExclusive(path.join(root, 'superhero', 'superhero.sqlite'), 1.5));
    const started = performance.now();
    const locked = await evaluate(root, 6);
    assert.ok(performance.now() - started >= 1000, 'the first query waited for the lock');
    const scores = (rs: typeof locked) => rs.map((r) => ({ outcome: r.outcome, ex: r.ex, f1: r.f1, error: r.error }));
    assert.deepEqual(scores(locked), scores(unlocked));
    assert.ok(!locked.some((r) => r.outcome === 'locked'));
    assert.deepEqual(databaseRunProblems(sqliteFolder(root), locked), []);
  });

  it('--timeout 0.001, 20 times: interrupts that land while a statement is prepared end in timeouts, never in a hang', async () => {
    let timeouts = 0;
    for (let run = 0; run < 20; run++) {
      const results = await evaluateTasks(tasks(52), {
        source: sqliteFolder(SAMPLE),
        metrics: ['ex', 'f1'],
        timing: 'fast',
        timeoutMs: 1,
        maxRows: 500_000,
      });
      assert.equal(results.length, 52);
      timeouts += results.filter((r) => r.outcome === 'timeout').length;
    }
    assert.ok(timeouts > 0, 'a 1 ms limit interrupts some queries');
    const cli = runCli(['eval', '--questions', QUESTIONS, '--predictions', PREDICTIONS, '--db-root', SAMPLE, '--timeout', '0.001'], {
      timeout: 120_000,
    });
    assert.equal(cli.status, 0, cli.stderr);
    assert.doesNotMatch(cli.stderr, /never returned/);
  });

  it('the command line: --busy-timeout, the "locked" outcome and the headline problem; exit 0', async () => {
    const root = copiedRoot();
    roots.push(root);
    lockers.push(await holdExclusive(path.join(root, 'superhero', 'superhero.sqlite'), 60));
    const questions = path.join(root, 'q.json');
    fs.writeFileSync(questions, JSON.stringify(JSON.parse(fs.readFileSync(QUESTIONS, 'utf8')).slice(0, 2)));
    const run = runCli(
      [
        'eval',
        '--questions',
        questions,
        '--predictions',
        PREDICTIONS,
        '--db-root',
        root,
        '--metrics',
        'ex',
        '--busy-timeout',
        '0.3',
        '--no-progress',
      ],
      { timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /│ database locked │ +1 │ +1 │ +2 │/);
    assert.match(run.stdout, /another process held this database locked past the busy timeout: 2 questions scored 0/);
    const bad = runCli(['eval', '--questions', questions, '--predictions', PREDICTIONS, '--db-root', root, '--busy-timeout', 'soon']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--busy-timeout: expected a positive number, got "soon"/);
  });
});
