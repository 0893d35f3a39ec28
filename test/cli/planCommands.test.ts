import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT, runCli, sha256, tempDir } from '../helpers';

const DB = path.join(REPO_ROOT, 'sample', 'superhero', 'superhero.sqlite');
const run = (args: string[]) => runCli(args);

const GOLD =
  'SELECT superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 WHERE T1.id = T2.hero_id AND T2.power_id = 18)';
const PRED = 'SELECT DISTINCT sh.superhero_name FROM superhero sh JOIN hero_power hp ON sh.id = hp.hero_id WHERE hp.power_id = 18';

describe('ves-lens explain / indexes / rerank / hints (real processes)', () => {
  it('explain prints the annotated tree with the SQLite version', () => {
    const result = run(['explain', '--db', DB, 'SELECT * FROM superhero ORDER BY height_cm']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /SQLite 3\.\d+\.\d+/);
    assert.match(result.stdout, /\|--SCAN superhero {2}\[750 rows · \+100/);
    assert.match(result.stdout, /`--USE TEMP B-TREE FOR ORDER BY {2}\[\+50/);
  });

  it('explain --vs shows both plans and what differs', () => {
    const result = run(['explain', '--db', DB, '--vs', GOLD, PRED]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /gold/);
    assert.match(result.stdout, /prediction/);
    assert.match(result.stdout, /what differs\n[\s\S]*fewer correlated subquer/);
  });

  it('explain --json carries kinds, tables and both costs', () => {
    const result = run(['explain', '--db', DB, 'SELECT count(*) FROM superhero s JOIN colour c ON s.eye_colour_id = c.id', '--json']);
    const report = JSON.parse(result.stdout);
    const [scan, search] = report.plans[0].nodes;
    assert.equal(scan.kind, 'scan');
    assert.equal(search.kind, 'search');
    assert.equal(search.real_table, 'colour');
    assert.ok(report.plans[0].cost.rule >= 100 && report.plans[0].cost.work > 0);
  });

  it("explain says SQLite's message for SQL that does not compile, and exits 0 (done, as eval with failed questions)", () => {
    const result = run(['explain', '--db', DB, 'SELECT nope FROM superhero']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /no plan: no such column: nope/);
  });

  it('indexes --measure proposes, checks with the planner, measures on a copy, and leaves the database untouched', () => {
    const before = sha256(DB);
    const result = run([
      'indexes',
      '--db',
      DB,
      '--measure',
      'SELECT superhero_name FROM superhero WHERE height_cm > 200 ORDER BY height_cm',
      '--json',
    ]);
    assert.equal(result.status, 0, result.stderr);
    const [advice] = JSON.parse(result.stdout).advice;
    const used = advice.verdicts.filter((v: { used: boolean }) => v.used);
    assert.ok(used.some((v: { candidate: { columns: string[] } }) => v.candidate.columns.join() === 'height_cm'));
    for (const v of used) assert.ok(v.measured.ratio > 0 && v.measured.runs > 0);
    assert.equal(sha256(DB), before, 'the original database file is unchanged');
  });

  it('rerank puts executable candidates first, cheapest plan first', () => {
    const file = path.join(tempDir(), 'candidates.sql');
    fs.writeFileSync(file, `SELECT COUNT(*) FROM nope;\n${GOLD};\n${PRED};\n`);
    const result = run(['rerank', '--db', DB, '--candidates', file, '--json']);
    assert.equal(result.status, 0, result.stderr);
    const ranked = JSON.parse(result.stdout).ranked;
    assert.deepEqual(
      ranked.map((c: { index: number }) => c.index),
      [2, 1, 0],
    );
    assert.equal(ranked[2].executable, false);
    assert.match(ranked[2].error, /no such table: nope/);
  });

  it('hints --verify prints rule, position, rewrite and the measured verdict', () => {
    const file = path.join(tempDir(), 'q.sql');
    fs.writeFileSync(file, `SELECT 1;\n${GOLD};\n`);
    const result = run(['hints', '--db', DB, '--file', file, '--verify']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /q\.sql:2:\d+ VL001 correlated EXISTS subquery that can be a JOIN/);
    assert.match(result.stdout, /rewrite: SELECT superhero_name FROM superhero AS T1 INNER JOIN \(SELECT DISTINCT T2\.hero_id AS vl_key/);
    // Any verdict a measurement can give (hints/verify.ts), with its interval: a claim a repeat did not confirm says both.
    assert.match(
      result.stdout,
      /verified: same rows; ((the rewrite is [\d.]+× as fast|the rewrite is slower: [\d.]+×|no measurable difference: [\d.]+×) \(repeat interval [\d.]+–[\d.]+×|no difference that survives a repeat: [\d.]+× \(interval [\d.]+–[\d.]+×\), then [\d.]+× \(interval [\d.]+–[\d.]+×\) on a repeat)/,
    );
  });

  it('hints reports SQL that node-sql-parser cannot read, and keeps going', () => {
    const result = run([
      'hints',
      '--db',
      DB,
      "SELECT id FROM superhero WHERE superhero_name LIKE 'Batman' ORDER BY 1 NULLS LAST LIMIT (((",
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /node-sql-parser cannot read this statement/);
    assert.match(result.stdout, /VL006/);
  });
});
