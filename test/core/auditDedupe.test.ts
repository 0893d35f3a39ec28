import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bestPerRule, dedupeRewrites } from '../../src/core/audit/auditDedupe';
import { AuditRewrite } from '../../src/core/audit/goldAudit';
import { MINIDEV_QUESTIONS } from '../evalReports';
import { BIRD_DATA, birdDataMissing, runCli, tempDir } from '../helpers';

const rewrite = (at: number, status: string, ratio?: number): AuditRewrite => ({
  rule: 'VL001',
  title: 'IN / EXISTS subquery that can be a JOIN',
  kind: 'speed',
  sql: `rewrite at ${at}`,
  status,
  message: '',
  at: { start: at, end: at + 10 },
  ...(ratio === undefined
    ? {}
    : { gain: { ratio, low: ratio * 0.8, high: ratio * 1.2, verdict: ratio > 1.1 ? 'faster' : 'no-difference' } }),
});

describe('the gold audit lists a rule once per place and ranks it once per gold', () => {
  it('keeps the measured finding of a rule proposed twice at one place', () => {
    const kept = dedupeRewrites([
      rewrite(49, 'not-verified'),
      rewrite(205, 'faster', 3),
      rewrite(49, 'faster', 120),
      rewrite(205, 'faster', 2),
    ]);
    assert.deepEqual(
      kept.map((r) => [r.at!.start, r.status, r.gain?.ratio]),
      [
        [205, 'faster', 3],
        [49, 'faster', 120],
      ],
    );
  });

  it('counts a rule faster at two places as one reason: its best gain, and how many places', () => {
    const [only, ...more] = bestPerRule([rewrite(49, 'faster', 120), rewrite(205, 'faster', 1.3)]);
    assert.equal(more.length, 0);
    assert.equal(only.best.gain!.ratio, 120);
    assert.equal(only.places, 2);
  });
});

/** Question 730 of mini-dev (superhero): its gold has two EXISTS subqueries, each one a place for VL001. */
describe('audit of question 730 (a real process on the shared superhero database)', { skip: birdDataMissing() }, () => {
  let dir: string;
  let entry: { gold_sql: string; rewrites: AuditRewrite[]; reasons: string[] };
  before(() => {
    dir = tempDir('ves-lens-audit-dedupe-');
    const questions = path.join(dir, 'question-730.json');
    const all = JSON.parse(fs.readFileSync(MINIDEV_QUESTIONS, 'utf8')) as { question_id: number }[];
    fs.writeFileSync(questions, JSON.stringify(all.filter((q) => q.question_id === 730)));
    const json = path.join(dir, 'audit.json');
    const result = runCli(
      ['audit', '--questions', questions, '--db-root', path.join(BIRD_DATA, 'databases'), '--json', json, '--no-progress'],
      {
        timeout: 120_000,
      },
    );
    assert.equal(result.status, 0, result.stderr);
    entry = JSON.parse(fs.readFileSync(json, 'utf8')).entries[0];
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists VL001 once for each EXISTS, each with where it is, measured', () => {
    const vl001 = entry.rewrites.filter((r) => r.rule === 'VL001');
    assert.equal(vl001.length, 2);
    const places = vl001.map((r) => entry.gold_sql.slice(r.at!.start, r.at!.end));
    assert.ok(
      places.every((p) => /^EXISTS \(SELECT 1 FROM/.test(p)),
      places.join(' | '),
    );
    assert.notEqual(places[0], places[1]);
    assert.ok(vl001.every((r) => r.gain && r.status !== 'not-verified'));
  });

  it('names VL001 in at most one reason of the ranking', () => {
    assert.ok(entry.reasons.filter((r) => r.startsWith('VL001')).length <= 1, entry.reasons.join('\n'));
  });
});
