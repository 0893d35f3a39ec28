import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLI, cliEnv, REPO_ROOT, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');

/** Questions on the sample database with hand-picked predictions: gold itself in other words, a faster form, a slower one. */
function dataset(dir: string) {
  const gold =
    'SELECT superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 WHERE T2.hero_id = T1.id AND T2.power_id = 1)';
  const cases = [
    // Same program: only spacing, case and alias differ.
    [
      1,
      gold,
      'select superhero_name from superhero as S where exists (select 1 from hero_power as P where P.hero_id = S.id and P.power_id = 1)',
    ],
    // Another literal is never the same program.
    [2, 'SELECT count(*) FROM superhero WHERE height_cm > 180', 'SELECT count(*) FROM superhero WHERE height_cm > 180.0'],
    // A correlated count per hero against a join: much slower, then much faster.
    [
      3,
      'SELECT T1.id FROM superhero AS T1 JOIN hero_power AS T2 ON T2.hero_id = T1.id GROUP BY T1.id HAVING count(*) > 20',
      'SELECT T1.id FROM superhero AS T1 WHERE (SELECT count(*) FROM hero_power AS T2 WHERE T2.hero_id = T1.id) > 20',
    ],
  ];
  const questions = cases.map(([id, sql]) => ({
    question_id: id,
    db_id: 'superhero',
    question: '',
    evidence: '',
    SQL: sql,
    difficulty: 'simple',
  }));
  fs.writeFileSync(path.join(dir, 'q.json'), JSON.stringify(questions));
  fs.writeFileSync(
    path.join(dir, 'p.json'),
    JSON.stringify(Object.fromEntries(cases.map(([, , pred], i) => [String(i), `${pred}\t----- bird -----\tsuperhero`]))),
  );
  return ['--questions', path.join(dir, 'q.json'), '--predictions', path.join(dir, 'p.json'), '--db-root', SAMPLE];
}

