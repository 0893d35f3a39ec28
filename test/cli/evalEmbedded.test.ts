// `ves-lens eval --engine postgres --db-root <SQLite folder>` without a server: the embedded PostgreSQL (PGlite)
// loaded from the SQLite files gives, question by question, the EX and Soft-F1 a real PostgreSQL 15 server loaded
// by `ves-lens load` gives on every official PostgreSQL prediction file; it says what ran the SQL and that its
// timings are no server's; a runaway statement stops on time; `npm run sample:postgres` works from a clean cache.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, birdDataMissing, REPO_ROOT, runCli, tempDir } from '../helpers';
import { startLoadedCluster } from '../pgCluster';

const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_postgresql_gold.sql');
const PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-postgresql');
const DATABASES = path.join(BIRD_DATA, 'databases');

interface Report {
  inputs: { engine: { engine: string; version: string; runs: string; location: string; layout: string; build?: string; note?: string } };
  questions: { ex: number; f1: number | null; outcome: string; error: string | null; question_id: number; time_ratio?: number | null }[];
}

const readReport = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report;

describe('eval --engine postgres on the embedded PostgreSQL (no server)', { skip: birdDataMissing() }, () => {
  const cache = tempDir('ves-lens-pglite-cache-');
  after(() => fs.rmSync(cache, { recursive: true, force: true }));

  const evalArgs = (predictions: string, json: string, engine: string[]) => [
    'eval',
    '--engine',
    'postgres',
    ...engine,
    '--questions',
    QUESTIONS,
    '--gold',
    GOLD,
    '--predictions',
    predictions,
    '--metrics',
    'ex,f1',
    '--json',
    json,
    '--no-progress',
  ];

  describe('against a PostgreSQL 15 server loaded by ves-lens load', { skip: localClusterMissing() }, () => {
    let cluster: LocalCluster;
    before(() => {
      cluster = startLoadedCluster(DATABASES);
    });
    after(() => cluster?.stop());

    for (const file of fs.existsSync(PREDICTIONS) ? fs.readdirSync(PREDICTIONS).sort() : []) {
      it(`gives ${file} the server's EX and Soft-F1, question by question`, () => {
        const predictions = path.join(PREDICTIONS, file);
        const folder = tempDir();
        const onServer = runCli(evalArgs(predictions, path.join(folder, 'server.json'), ['--db-url', cluster.url]));
        assert.equal(onServer.status, 0, onServer.stderr);
        const embedded = runCli(
          evalArgs(predictions, path.join(folder, 'embedded.json'), ['--db-root', DATABASES, '--embedded-cache', cache]),
        );
        assert.equal(embedded.status, 0, embedded.stderr);
        const server = readReport(path.join(folder, 'server.json')).questions;
        const ours = readReport(path.join(folder, 'embedded.json')).questions;
        assert.equal(ours.length, server.length);
        const differences = ours
          .map((q, i) => ({
            question: q.question_id,
            embedded: [q.ex, q.f1, q.outcome],
            server: [server[i].ex, server[i].f1, server[i].outcome],
          }))
          .filter(({ embedded, server }) => embedded[0] !== server[0] || Math.abs(Number(embedded[1]) - Number(server[1])) > 1e-12);
        assert.deepEqual(differences, []);
        assert.ok(ours.filter((q) => q.outcome !== 'skipped').length === 140, 'the 140 questions of the three databases are scored');
        assert.ok(ours.some((q) => q.ex === 1));
      });
    }
  });

  it('says what ran the SQL (PGlite, WASM, its version) and that its timings are no server’s, in the terminal and the JSON', () => {
    const json = path.join(tempDir(), 'report.json');
    const predictions = path.join(PREDICTIONS, 'predict_mini_dev_gpt-4_postgresql.json');
    const args = evalArgs(predictions, json, ['--db-root', DATABASES, '--embedded-cache', cache]);
    args[args.indexOf('ex,f1')] = 'ex,rves';
    const run = runCli([...args, '--timeout', '5']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /PostgreSQL 18\.\d+ \(embedded PGlite, WASM, loaded from .*databases, one-database layout\)/);
    assert.match(
      run.stderr,
      /note: timings are PGlite's \(PostgreSQL compiled to WASM, one thread, in this process\), not a PostgreSQL server's/,
    );
    const { inputs, questions } = readReport(json);
    assert.equal(inputs.engine.engine, 'postgres');
    assert.equal(inputs.engine.runs, 'embedded');
    assert.equal(inputs.engine.build, 'embedded PGlite, WASM');
    assert.match(inputs.engine.version, /^18\./);
    assert.match(inputs.engine.note ?? '', /not a PostgreSQL server's/);
    assert.ok(questions.some((q) => q.outcome === 'correct'));
  });

  it('stops a runaway statement on time: pg_sleep(60) with --timeout 10 ends in about 10 s, and the next question runs', () => {
    const folder = tempDir();
    const questions = path.join(folder, 'questions.json');
    const predictions = path.join(folder, 'predictions.json');
    const json = path.join(folder, 'report.json');
    const gold = ['SELECT COUNT(*) FROM superhero', 'SELECT COUNT(*) FROM superhero'];
    const predicted = ['SELECT pg_sleep(60), COUNT(*) FROM superhero', 'SELECT COUNT(*) FROM superhero'];
    fs.writeFileSync(
      questions,
      JSON.stringify(
        gold.map((SQL, i) => ({ question_id: i, db_id: 'superhero', question: 'q', evidence: '', SQL, difficulty: 'simple' })),
      ),
    );
    fs.writeFileSync(
      predictions,
      JSON.stringify(Object.fromEntries(predicted.map((sql, i) => [String(i), `${sql}\t----- bird -----\tsuperhero`]))),
    );
    const common = ['eval', '--questions', questions, '--predictions', predictions, '--metrics', 'ex', '--json', json, '--no-progress'];
    // Built first, so the timed run below measures the statement, not the load.
    assert.equal(runCli([...common, '--engine', 'postgres', '--db-root', DATABASES, '--embedded-cache', cache]).status, 0);
    const started = performance.now();
    // 10 s: the next question's limit also covers the embedded engine's restart after the stop (a new WASM thread),
    // which takes seconds on a busy machine.
    const run = runCli([...common, '--engine', 'postgres', '--db-root', DATABASES, '--embedded-cache', cache, '--timeout', '10']);
    const seconds = (performance.now() - started) / 1000;
    assert.equal(run.status, 0, run.stderr);
    const results = readReport(json).questions;
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['timeout', 'correct'],
    );
    // The start-up, the restart and the second question take their time on a busy machine; the 60 s sleep longer.
    assert.ok(seconds < 45, `the run took ${seconds.toFixed(1)} s`);
  });

  it('scores in two lanes as in one: a time limit met while waiting for the other lane is scored again alone', () => {
    const folder = tempDir();
    const questions = path.join(folder, 'questions.json');
    const predictions = path.join(folder, 'predictions.json');
    // Each pair takes 3 s alone, within the 5 s limit; two lanes sharing a thread interleave the four statements,
    // so the second question ends after 6 s: past its limit, having waited, it is scored again once alone.
    const sql = 'SELECT pg_sleep(1.5)::text, COUNT(*) FROM superhero';
    fs.writeFileSync(
      questions,
      JSON.stringify(
        [0, 1].map((i) => ({ question_id: i, db_id: 'superhero', question: 'q', evidence: '', SQL: sql, difficulty: 'simple' })),
      ),
    );
    fs.writeFileSync(predictions, JSON.stringify({ 0: `${sql}\t----- bird -----\tsuperhero`, 1: `${sql}\t----- bird -----\tsuperhero` }));
    const outcomes = (jobs: number) => {
      const json = path.join(folder, `jobs${jobs}.json`);
      const run = runCli([
        'eval',
        '--questions',
        questions,
        '--predictions',
        predictions,
        '--metrics',
        'ex',
        '--json',
        json,
        '--no-progress',
        '--engine',
        'postgres',
        '--db-root',
        DATABASES,
        '--embedded-cache',
        cache,
        '--timeout',
        '5',
        '--jobs',
        String(jobs),
      ]);
      assert.equal(run.status, 0, run.stderr);
      return readReport(json).questions.map((q) => [q.question_id, q.outcome]);
    };
    const alone = outcomes(1);
    assert.deepEqual(alone, [
      [0, 'correct'],
      [1, 'correct'],
    ]);
    assert.deepEqual(outcomes(2), alone);
  });

  it('refuses what the embedded engine cannot do, naming the option', () => {
    const common = [
      'eval',
      '--questions',
      QUESTIONS,
      '--gold',
      GOLD,
      '--predictions',
      path.join(PREDICTIONS, 'predict_mini_dev_gpt-4_postgresql.json'),
    ];
    const cases: [string[], RegExp][] = [
      [['--engine', 'postgres'], /--engine postgres: give the server with --db-url .*, or --db-root to run an embedded PostgreSQL/],
      [
        ['--engine', 'postgres', '--db-root', DATABASES, '--db-layout', 'database'],
        /--db-layout database: the embedded PostgreSQL holds one database/,
      ],
      [['--db-root', DATABASES, '--embedded-cache', cache], /--embedded-cache: for the embedded PostgreSQL/],
      [
        ['--engine', 'postgres', '--db-root', tempDir('ves-lens-empty-')],
        /--db-root: cannot load .*ves-lens-empty-\w+ into the embedded PostgreSQL: .* holds no <db_id>\/<db_id>\.sqlite$/m,
      ],
    ];
    for (const [args, message] of cases) {
      const run = runCli([...common, ...args, '--no-progress']);
      assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.ok(!/\n\s+at /.test(run.stderr), run.stderr);
    }
  });

  it('npm run sample:postgres scores the sample from a clean cache, then again from the kept copy', () => {
    const script = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts['sample:postgres'];
    const args = script.replace(/^node bin\/ves-lens\.js /, '').split(' ');
    const xdg = tempDir('ves-lens-xdg-');
    try {
      const first = runCli([...args, '--metrics', 'ex,f1'], { env: { XDG_CACHE_HOME: xdg } });
      assert.equal(first.status, 0, first.stderr);
      assert.match(
        first.stderr,
        /loading 1 SQLite database of sample into the embedded PostgreSQL \(PGlite\), once: the copy is kept in .*ves-lens\/pglite\n/,
      );
      assert.match(first.stderr, /loaded 10,614 rows in \d+\.\d s/);
      assert.match(first.stdout, /│ count\s+│\s+14 │\s+26 │\s+12 │\s+52 │/);
      const again = runCli([...args, '--metrics', 'ex,f1'], { env: { XDG_CACHE_HOME: xdg } });
      assert.equal(again.status, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /loading/);
      assert.equal(again.stdout, first.stdout);
    } finally {
      fs.rmSync(xdg, { recursive: true, force: true });
    }
  });
});
