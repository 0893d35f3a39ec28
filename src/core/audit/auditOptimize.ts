/**
 * The gold audit's optimizer step (`audit --optimize`, issue 28): each gold's best verified rewrite, found by
 * core/optimize (run by app/auditOptimize.ts), kept on its entry, and the gold ranked by the time that rewrite
 * saves (original − rewrite at the scale decided on). Worded here for the terminal and the HTML page (the editor's
 * audit panel shows that page); JSON takes the entries' `optimized` and the audit's `optimize` as they are.
 */
import pc from 'picocolors';
import type { ProofStatus, StatementOptimization } from '../optimize/types';
import { escapeHtml } from '../report/htmlCharts';
import type { AuditOptimized, AuditOptimizeSummary, GoldAudit, GoldAuditEntry } from './goldAudit';

/** The audit's view of a statement's best verified rewrite; none when nothing was kept. */
export function auditOptimized(statement: StatementOptimization): AuditOptimized | undefined {
  const best = statement.best;
  if (!best) return undefined;
  const measured = best.measurements.find((m) => m.scale === best.scale) ?? best.measurements[0];
  const cutOff = Boolean(statement.original.cutOff || measured?.originalCutOff);
  return {
    sql: best.sql,
    patterns: best.patterns,
    speedup: best.speedup,
    low: best.low,
    high: best.high,
    scale: best.scale,
    verification: { proof: best.verification.proof, summary: best.verification.summary },
    original_ms: measured.originalMs,
    rewrite_ms: measured.rewriteMs,
    saved_ms: Math.max(0, measured.originalMs - measured.rewriteMs),
    ...(cutOff ? { original_cut_off: true } : {}),
  };
}

const times = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const ms = (n: number) =>
  n >= 10_000
    ? `${(n / 1000).toFixed(1)} s`
    : n >= 1000
      ? `${(n / 1000).toFixed(2)} s`
      : n >= 10
        ? `${n.toFixed(0)} ms`
        : `${n.toFixed(2)} ms`;
const PROOF_WORDS: Record<ProofStatus, string> = { proven: 'proven', 'by-rule': 'by rule', tested: 'tested, not proven' };

/** "saves 582 ms at ×1: 603 ms → 21 ms, 33.0× (repeat interval 25.4–42.7×), by rule (VL021 + VL002)". */
export function optimizedText(o: AuditOptimized): string {
  const interval =
    o.high === null ? `at least ${times(o.low)}×` : `${times(o.speedup)}× (repeat interval ${times(o.low)}–${times(o.high)}×)`;
  const over = o.original_cut_off ? 'over ' : '';
  return (
    `a verified rewrite saves ${over}${ms(o.saved_ms)} a run at ×${o.scale}: ${over}${ms(o.original_ms)} → ${ms(o.rewrite_ms)}, ` +
    `${interval}, ${PROOF_WORDS[o.verification.proof]} (${o.patterns.join(' + ')})`
  );
}

/**
 * Puts each gold's verified rewrite on its entry (`optimized`), with a reason that ranks it as a verified rewrite
 * of the hint rules ranks (10·log2 of the speed-up), re-ranks the audit, and sums up the step in `audit.optimize`.
 */
export function attachOptimizations(
  audit: GoldAudit,
  byEntry: ReadonlyMap<GoldAuditEntry, StatementOptimization>,
  summary: Omit<AuditOptimizeSummary, 'by_time_saved'>,
): void {
  for (const [entry, statement] of byEntry) {
    const optimized = auditOptimized(statement);
    if (!optimized) continue;
    entry.optimized = optimized;
    entry.reasons.push(optimizedText(optimized));
    entry.score = Number((entry.score + 10 * Math.log2(Math.max(1, optimized.low))).toFixed(3));
  }
  const withRewrite = audit.entries.filter((e) => e.optimized).sort((a, b) => b.optimized!.saved_ms - a.optimized!.saved_ms);
  audit.ranked = audit.entries.filter((e) => e.reasons.length > 0).sort((a, b) => b.score - a.score || a.index - b.index);
  audit.optimize = { ...summary, by_time_saved: withRewrite.map((e) => e.question_id) };
}

