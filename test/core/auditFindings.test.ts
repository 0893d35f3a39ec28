// The gold audit's findings (issue 22): a gold whose database is missing is counted and shown as not audited
// (unrun is not clean), in the core result, the terminal text, the HTML page and the editor's panel; an index is
// flagged only when its whole measured interval is at least INDEX_GAIN_FACTOR.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { auditCounts, INDEX_GAIN_FACTOR, isFlaggedIndexGain, notAuditedText } from '../../src/core/audit/auditFindings';
import { auditHtml } from '../../src/core/audit/auditHtml';
import { auditMarks } from '../../src/core/audit/auditMarks';
import { auditText } from '../../src/core/audit/auditText';
import type { GoldAudit, GoldAuditEntry, MeasuredGain } from '../../src/core/audit/goldAudit';
import { auditDoneMessage, auditStatusLine } from '../../src/app/auditSummary';

const gain = (ratio: number, low: number, high: number): MeasuredGain => ({
  ratio,
  low,
  high,
  verdict: low > 1 ? 'faster' : 'no-difference',
});

function entry(index: number, fields: Partial<GoldAuditEntry>): GoldAuditEntry {
  return {
    index,
    question_id: 700 + index,
    db_id: 'superhero',
    difficulty: 'simple',
    gold_sql: 'SELECT 1',
    status: 'ok',
    plan: null,
    rewrites: [],
    indexes: [],
    reasons: [],
    score: 0,
    ...fields,
  };
}

/** Two audited gold (one with a 17× index, one with a 1.17× index), two whose database is missing, one without gold. */
function sampleAudit(): GoldAudit {
  const big = entry(0, {
    indexes: [{ create_sql: 'CREATE INDEX big ON zip_code (county)', reason: '', work_with: 10, gain: gain(16.7, 5.8, 48) }],
    reasons: ['CREATE INDEX big ON zip_code (county) makes it 17× as fast'],
    score: 20,
  });
  const small = entry(1, {
    indexes: [{ create_sql: 'CREATE INDEX small ON superhero (full_name)', reason: '', work_with: 10, gain: gain(1.17, 1.005, 1.37) }],
  });
  const missing = (index: number) =>
    entry(index, {
      db_id: 'formula_1',
      status: 'skipped',
      not_audited: 'database_missing',
      error: 'database not found: /data/formula_1/formula_1.sqlite',
    });
  const noGold = entry(4, { status: 'skipped', not_audited: 'no_gold', error: 'no gold SQL for this question' });
  const entries = [big, small, missing(2), missing(3), noGold];
  return {
    entries,
    ranked: [big],
    measured: true,
    scales: [],
    prediction_files: [],
    counts: auditCounts(entries),
    index_gain_factor: INDEX_GAIN_FACTOR,
  };
}

describe('gold audit findings', () => {
  it('counts the gold not audited by reason, apart from the audited ones', () => {
    const audit = sampleAudit();
    assert.deepEqual(audit.counts, { total: 5, audited: 2, not_audited: { database_missing: 2, no_gold: 1 } });
    assert.equal(notAuditedText(audit.counts), '3 not audited (2 database missing, 1 no gold SQL)');
    assert.equal(notAuditedText(auditCounts(audit.entries.slice(0, 4))), '2 not audited (database missing)');
    assert.equal(notAuditedText(auditCounts(audit.entries.slice(0, 2))), '', 'all audited: nothing to say');
    // An audit kept by an older version has skipped entries without a reason: still not audited.
    assert.equal(notAuditedText(auditCounts([{ status: 'skipped' }])), '1 not audited');
  });

  it("flags an index only when its whole interval is at least the stated factor (747's 1.2× is not flagged)", () => {
    assert.equal(INDEX_GAIN_FACTOR, 2);
    assert.ok(isFlaggedIndexGain(gain(16.7, 5.8, 48)));
    assert.ok(!isFlaggedIndexGain(gain(1.17, 1.005, 1.37)), 'significant but small');
    assert.ok(!isFlaggedIndexGain(gain(3, 1.5, 6)), 'the ratio is above the factor, the interval is not');
    assert.ok(!isFlaggedIndexGain(undefined));
    const audit = sampleAudit();
    assert.deepEqual(
      auditMarks(audit).map((m) => m.kind),
      ['index'],
    );
  });

  it('the terminal text says how many were audited, how many not and why, and the index threshold', () => {
    const text = auditText(sampleAudit());
    assert.match(text, /^2 gold SQL audited, 3 not audited \(2 database missing, 1 no gold SQL\): 0 fail, 0 have a verified faster /);
    assert.match(text, /, 1 an index that makes them at least 2× as fast \(the whole measured interval\)/);
    assert.match(text, /not audited, database missing: formula_1 \(unrun, not clean\)/);
  });

  it('the HTML page shows an unrun gold as not audited, never "score 0.0 · nothing found", and states the index threshold', () => {
    const html = auditHtml(sampleAudit());
    assert.match(html, /5 gold SQL: 2 audited and 3 not audited \(2 database missing, 1 no gold SQL\); 1 worth another look\./);
    assert.match(html, /An index is flagged when its whole repeat interval says it makes the gold at least 2× as fast/);
    const row = (index: number) => html.slice(html.indexOf(`id="q-${index}"`), html.indexOf('</tr>', html.indexOf(`id="q-${index}"`)));
    assert.match(row(2), /data-kind="not_audited"/);
    assert.match(row(2), /not audited: database missing/);
    assert.match(row(2), /database not found: \/data\/formula_1\/formula_1\.sqlite/);
    assert.doesNotMatch(row(2), /nothing found|>0\.0</);
    assert.match(row(1), /nothing found/, 'an audited gold with nothing flagged still says so');
    assert.match(row(1), /faster 1\.17× \[1\.00–1\.37\], under the 2× flag/);
    assert.match(html, /<option value="not_audited">not audited<\/option>/);
  });

  it("the editor's panel line and notification count the gold not audited", () => {
    const audit = sampleAudit();
    const result = { audit, marks: auditMarks(audit), partial: false, total: 5 };
    assert.equal(auditStatusLine(result), '2 gold audited · 3 not audited (2 database missing, 1 no gold SQL) · 1 worth another look');
    assert.equal(
      auditDoneMessage(result),
      '2 gold SQL audited, 3 not audited (2 database missing, 1 no gold SQL): 1 worth another look, marked in the BIRD Explorer.',
    );
    const cancelled = { ...result, audit: { ...audit, entries: audit.entries.slice(0, 3) }, partial: true };
    assert.equal(auditStatusLine(cancelled), 'Cancelled: 2 of 5 gold audited · 1 not audited (database missing) · 1 worth another look');
    const clean = { ...result, audit: { ...audit, entries: audit.entries.slice(0, 2) }, total: 2 };
    assert.equal(auditStatusLine(clean), '2 gold audited · 1 worth another look', 'all audited: as before');
  });
});
