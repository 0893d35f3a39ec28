// `ves-lens audit --optimize` as a user runs it, in a real process, on the shared toxicology database: a question
// file whose first gold counts each molecule's atoms in a correlated subquery (VL021 makes it a pre-aggregated
// join) and whose second gold has no faster form. The first gets its verified rewrite (by rule, never "proven";
// its whole interval above 1) in the terminal, the JSON (entries[i].optimized) and the HTML page, ranked by the
// time it saves; Python's sqlite3 checks the rewrite returns the gold's rows. Bad options stop before any work.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import type { AuditOptimized as Optimized, AuditOptimizeSummary } from '../../src/core/audit/goldAudit';
import { pythonBags } from '../pythonBags';
import { BIRD_DATA, birdDataMissing, runCli, tempDir } from '../helpers';

const DB_ROOT = path.join(BIRD_DATA, 'databases');
const TOXICOLOGY = path.join(DB_ROOT, 'toxicology', 'toxicology.sqlite');
const SLOW = "SELECT m.label FROM molecule m WHERE m.label = '-' AND (SELECT COUNT(*) FROM atom a WHERE a.molecule_id = m.molecule_id) > 5";
const PLAIN = "SELECT COUNT(*) FROM molecule WHERE label = '+'";

interface Audit {
  entries: { question_id: number; status: string; reasons: string[]; optimized?: Optimized }[];
  ranked: { question_id: number }[];
  optimize: AuditOptimizeSummary;
}

describe('ves-lens audit --optimize on toxicology', { skip: birdDataMissing() }, () => {
  const dir = tempDir();
  const questions = path.join(dir, 'questions.json');
  const json = path.join(dir, 'audit.json');
  const html = path.join(dir, 'audit.html');
  let run: ReturnType<typeof runCli>;
  let audit: Audit;

  before(() => {
    const question = (id: number, sql: string) => ({
      question_id: id,
      db_id: 'toxicology',
      question: `q${id}`,
      evidence: '',
      SQL: sql,
      difficulty: 'simple',
    });
    fs.writeFileSync(questions, JSON.stringify([question(7001, SLOW), question(7002, PLAIN)]));
    run = runCli(
      [
        'audit',
        '--questions',
        questions,
        '--db-root',
        DB_ROOT,
        '--no-measure',
        '--optimize',
        '--optimize-budget',
        '60',
        '--json',
        json,
        '--html',
        html,
        '--no-progress',
      ],
      { timeout: 300_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    audit = JSON.parse(fs.readFileSync(json, 'utf8')) as Audit;
  });

  it('keeps the verified rewrite on the gold it speeds up, with its interval, scale and proof status', () => {
    const [slow, plain] = audit.entries;
    const o = slow.optimized!;
    assert.ok(o, JSON.stringify(slow));
    assert.ok(o.patterns.includes('VL021'), o.patterns.join('+'));
    assert.equal(o.scale, 1);
    assert.ok(o.low > 1 && o.low <= o.speedup && (o.high === null || o.speedup <= o.high), `${o.low} ${o.speedup} ${o.high}`);
    assert.equal(o.verification.proof, 'by-rule');
    assert.match(o.verification.summary, /by the proof conditions of VL021/);
    assert.ok(o.saved_ms > 0 && Math.abs(o.original_ms - o.rewrite_ms - o.saved_ms) < 1e-6);
    assert.match(slow.reasons.join('\n'), /a verified rewrite saves [\d.]+ m?s a run at ×1: .* by rule \(VL021/);
    assert.equal(plain.optimized, undefined);
    const [gold, rewrite] = pythonBags(TOXICOLOGY, SLOW, o.sql);
    assert.deepEqual(rewrite, gold);
  });

  it('ranks the gold by the time a verified rewrite saves, with the totals', () => {
    assert.deepEqual(audit.optimize.by_time_saved, [7001]);
    assert.equal(audit.optimize.searched, 2);
    assert.equal(audit.optimize.optimized, 1);
    assert.equal(audit.optimize.scale, 1);
    assert.ok(audit.optimize.after_ms < audit.optimize.before_ms && audit.optimize.saved_share > 0 && audit.optimize.saved_share < 1);
    assert.equal(audit.ranked[0].question_id, 7001);
  });

  it('shows it in the terminal and on the HTML page', () => {
    assert.match(
      run.stdout,
      /Time the gold could save \(--optimize\) at ×1: [\d.]+ m?s → [\d.]+ m?s \([\d.]+ % saved\) over 2 distinct gold searched, 1 with a verified faster rewrite/,
    );
    assert.match(run.stdout, /1\. question 7001 \(toxicology\): a verified rewrite saves/);
    assert.match(run.stdout, /rewrite: SELECT m\.label FROM molecule m LEFT JOIN \(SELECT/);
    assert.doesNotMatch(run.stdout, /undefined|NaN/);
    const page = fs.readFileSync(html, 'utf8');
    assert.match(page, /Time the gold could save: verified rewrites/);
    assert.match(page, /<table id="audit-optimize">[\s\S]*<td>7001<\/td>[\s\S]*by rule[\s\S]*LEFT JOIN/);
  });

  it('refuses --scale without --optimize, and a --scale that is not a positive integer, before any work', () => {
    const alone = runCli(['audit', '--questions', questions, '--db-root', DB_ROOT, '--scale', '10']);
    assert.equal(alone.status, 2);
    assert.match(alone.stderr, /--scale: goes with --optimize/);
    const zero = runCli(['audit', '--questions', questions, '--db-root', DB_ROOT, '--optimize', '--scale', '0']);
    assert.equal(zero.status, 2);
    assert.match(zero.stderr, /--scale/);
    assert.doesNotMatch(zero.stderr, /^\s+at /m, 'no stack trace');
  });
});