/** The gold with a verified rewrite, most time saved first (the order `by_time_saved` records). */
function savers(audit: GoldAudit): GoldAuditEntry[] {
  const byId = new Map(audit.entries.map((e) => [String(e.question_id), e]));
  return (audit.optimize?.by_time_saved ?? []).map((id) => byId.get(String(id))!).filter((e) => e?.optimized);
}

function totalsText(s: AuditOptimizeSummary): string {
  const over = s.lower_bound ? 'over ' : '';
  return (
    `at ×${s.scale}: ${over}${ms(s.before_ms)} → ${ms(s.after_ms)} (${(s.saved_share * 100).toFixed(1)} % saved) over ${s.searched} distinct gold searched, ` +
    `${s.optimized} with a verified faster rewrite${s.skipped.length ? `; ${s.skipped.length} not searched` : ''}`
  );
}

/** The terminal section: the totals, then the gold by time saved, each with its rewrite. */
export function optimizeSectionText(audit: GoldAudit, top: number): string[] {
  const s = audit.optimize;
  if (!s) return [];
  const out = ['', pc.bold(`Time the gold could save (--optimize) ${totalsText(s)}`)];
  const shown = savers(audit);
  shown.slice(0, top).forEach((e, i) => {
    out.push(`${pc.bold(`${i + 1}.`)} question ${e.question_id} (${e.db_id}): ${optimizedText(e.optimized!)}`);
    out.push(pc.green(`   rewrite: ${e.optimized!.sql.replace(/\s+/g, ' ')}`));
  });
  if (shown.length > top) out.push(pc.dim(`and ${shown.length - top} more (all in --json / --html; --top N shows more)`));
  for (const skipped of s.skipped.slice(0, 5)) out.push(pc.yellow(`not searched: question ${skipped.question_id}: ${skipped.reason}`));
  return out;
}

/** The HTML section: the totals, then a table of the gold by time saved, each rewrite beside its gold. */
export function optimizeSectionHtml(audit: GoldAudit): string {
  const s = audit.optimize;
  if (!s) return '';
  const rows = savers(audit)
    .map((e, i) => {
      const o = e.optimized!;
      const interval =
        o.high === null
          ? `≥ ${times(o.low)}×`
          : `${times(o.speedup)}× <span class="muted small">(${times(o.low)}–${times(o.high)}×)</span>`;
      return (
        `<tr><td class="num">${i + 1}</td><td>${escapeHtml(String(e.question_id))}</td><td>${escapeHtml(e.db_id)}</td>` +
        `<td class="num">${o.original_cut_off ? '≥ ' : ''}${escapeHtml(ms(o.saved_ms))}</td><td class="num">${interval}</td>` +
        `<td>${escapeHtml(PROOF_WORDS[o.verification.proof])}<div class="small muted">${escapeHtml(o.verification.summary)}</div></td>` +
        `<td>${escapeHtml(o.patterns.join(' + '))}</td>` +
        `<td><div class="sql">${escapeHtml(o.sql)}</div><details><summary class="small">the gold</summary><div class="sql">${escapeHtml(e.gold_sql)}</div></details></td></tr>`
      );
    })
    .join('\n');
  const skipped = s.skipped.length
    ? `<p class="small muted">Not searched: ${s.skipped.map((x) => `question ${escapeHtml(String(x.question_id))} (${escapeHtml(x.reason)})`).join('; ')}.</p>`
    : '';
  return (
    `<p>${escapeHtml(totalsText(s))}. Each rewrite returns the gold's rows on the database (as a set and as a bag), no varied copy of its tables tells them apart, and its whole repeat interval is above 1; rewrites only, no index (a gold cannot add one).</p>${skipped}` +
    (rows
      ? `<div class="scroll"><table id="audit-optimize"><thead><tr><th>#</th><th>question</th><th>database</th><th>saved a run</th><th>speed-up</th><th>proof</th><th>patterns</th><th>rewrite</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : '<p class="muted">No gold has a verified faster rewrite.</p>')
  );
}