describe('eval timing v2 (a real process)', () => {
  it('does not time a pair that compiles to the same program, and times one with another literal', () => {
    const dir = tempDir();
    const json = path.join(dir, 'out.json');
    const result = spawnSync(process.execPath, [CLI, 'eval', ...dataset(dir), '--json', json], {
      encoding: 'utf8',
      env: cliEnv(),
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /1 compile to the same SQLite program as their gold: ratio 1 by construction, not timed \(1\)/);
    const [same, literal, correlated] = JSON.parse(fs.readFileSync(json, 'utf8')).questions;
    assert.equal(same.outcome, 'correct');
    assert.equal(same.same_program, true);
    assert.equal(same.time_ratio, 1);
    assert.deepEqual(same.time_ratio_interval, [1, 1]);
    assert.equal(same.runs, 0);
    assert.equal(same.rves_reward, 1);
    assert.equal(same.rves_uncertain, false);
    assert.equal(same.ves, 1);
    assert.equal(literal.same_program, false);
    assert.ok(literal.runs > 0);
    for (const q of [literal, correlated]) {
      assert.ok(q.time_ratio_interval[0] <= q.time_ratio && q.time_ratio <= q.time_ratio_interval[1]);
      assert.ok(q.rves_time_ratio_interval[0] <= q.rves_time_ratio && q.rves_time_ratio <= q.rves_time_ratio_interval[1]);
      const p = Object.values(q.rves_bucket_probabilities as Record<string, number>).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(p - 1) < 0.01, `bucket probabilities sum to ${p}`);
      assert.ok(
        Math.abs(
          q.rves -
            Object.entries(q.rves_bucket_probabilities as Record<string, number>).reduce((a, [r, pr]) => a + pr * Math.sqrt(Number(r)), 0),
        ) < 0.01,
        'rves is the expected sqrt(reward)',
      );
    }
    // The correlated form rescans hero_power per hero: all rows take far longer than the join's.
    assert.ok(correlated.rves_time_ratio < 0.5, `correlated ratio ${correlated.rves_time_ratio}`);
  });

  it('re-times pairs on scaled copies with --scales and says how the ratio grows', () => {
    const dir = tempDir();
    const json = path.join(dir, 'out.json');
    const result = spawnSync(process.execPath, [CLI, 'eval', ...dataset(dir), '--metrics', 'ex,rves', '--scales', '1,4', '--json', json], {
      encoding: 'utf8',
      env: cliEnv({ VES_LENS_CACHE: path.join(dir, 'cache') }),
    });
    assert.equal(result.status, 0, result.stderr);
    const [same, , correlated] = JSON.parse(fs.readFileSync(json, 'utf8')).questions;
    assert.deepEqual(same.time_ratio_by_scale, { '1': 1, '4': 1 });
    assert.match(same.growth, /grow alike/);
    assert.deepEqual(Object.keys(correlated.time_ratio_by_scale), ['1', '4']);
    // A correlated subquery grows with the square of the data, the join linearly: the prediction falls behind.
    assert.ok(correlated.time_ratio_by_scale['4'] < correlated.time_ratio_by_scale['1'], JSON.stringify(correlated.time_ratio_by_scale));
    assert.match(correlated.growth, /prediction scales worse than gold/);
    assert.ok(
      fs.readdirSync(path.join(dir, 'cache')).some((f) => f.endsWith('.sqlite')),
      'the scaled copy is cached',
    );
  });

  it('--timing official says which clock timed it: Python sqlite3 as the scripts, or node-sqlite3 without python3', () => {
    const dir = tempDir();
    const { VES_LENS_PYTHON: _ignored, ...env } = cliEnv();
    const official = ['eval', ...dataset(dir), '--metrics', 'ex,ves,rves', '--timing', 'official', '--iterations', '4', '--no-progress'];
    const withPython = spawnSync(process.execPath, [CLI, ...official, '--json', path.join(dir, 'python.json')], {
      encoding: 'utf8',
      env,
    });
    assert.equal(withPython.status, 0, withPython.stderr);
    const pythonReport = JSON.parse(fs.readFileSync(path.join(dir, 'python.json'), 'utf8'));
    if (pythonReport.inputs.timing_clock === 'python-sqlite3') {
      assert.match(withPython.stderr, /official timing: timed by Python [\d.]+'s sqlite3 \(SQLite [\d.]+\), as the scripts/);
      assert.match(pythonReport.inputs.timing_runtime, /^Python [\d.]+, SQLite [\d.]+$/);
    }
    // PATH without python3 (node itself is run by its full path).
    const noPython = spawnSync(process.execPath, [CLI, ...official, '--json', path.join(dir, 'node.json')], {
      encoding: 'utf8',
      env: { ...env, PATH: tempDir() },
    });
    assert.equal(noPython.status, 0, noPython.stderr);
    assert.match(
      noPython.stderr,
      /note: official timing: timed by VES Lens's node-sqlite3, not as the scripts \(python3 was not found on PATH\)/,
    );
    const nodeReport = JSON.parse(fs.readFileSync(path.join(dir, 'node.json'), 'utf8'));
    assert.equal(nodeReport.inputs.timing_clock, 'node-sqlite3');
    for (const report of [pythonReport, nodeReport]) {
      for (const q of report.questions) {
        assert.equal(q.outcome, 'correct');
        assert.equal(q.runs, 4);
        assert.ok(q.time_ratio > 0 && q.rves_time_ratio > 0, JSON.stringify(q));
      }
    }
  });

  it("fast timing leaves a python3 whose SQLite is older than VES Lens's for node-sqlite3 and says why; official keeps it", (t) => {
    const dir = tempDir();
    if (spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' }).status !== 0) {
      if (process.env.CI) assert.fail('python3 with sqlite3 is missing under CI (scripts/setup-postgres.sh installs it)');
      return t.skip('no python3 with sqlite3 here');
    }
    // A real python3 whose timing process reports SQLite 3.31.1 (Ubuntu 20.04's: no IIF), as an older system's would.
    const oldPython = path.join(dir, 'python-old-sqlite');
    fs.writeFileSync(
      oldPython,
      '#!/bin/bash\nargs=("$@")\nfor i in "${!args[@]}"; do args[$i]="${args[$i]//\\"sqlite\\": sqlite3.sqlite_version/\\"sqlite\\": \\"3.31.1\\"}"; done\nexec python3 "${args[@]}"\n',
      { mode: 0o755 },
    );
    const env = { ...cliEnv(), VES_LENS_PYTHON: oldPython };
    const run = (timing: string, json: string) =>
      spawnSync(
        process.execPath,
        [CLI, 'eval', ...dataset(dir), '--metrics', 'ex,ves', '--timing', timing, '--iterations', '4', '--no-progress', '--json', json],
        {
          encoding: 'utf8',
          env,
        },
      );
    const fast = run('fast', path.join(dir, 'fast.json'));
    assert.equal(fast.status, 0, fast.stderr);
    assert.match(
      fast.stderr,
      /fast timing: timed by VES Lens's node-sqlite3, not as the scripts \(python3's SQLite 3\.31\.1 is older than VES Lens's SQLite 3\.\d+\.\d+\)/,
    );
    const fastReport = JSON.parse(fs.readFileSync(path.join(dir, 'fast.json'), 'utf8'));
    assert.equal(fastReport.inputs.timing_clock, 'node-sqlite3');
    for (const q of fastReport.questions) assert.ok(q.outcome !== 'correct' || q.time_ratio > 0, JSON.stringify(q));
    // Official timing uses the python3 the scripts would run, whatever its SQLite.
    const official = run('official', path.join(dir, 'official.json'));
    assert.equal(official.status, 0, official.stderr);
    assert.match(official.stderr, /official timing: timed by Python [\d.]+'s sqlite3 \(SQLite 3\.31\.1\), as the scripts/);
  });

  it('refuses a bad --scales value with exit 2', () => {
    const dir = tempDir();
    const result = spawnSync(process.execPath, [CLI, 'eval', ...dataset(dir), '--scales', '1,ten'], { encoding: 'utf8', env: cliEnv() });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--scales: "ten" is not a whole factor/);
  });
});

describe('hints --verify --scales (a real process)', () => {
  it('times a rewrite on scaled copies too and says how the gain grows', () => {
    const dir = tempDir();
    // A correlated EXISTS per hero (VL001): its JOIN rewrite grows linearly with the data, the original quadratically.
    const sql =
      'SELECT superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 WHERE T2.hero_id = T1.id AND T2.power_id = 18)';
    const result = spawnSync(
      process.execPath,
      [CLI, 'hints', '--db', path.join(SAMPLE, 'superhero', 'superhero.sqlite'), '--verify', '--scales', '1,4', sql, '--json'],
      {
        encoding: 'utf8',
        env: cliEnv({ VES_LENS_CACHE: path.join(dir, 'cache') }),
      },
    );
    assert.equal(result.status, 0, result.stderr);
    const [statement] = JSON.parse(result.stdout).statements;
    const hint = statement.hints.find((h: { rule: string }) => h.rule === 'VL001');
    assert.deepEqual(Object.keys(hint.verdict.growth.by_scale), ['1', '4']);
    assert.ok(hint.verdict.growth.by_scale['4'] > hint.verdict.growth.by_scale['1'], JSON.stringify(hint.verdict.growth));
    assert.match(hint.verdict.growth.verdict, /the rewrite scales better than the original/);
  });

  it('refuses --scales without --verify', () => {
    const result = spawnSync(
      process.execPath,
      [CLI, 'hints', '--db', path.join(SAMPLE, 'superhero', 'superhero.sqlite'), '--scales', '1,4', 'SELECT 1'],
      { encoding: 'utf8' },
    );
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--scales: goes with --verify/);
  });
});
