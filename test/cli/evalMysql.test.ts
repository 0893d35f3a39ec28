// `ves-lens eval --engine mysql` as users run it, on a real MariaDB 10.11 server (a throwaway local server on a unix
// socket, started by the run and loaded from the shared SQLite files): per-question EX and Soft-F1 equal to
// mini_dev's pymysql scoring on every official MySQL prediction file, what ran the SQL said (MariaDB, not MySQL 8)
// in the terminal and the JSON, and a password in --db-url never printed.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIRD_DATA, REPO_ROOT, runCli, tempDir } from '../helpers';
import { mysqlMissing, startBirdTestServer } from '../mysqlServer';

const PYTHON = '/usr/bin/python3';
const ORACLE = path.join(REPO_ROOT, 'test', 'oracles', 'minidev_mysql_ex.py');
const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_mysql.json');
const GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_mysql_gold.sql');
const PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-mysql');
const DATABASES = path.join(BIRD_DATA, 'databases');

const missing =
  mysqlMissing() ||
  (spawnSync(PYTHON, ['-c', 'import pymysql']).status === 0 || process.env.CI
    ? false
    : `${PYTHON} has no pymysql (run scripts/setup-mysql.sh)`);

interface Report {
  inputs: { engine: { engine: string; version: string; product: string; runs: string; location: string; build?: string } };
  questions: { ex: number; f1: number | null; outcome: string; error: string | null; question_id: number }[];
}

