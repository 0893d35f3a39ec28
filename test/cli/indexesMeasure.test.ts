import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeDatabase, runCli, tempDir } from '../helpers';

/**
 * 150,000 readings whose station is spread over the rowids (station = id·7919 mod 1000): an index on station
 * finds one station's 150 rows directly (faster), but a range holding every row makes SQLite follow the index
 * into the table 150,000 times in scattered order, which a plain scan beats (slower), though the planner
 * without statistics still picks the index.
 */
const READINGS = `
CREATE TABLE reading (id INTEGER PRIMARY KEY, station INTEGER, value REAL, note TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150000)
INSERT INTO reading SELECT i, (i * 7919) % 1000, (i % 97) / 97.0, printf('%040d', i) FROM n;`;

interface MeasuredVerdict {
  candidate: { columns: string[] };
  used: boolean;
  speed?: string;
  recommended: boolean;
  measured?: { ratio: number; low: number; high: number };
}

describe('ves-lens indexes --measure: the measurement decides (a real process, a real SQLite file)', () => {
  let dir: string;
  let db: string;
  before(async () => {
    dir = tempDir('ves-lens-indexes-');
    db = await makeDatabase(path.join(dir, 'readings.sqlite'), READINGS);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function measure(sql: string): { stdout: string; verdict: MeasuredVerdict } {
    const json = path.join(dir, `advice-${Date.now()}.json`);
    const result = runCli(['indexes', '--measure', '--db', db, sql, '--json', json], { timeout: 120_000 });
    assert.equal(result.status, 0, result.stderr);
    const [verdict] = JSON.parse(fs.readFileSync(json, 'utf8')).advice[0].verdicts as MeasuredVerdict[];
    assert.deepEqual(verdict.candidate.columns, ['station']);
    assert.equal(verdict.used, true, 'the planner picks the index in both cases');
    return { stdout: result.stdout, verdict };
  }

  it('an index the planner uses but that makes the query slower gets a "slower" verdict and is not recommended', () => {
    const { stdout, verdict } = measure('SELECT SUM(value) FROM reading WHERE station >= 0');
    assert.equal(verdict.speed, 'slower', JSON.stringify(verdict.measured));
    assert.ok(verdict.measured!.high < 1);
    assert.equal(verdict.recommended, false);
    const line = stdout.split('\n').find((l) => l.startsWith('CREATE INDEX'))!;
    assert.doesNotMatch(line, /✓/);
    assert.match(line, /measured slower: not recommended/);
    assert.match(stdout, /measured: the query with it is slower: 0\.\d\d× \(repeat interval 0\.\d\d–0\.\d\d×/);
    assert.match(stdout, /no index recommended: 1 index measured, none made the query measurably faster/);
  });

  it('an index that makes the query faster is recommended, with its interval', () => {
    const { stdout, verdict } = measure('SELECT SUM(value) FROM reading WHERE station = 5');
    assert.equal(verdict.speed, 'faster', JSON.stringify(verdict.measured));
    assert.ok(verdict.measured!.low > 1);
    assert.equal(verdict.recommended, true);
    assert.match(stdout, /✓ planner uses it, measured faster: recommended/);
    assert.match(stdout, /measured: the query with it is [\d.]+× as fast \(repeat interval [\d.]+–[\d.]+×/);
    assert.match(stdout, /recommended \(measured faster\): ves_lens_reading_station/);
  });

  it('without --measure the planner check alone is shown, with no verdict claimed', () => {
    const result = runCli(['indexes', '--db', db, 'SELECT SUM(value) FROM reading WHERE station >= 0']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /✓ planner uses it\n/);
    assert.doesNotMatch(result.stdout, /measured|recommended/);
  });
});
