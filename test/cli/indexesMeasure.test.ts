import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { birdDataMissing, makeDatabase, runCli, scaledShared, tempDir } from '../helpers';

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

interface ScaledVerdict extends MeasuredVerdict {
  candidate: { table: string; columns: string[] };
  past_limit?: { limit_ms: number; without_ms: number | null; with_ms: number | null };
  estimate_disagrees?: boolean;
}

describe('ves-lens indexes --measure on student_club ×10 (issue 34)', { skip: birdDataMissing() }, () => {
  let db: string;
  let dir: string;
  before(async () => {
    db = await scaledShared('student_club', 10);
    dir = tempDir('ves-lens-indexes-scaled-');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // mini-dev q1334's gold: members of Illinois, by zip code.
  const GOLD =
    "SELECT T1.first_name, T1.last_name FROM member AS T1 INNER JOIN zip_code AS T2 ON T1.zip = T2.zip_code WHERE T2.state = 'Illinois'";

  function advise(timeout: string): { stdout: string; verdicts: ScaledVerdict[] } {
    const json = path.join(dir, `advice-${Date.now()}.json`);
    const result = runCli(['indexes', '--measure', '--timeout', timeout, '--db', db, GOLD, '--json', json], { timeout: 300_000 });
    assert.equal(result.status, 0, result.stderr);
    return { stdout: result.stdout, verdicts: JSON.parse(fs.readFileSync(json, 'utf8')).advice[0].verdicts };
  }

  it('case 3: an index that takes the query past the time limit is "slower (over N)", never "not measured"', () => {
    // With member(zip) SQLite scans all 418,770 zip codes and probes members per zip: ~50-120 ms where ~1-6 ms was.
    const { stdout, verdicts } = advise('0.02');
    const zip = verdicts.find((v) => v.candidate.columns.join() === 'zip')!;
    assert.equal(zip.used, true);
    assert.equal(zip.speed, 'slower', JSON.stringify(zip));
    assert.equal(zip.recommended, false);
    assert.equal(zip.past_limit?.limit_ms, 20);
    assert.equal(zip.past_limit?.with_ms, null, 'past the limit with the index');
    assert.ok(zip.past_limit!.without_ms! < 20, 'within it without');
    const line = stdout.split('\n').find((l) => l.includes('"ves_lens_member_zip"'))!;
    assert.match(line, /✗ planner uses it, but measured slower \(over 20 ms with it, \d+ ms without\): not recommended/);
    assert.doesNotMatch(stdout, /not measured/);
  });

  it('case 4: a plan-cost change beside a measurement never points against it', () => {
    const { stdout, verdicts } = advise('30');
    const lines = stdout.split('\n');
    const n = (s: string) => parseFloat(s) * ({ K: 1e3, M: 1e6, B: 1e9 }[s.slice(-1)] ?? 1);
    for (const v of verdicts.filter((x) => x.speed === 'faster' || x.speed === 'slower')) {
      const at = lines.findIndex((l) => l.includes(`"ves_lens_${v.candidate.table}_${v.candidate.columns.join('_')}"`));
      const cost = lines[at + 1];
      const [, from, to] = /~([\d.]+[KMB]?) → ~([\d.]+[KMB]?) row visits/.exec(cost) ?? [];
      if (from === undefined) {
        assert.match(
          cost,
          /the row visits estimate \(~[\d.]+[KMB]? without, ~[\d.]+[KMB]? with it\) disagrees with the measurement, which decides/,
        );
        assert.equal(v.estimate_disagrees, true);
      } else assert.ok(v.speed === 'faster' ? n(to) <= n(from) : n(to) >= n(from), `${v.speed} beside ${cost}`);
    }
    // zip_code(state): measured several times as fast (5.6 → 0.5 ms) where the estimate grows (~660 → ~3.6K).
    const state = verdicts.find((v) => v.candidate.columns.join() === 'state')!;
    if (state.speed === 'faster') assert.equal(state.estimate_disagrees, true, JSON.stringify(state));
  });
});
