import pc from 'picocolors';
import { compactNumber } from '../report/planText';
import { GoldAudit, GoldAuditEntry } from './goldAudit';

function entryLines(entry: GoldAuditEntry, rank: number): string[] {
  const lines = [`${pc.bold(`${rank}.`)} question ${entry.question_id} (${entry.db_id}${entry.difficulty ? `, ${entry.difficulty}` : ''})${entry.plan ? pc.dim(`  rule cost ${entry.plan.rule} · ~${compactNumber(entry.plan.work)} row visits`) : ''}`];
  lines.push(pc.dim(`   ${entry.gold_sql.replace(/\s+/g, ' ').slice(0, 160)}${entry.gold_sql.length > 160 ? '…' : ''}`));
  for (const reason of entry.reasons) lines.push(`   - ${reason}`);
  const best = entry.rewrites.find((r) => r.kind === 'speed' && r.status === 'faster');
  if (best) lines.push(pc.green(`   faster form: ${best.sql.replace(/\s+/g, ' ').slice(0, 200)}`));
  return lines;
}

/** The terminal audit: counts, then the gold SQL worth another look, most first. */
export function auditText(audit: GoldAudit, top = 20): string {
  const audited = audit.entries.filter((e) => e.status !== 'skipped');
  const errors = audit.entries.filter((e) => e.status === 'gold_error').length;
  const skipped = audit.entries.length - audited.length;
  const faster = audit.entries.filter((e) => e.rewrites.some((r) => r.kind === 'speed' && r.status === 'faster')).length;
  const indexed = audit.entries.filter((e) => e.indexes.some((i) => i.gain?.verdict === 'faster')).length;
  const beaten = audit.entries.filter((e) => (e.faster_predictions?.files ?? 0) > 0).length;
  const out = [
    `${audited.length} gold SQL audited${skipped ? ` (${skipped} skipped: no database or no gold)` : ''}: ${errors} fail, ${faster} have a verified faster rewrite, ${indexed} an index that makes them measurably faster${audit.prediction_files.length ? `, ${beaten} are beaten ≥2× by a correct prediction (${audit.prediction_files.length} files)` : ''}${audit.measured ? '' : pc.dim(' (not measured: --no-measure)')}`,
    '',
    pc.bold(`Gold SQL worth another look: ${audit.ranked.length}`),
  ];
  audit.ranked.slice(0, top).forEach((entry, i) => out.push(...entryLines(entry, i + 1)));
  if (audit.ranked.length > top) out.push(pc.dim(`and ${audit.ranked.length - top} more (all in --json / --html; --top N shows more)`));
  return out.join('\n');
}