describe('eval --engine mysql', { skip: missing }, () => {
  let server: Awaited<ReturnType<typeof startBirdTestServer>>;
  before(async () => {
    server = await startBirdTestServer();
  });
  after(() => server?.stop());

  /** `eval --engine mysql` on `predictions`, then mini_dev's pymysql scoring beside it: per-question EX and Soft-F1 equal. */
  function agreesWithPymysql(predictions: string, context = ''): void {
    const json = path.join(tempDir(), 'report.json');
    // The local server of the run itself (no --db-url), from the same kept copy; a 5 s limit keeps the test short.
    const run = runCli(
      ['eval', '--engine', 'mysql', '--db-root', DATABASES, '--questions', QUESTIONS, '--gold', GOLD, '--predictions', predictions].concat([
        '--metrics',
        'ex,f1',
        '--timeout',
        '5',
        '--json',
        json,
        '--no-progress',
      ]),
      { timeout: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const { questions, inputs } = JSON.parse(fs.readFileSync(json, 'utf8')) as Report;
    assert.equal(inputs.engine.product, 'MariaDB');
    // mini_dev stops a question past its time limit and scores it 0: the oracle leaves those out.
    const timedOut = questions.flatMap((q, i) => (q.outcome === 'timeout' ? [i] : []));
    assert.ok(timedOut.length <= 10, `at most a few timeouts: ${timedOut.length}`);
    const oracle = spawnSync(PYTHON, [ORACLE, predictions, GOLD, server.socket, 'ves_lens_reader', 'BIRD', timedOut.join(',')], {
      encoding: 'utf8',
      maxBuffer: 2 ** 26,
    });
    assert.equal(oracle.status, 0, oracle.stderr);
    const expected = JSON.parse(oracle.stdout) as ([number, number] | null)[];
    assert.equal(questions.length, expected.length);
    const scored = questions.map((q, i) => ({ q, i, python: expected[i] })).filter(({ q, python }) => q.outcome !== 'skipped' && python);
    assert.equal(scored.length + timedOut.length, 140, 'the 140 questions of the three databases');
    const differences = scored
      .map(({ q, i, python }) => ({
        i,
        question: q.question_id,
        ours: [q.ex, q.f1 ?? 0],
        python: python!,
        outcome: q.outcome,
        error: q.error,
      }))
      .filter(({ ours, python }) => ours[0] !== python[0] || Math.abs(ours[1] - python[1]) > 1e-12);
    assert.deepEqual(differences, [], context);
    assert.ok(
      scored.some(({ python }) => python![0] === 1),
      'some predictions are correct',
    );
    assert.ok(
      scored.some(({ python }) => python![0] === 0),
      'some predictions are wrong',
    );
  }

  for (const file of fs.existsSync(PREDICTIONS) ? fs.readdirSync(PREDICTIONS).sort() : []) {
    it(`scores ${file} question by question as mini_dev's pymysql script does (EX and Soft-F1)`, () => {
      agreesWithPymysql(path.join(PREDICTIONS, file));
    });
  }

  it('agrees with pymysql on a prediction file made for this run (the systems mixed, the gold changed)', () => {
    // A new file each run, from a seed said on failure: the three systems' predictions mixed question by question
    // and the gold changed in ways that keep, break or half-keep its rows (order, duplicates, limits, columns, literals).
    const seed = Number(process.env.VES_LENS_TEST_SEED ?? Date.now() % 2 ** 31);
    const random = mulberry32(seed);
    const systems = fs
      .readdirSync(PREDICTIONS)
      .sort()
      .map((file) => Object.values(JSON.parse(fs.readFileSync(path.join(PREDICTIONS, file), 'utf8'))) as string[]);
    const gold = fs
      .readFileSync(GOLD, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t') as [string, string]);
    const entries = gold.map(([sql, dbId], i) => {
      const pick = Math.floor(random() * (systems.length + CHANGES.length));
      if (pick < systems.length) return systems[pick][i];
      return `${CHANGES[pick - systems.length](sql, random)}\t----- bird -----\t${dbId}`;
    });
    const file = path.join(tempDir(), 'unseen_mysql.json');
    fs.writeFileSync(file, JSON.stringify(Object.fromEntries(entries.map((entry, i) => [String(i), entry]))));
    agreesWithPymysql(file, `the file made from seed ${seed} (VES_LENS_TEST_SEED=${seed} makes it again)`);
  });

  it("says which pairs MySQL's plans show doing the same work, in MySQL's words, and leaves them untimed", () => {
    const gold = fs.readFileSync(GOLD, 'utf8').split('\n').filter(Boolean);
    const file = path.join(tempDir(), 'gold_as_predictions.json');
    fs.writeFileSync(
      file,
      JSON.stringify(Object.fromEntries(gold.map((line, i) => [String(i), line.replace('\t', '\t----- bird -----\t')]))),
    );
    const run = runCli(
      ['eval', '--engine', 'mysql', '--db-root', DATABASES, '--questions', QUESTIONS, '--gold', GOLD, '--predictions', file].concat([
        '--metrics',
        'ex,rves',
        '--timeout',
        '5',
        '--no-progress',
      ]),
      { timeout: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /\d+ have the same plan and rewritten statement \(EXPLAIN FORMAT=JSON, EXPLAIN EXTENDED\) as their gold: ratio 1/,
    );
    assert.doesNotMatch(run.stdout + run.stderr, /SQLite program/);
  });

  it('scores in lanes (several sessions) with the same results, in the same order, as one session', () => {
    const dir = tempDir();
    // One file: each MariaDB run of the 500 questions takes a while on a shared machine.
    for (const file of fs.readdirSync(PREDICTIONS).filter((f) => f.includes('gpt-4'))) {
      const reports = ['1', '3'].map((jobs) => {
        const json = path.join(dir, `${file}.${jobs}.json`);
        const run = runCli(
          ['eval', '--db-url', server.url, '--questions', QUESTIONS, '--gold', GOLD, '--predictions', path.join(PREDICTIONS, file)].concat([
            '--metrics',
            'ex,f1',
            '--timeout',
            '5',
            '--jobs',
            jobs,
            '--json',
            json,
            '--no-progress',
          ]),
          { timeout: 300_000 },
        );
        assert.equal(run.status, 0, run.stderr);
        return (JSON.parse(fs.readFileSync(json, 'utf8')) as Report).questions;
      });
      // A query near the time limit may meet it in one run and not the other (the same with one session twice):
      // those are left out, and are few; every other result is the same, in the same order.
      const timedOut = new Set(reports.flatMap((questions) => questions.filter((q) => q.outcome === 'timeout').map((q) => q.question_id)));
      assert.ok(timedOut.size <= 10, `${file}: at most a few timeouts: ${timedOut.size}`);
      const [one, lanes] = reports.map((questions) => questions.filter((q) => !timedOut.has(q.question_id)));
      assert.equal(one.length + timedOut.size, 500, file);
      assert.deepEqual(lanes, one, file);
      const outcomes = new Set(one.map((q) => q.outcome));
      for (const outcome of ['correct', 'mismatch', 'skipped']) assert.ok(outcomes.has(outcome), `${file}: ${outcome}`);
    }
  });

  it('says MariaDB ran the SQL, and never prints a password given in --db-url', () => {
    const url = `mysql://ves_lens_reader:Sup3rSecretPw@localhost/BIRD?socket=${encodeURIComponent(server.socket)}`;
    const predictions = path.join(PREDICTIONS, fs.readdirSync(PREDICTIONS).sort()[0]);
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
      '--no-progress',
    ]);
    const said = run.stdout + run.stderr;
    assert.doesNotMatch(said, /Sup3rSecretPw/);
    // The account has no password: the server refuses this one, and says so, naming the server as MySQL's kind.
    assert.match(said, /--db-url: cannot reach the MySQL server: .*Access denied/);
    const good = runCli(
      [
        'eval',
        '--db-url',
        server.url,
        '--questions',
        QUESTIONS,
        '--gold',
        GOLD,
        '--predictions',
        predictions,
        '--metrics',
        'ex',
        '--no-progress',
      ],
      { timeout: 300_000 },
    );
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout + good.stderr, /MariaDB 10\.11\.\S+ \(server mysql:\/\/ves_lens_reader@localhost\/BIRD\?socket=/);
  });
});

/** A small seeded generator (mulberry32): the same seed makes the same file. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Changes to a gold query: each keeps its rows, or changes their order, duplicates, count, columns or values. */
const CHANGES: ((sql: string, random: () => number) => string)[] = [
  (sql) => sql,
  (sql) => sql.replace(/^\s*SELECT\s+(?!DISTINCT)/i, 'SELECT DISTINCT '),
  (sql) => sql.replace(/\bLIMIT\s+\d+(\s*,\s*\d+)?\s*;?\s*$/i, ''),
  (sql) => sql.replace(/\b(ASC|DESC)\b/gi, (word) => (word.toUpperCase() === 'ASC' ? 'DESC' : 'ASC')),
  (sql) => sql.replace(/\b\d+\b/, (n) => String(Number(n) + 1)),
  (sql) => sql.replace(/^\s*SELECT\s+(DISTINCT\s+)?/i, (head) => `${head}1 AS one, `),
  (sql) => `SELECT * FROM (${sql.replace(/;\s*$/, '')}) AS t ORDER BY 1 DESC`,
  (sql, random) => (random() < 0.5 ? sql.replace(/=/, '<>') : `${sql.replace(/;\s*$/, '')} ${'-- a trailing comment'}`),
];
