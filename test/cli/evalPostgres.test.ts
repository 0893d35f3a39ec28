// `ves-lens eval --engine postgres` as users run it, on a real PostgreSQL 15 server (a throwaway cluster on a unix
// socket) loaded by `ves-lens load`: per-question EX and Soft-F1 equal to mini_dev's psycopg2 scoring on every
// official PostgreSQL prediction file, what ran the SQL said without the password, clear usage errors, and a
// server that goes away mid-run (the report written, exit 2, one line).
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';
import { startLoadedCluster, whenRunning } from '../pgCluster';

const PYTHON = '/usr/bin/python3';
const ORACLE = path.join(REPO_ROOT, 'test', 'oracles', 'minidev_pg_ex.py');
const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_postgresql_gold.sql');
const PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-postgresql');

const missing =
  localClusterMissing() ||
  birdDataMissing() ||
  (spawnSync(PYTHON, ['-c', 'import psycopg2']).status === 0 ? false : `${PYTHON} has no psycopg2 (run scripts/setup-postgres.sh)`);

interface Report {
  inputs: { engine: { engine: string; version: string; runs: string; location: string; layout: string }; db_root: string | null };
  questions: { ex: number; f1: number | null; outcome: string; error: string | null; question_id: number }[];
}

describe('eval --engine postgres', { skip: missing }, () => {
  let cluster: LocalCluster;
  before(() => {
    cluster = startLoadedCluster(path.join(BIRD_DATA, 'databases'));
  });
  after(() => cluster?.stop());
  /** EX and Soft-F1 of a prediction file on the loaded cluster, with the official PostgreSQL gold. */
  const scoring = (predictions: string) =>
    ['eval', '--db-url', cluster.url, '--questions', QUESTIONS, '--gold', GOLD, '--predictions', predictions].concat([
      '--metrics',
      'ex,f1',
      '--no-progress',
    ]);

  for (const file of fs.existsSync(PREDICTIONS) ? fs.readdirSync(PREDICTIONS).sort() : []) {
    it(`scores ${file} question by question as mini_dev's psycopg2 script does (EX and Soft-F1)`, () => {
      const predictions = path.join(PREDICTIONS, file);
      const json = path.join(tempDir(), 'report.json');
      const run = runCli([...scoring(predictions), '--engine', 'postgres', '--json', json]);
      assert.equal(run.status, 0, run.stderr);
      const oracle = spawnSync(PYTHON, [ORACLE, predictions, GOLD, cluster.socketDir, String(cluster.port), 'postgres', 'bird'], {
        encoding: 'utf8',
        maxBuffer: 2 ** 26,
      });
      assert.equal(oracle.status, 0, oracle.stderr);
      const expected = JSON.parse(oracle.stdout) as [number, number][];
      const { questions } = JSON.parse(fs.readFileSync(json, 'utf8')) as Report;
      assert.equal(questions.length, expected.length);
      const differences = questions
        .map((q, i) => ({ i, question: q.question_id, ours: [q.ex, q.f1 ?? 0], python: expected[i], outcome: q.outcome, error: q.error }))
        .filter(({ ours, python }) => ours[0] !== python[0] || Math.abs(ours[1] - python[1]) > 1e-12);
      assert.deepEqual(differences, []);
      assert.ok(
        expected.some(([ex]) => ex === 1),
        'some predictions are correct',
      );
    });
  }

  it('scores in lanes (several sessions) with the same results, in the same order, as one session', () => {
    const dir = tempDir();
    for (const file of fs.readdirSync(PREDICTIONS).sort()) {
      const reports = ['1', '3'].map((jobs) => {
        const json = path.join(dir, `${file}.${jobs}.json`);
        const run = runCli([...scoring(path.join(PREDICTIONS, file)), '--jobs', jobs, '--json', json]);
        assert.equal(run.status, 0, run.stderr);
        const report = JSON.parse(fs.readFileSync(json, 'utf8')) as Report & { summary: unknown };
        return { stdout: run.stdout, summary: report.summary, questions: report.questions };
      });
      assert.equal(reports[1].stdout, reports[0].stdout, file);
      assert.deepEqual(reports[1].summary, reports[0].summary, file);
      assert.deepEqual(reports[1].questions, reports[0].questions, file);
      const outcomes = new Set(reports[0].questions.map((q) => q.outcome));
      for (const outcome of ['correct', 'mismatch', 'skipped']) assert.ok(outcomes.has(outcome), `${file}: ${outcome}`);
    }
  });

  it('scores a prediction that does not compile without running its gold, as the scripts do; other failures run both', () => {
    // A gold that compiles but fails when run (division by zero on every row): whether it ran shows in the outcome.
    const failsWhenRun = 'SELECT 1 / (id - id) FROM superhero';
    const pairs: [gold: string, prediction: string][] = [
      [failsWhenRun, 'SELEC COUNT(*) FROM superhero'], // prediction does not compile: the gold is not run
      [failsWhenRun, 'SELECT nope FROM superhero'], // an unknown column: the same
      [failsWhenRun, 'DELETE FROM superhero'], // refused before anything runs: the same
      [failsWhenRun, 'SELECT 2 / (id - id) FROM superhero'], // compiles, fails when run: both run (the gold's error)
      ['SELECT nope FROM superhero', 'SELEC 1'], // neither compiles: both reported, the gold's error first
      ['SELECT COUNT(*) FROM superhero', 'SELECT COUNT(id) FROM superhero'],
    ];
    const folder = tempDir();
    const files = {
      questions: path.join(folder, 'questions.json'),
      gold: path.join(folder, 'gold.sql'),
      predictions: path.join(folder, 'predictions.json'),
      json: path.join(folder, 'report.json'),
    };
    const question = (i: number) => ({ question_id: i, db_id: 'superhero', question: '', evidence: '', SQL: '', difficulty: 'simple' });
    fs.writeFileSync(files.questions, JSON.stringify(pairs.map((_, i) => question(i))));
    fs.writeFileSync(files.gold, pairs.map(([gold]) => `${gold}\tsuperhero\n`).join(''));
    fs.writeFileSync(
      files.predictions,
      JSON.stringify(Object.fromEntries(pairs.map(([, pred], i) => [i, `${pred}\t----- bird -----\tsuperhero`]))),
    );
    const run = runCli([
      'eval',
      '--db-url',
      cluster.url,
      '--questions',
      files.questions,
      '--gold',
      files.gold,
      '--predictions',
      files.predictions,
      '--metrics',
      'ex,f1',
      '--json',
      files.json,
      '--no-progress',
    ]);
    assert.equal(run.status, 0, run.stderr);
    const questions = (
      JSON.parse(fs.readFileSync(files.json, 'utf8')) as { questions: (Report['questions'][number] & { notes: string[] })[] }
    ).questions;
    const goldNotRun = questions.map((q) => q.notes.some((note) => note.startsWith('gold not run')));
    assert.deepEqual(
      questions.map((q) => q.outcome),
      ['prediction_error', 'prediction_error', 'refused', 'gold_error', 'gold_error', 'correct'],
    );
    assert.deepEqual(goldNotRun, [true, true, true, false, false, false]);
    assert.deepEqual(
      questions.map((q) => [q.ex, q.f1]),
      [
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [1, 1],
      ],
    );
    assert.match(questions[0].error ?? '', /syntax error at or near "SELEC"/);
    assert.match(questions[3].error ?? '', /^gold: division by zero; prediction: division by zero/);
    assert.match(questions[4].error ?? '', /^gold: column "nope" does not exist; prediction: syntax error/);
  });

  it('says what ran the SQL, in the terminal and the JSON, and never the password', () => {
    const url = cluster.url.replace('postgres@', 'postgres:Sup3rSecretPw@');
    const json = path.join(tempDir(), 'report.json');
    const predictions = path.join(PREDICTIONS, 'predict_mini_dev_gpt-4_postgresql.json');
    const run = runCli([
      'eval',
      '--db-url',
      url,
      '--questions',
      QUESTIONS,
      '--gold',
      GOLD,
      '--predictions',
      predictions,
      '--metrics',
      'ex',
      '--json',
      json,
      '--no-progress',
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /PostgreSQL 15\.\d+.*\(server postgresql:\/\/postgres@localhost:\d+\/bird.*one-database layout\)/);
    const text = fs.readFileSync(json, 'utf8');
    for (const output of [run.stdout, run.stderr, text]) assert.ok(!output.includes('Sup3rSecretPw'));
    const { inputs } = JSON.parse(text) as Report;
    assert.equal(inputs.engine.engine, 'postgres');
    assert.equal(inputs.engine.runs, 'server');
    assert.match(inputs.engine.version, /^15\./);
    assert.equal(inputs.db_root, null);
  });

  it('refuses what cannot work before any question, naming the option', () => {
    const common = [
      'eval',
      '--questions',
      QUESTIONS,
      '--gold',
      GOLD,
      '--predictions',
      path.join(PREDICTIONS, 'predict_mini_dev_gpt-4_postgresql.json'),
      '--no-progress',
    ];
    const cases: [string[], RegExp][] = [
      [['--engine', 'postgres'], /--engine postgres: give the server with --db-url/],
      [['--engine', 'sqlite', '--db-url', cluster.url], /--db-url: a PostgreSQL or MySQL server; with --engine sqlite give --db-root/],
      // A MySQL server is an engine too now: the PostgreSQL gold is refused for its dialect, before any connection.
      [['--db-url', 'mysql://x@y/z'], /reads as PostgreSQL SQL .*but the engine is MySQL: pass --engine postgres/],
      [['--db-url', 'http://x@y/z'], /--db-url: expected postgresql:\/\/user@host:port\/database/],
      [['--db-url', cluster.url, '--scales', '1,10'], /--scales: scaled copies are SQLite files/],
      [
        ['--db-url', `postgresql://postgres:Sup3rSecretPw@localhost:1/bird?host=${encodeURIComponent(cluster.socketDir)}`],
        /--db-url: cannot reach the PostgreSQL server: .*ENOENT/,
      ],
      [['--db-root', path.join(BIRD_DATA, 'databases'), '--db-layout', 'schema'], /--db-layout: for a PostgreSQL server/],
    ];
    for (const [args, message] of cases) {
      const run = runCli([...common, ...args]);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.ok(!run.stderr.includes('Sup3rSecretPw') && !/\n\s+at /.test(run.stderr), run.stderr);
    }
  });

  // One session: the question the server died under and every later one are errors. Two lanes: the other lane's
  // questions, run meanwhile, keep their results; only the question under way when the server died is an error.
  const lost = [
    { jobs: '1', outcomes: ['correct', 'gold_error', 'gold_error', 'gold_error'], said: '3 questions were' },
    { jobs: '2', outcomes: ['correct', 'gold_error', 'correct', 'correct'], said: '1 question was' },
  ];
  for (const { jobs, outcomes, said } of lost)
    it(`ends a run whose server goes away (--jobs ${jobs}): only what it must are errors, the report is written, exit 2 with one line`, async () => {
      const doomed = startLocalCluster({ database: 'bird' });
      const folder = tempDir();
      const questions = path.join(folder, 'questions.json');
      const predictions = path.join(folder, 'predictions.json');
      const json = path.join(folder, 'report.json');
      const sql = (i: number) => (i === 1 ? 'SELECT pg_sleep(20), 1' : `SELECT ${i}`);
      fs.writeFileSync(
        questions,
        JSON.stringify(
          [0, 1, 2, 3].map((i) => ({ question_id: i, db_id: 'bird', question: 'q', evidence: '', SQL: sql(i), difficulty: 'simple' })),
        ),
      );
      fs.writeFileSync(
        predictions,
        JSON.stringify(Object.fromEntries([0, 1, 2, 3].map((i) => [String(i), `${sql(i)}\t----- bird -----\tbird`]))),
      );
      const child = spawn(
        process.execPath,
        [
          CLI,
          'eval',
          '--db-url',
          doomed.url,
          '--questions',
          questions,
          '--predictions',
          predictions,
          '--metrics',
          'ex',
          '--json',
          json,
          '--no-progress',
          '--jobs',
          jobs,
        ],
        {
          env: cliEnv(),
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      // The server stops while question 1's sleep runs on it, once the other lane (if any) has been idle for 2 s, its
      // questions done: watched on the server, whatever the machine's load made of the start-up.
      const closed = new AbortController();
      const stopped = whenRunning(doomed, 'pg_sleep(20)', {
        othersIdleMs: jobs === '1' ? undefined : 2000,
        signal: closed.signal,
      }).then((running) => running && doomed.stop());
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      closed.abort();
      await stopped;
      doomed.stop();
      assert.equal(code, 2, stderr);
      const lines = stderr.split('\n').filter((line) => line.startsWith('error'));
      assert.equal(lines.length, 1, stderr);
      assert.match(
        lines[0],
        new RegExp(
          `^error: the database server went away during the run \\(.+\\): ${said} not run or not timed; the report was written; --resume runs them when the server is back$`,
        ),
      );
      const { questions: results } = JSON.parse(fs.readFileSync(json, 'utf8')) as Report;
      assert.deepEqual(
        results.map((r) => r.outcome),
        outcomes,
      );
      for (const r of results.filter((q) => q.outcome === 'gold_error'))
        assert.match(r.error ?? '', /^not run: the database server is unavailable/);
    });
});
