import pc from 'picocolors';
import { compactNumber } from '../report/planText';
import { auditCounts, INDEX_GAIN_FACTOR, isFlaggedIndexGain, notAuditedText } from './auditFindings';
import { comparedGoldName, crossDialectText, goldNames, isCrossDialectFinding } from './crossDialect';
import { GoldAudit, GoldAuditEntry } from './goldAudit';
import { correctnessSummaryText } from './correctness/kinds';
import { optimizeSectionText } from './auditOptimize';

function entryLines(entry: GoldAuditEntry, rank: number): string[] {
  const lines = [
    `${pc.bold(`${rank}.`)} question ${entry.question_id} (${entry.db_id}${entry.difficulty ? `, ${entry.difficulty}` : ''})${entry.plan ? pc.dim(`  rule cost ${entry.plan.rule} · ~${compactNumber(entry.plan.work)} row visits`) : ''}`,
  ];
  lines.push(pc.dim(`   ${entry.gold_sql.replace(/\s+/g, ' ').slice(0, 160)}${entry.gold_sql.length > 160 ? '…' : ''}`));
  for (const reason of entry.reasons) lines.push(`   - ${reason}`);
  // Both golds' first rows, the evidence of a cross-dialect difference.
  const check = entry.cross_dialect;
  if (check && isCrossDialectFinding(check) && check.evidence.compared) {
    const { gold, compared } = check.evidence;
    const names = goldNames(gold.engine, compared.engine);
    for (const [name, side] of [
      [names.gold, gold],
      [names.compared, compared],
    ] as const) {
      const shown = side.error ?? `${side.rows} row${side.rows === 1 ? '' : 's'}, first ${JSON.stringify(side.first_rows).slice(0, 160)}`;
      lines.push(pc.dim(`     ${name}: ${shown}`));
    }
  }
  // The evidence of each correctness finding: the rows as written against the rows of its check.
  for (const finding of entry.correctness ?? []) {
    const { check, rows_as_written: written, rows_of_check: other } = finding.evidence;
    if (!written && !other) continue;
    const rows = (r: unknown[][] | undefined) => JSON.stringify(r ?? []).slice(0, 120);
    lines.push(pc.dim(`     ${finding.kind}: as written ${rows(written)}; ${check}: ${rows(other)}`));
  }
  const best = entry.rewrites.find((r) => r.kind === 'speed' && r.status === 'faster');
  if (best) lines.push(pc.green(`   faster form: ${best.sql.replace(/\s+/g, ' ').slice(0, 200)}`));
  return lines;
}

/** The terminal audit: counts, then the gold SQL worth another look, most first. */
export function auditText(audit: GoldAudit, top = 20): string {
  const counts = auditCounts(audit.entries);
  const notAudited = notAuditedText(counts);
  const errors = audit.entries.filter((e) => e.status === 'gold_error').length;
  const faster = audit.entries.filter((e) => e.rewrites.some((r) => r.kind === 'speed' && r.status === 'faster')).length;
  const indexed = audit.entries.filter((e) => e.indexes.some((i) => isFlaggedIndexGain(i.gain))).length;
  const beaten = audit.entries.filter((e) => (e.faster_predictions?.files ?? 0) > 0).length;
  const missingDatabases = [...new Set(audit.entries.filter((e) => e.not_audited === 'database_missing').map((e) => e.db_id))];
  const files = audit.prediction_files.length;
  const crossDialect = audit.cross_dialect;
  const differing = audit.entries.filter((e) => isCrossDialectFinding(e.cross_dialect)).length;
  const out = [
    `${counts.audited} gold SQL audited${notAudited ? `, ${notAudited}` : ''}: ${errors} fail, ` +
      `${crossDialect ? `${differing} differ from ${comparedGoldName(crossDialect)}, ` : ''}` +
      `${faster} have a verified faster rewrite, ` +
      `${indexed} an index that makes them at least ${INDEX_GAIN_FACTOR}× as fast (the whole measured interval)` +
      `${files ? `, ${beaten} are beaten ≥2× by a correct prediction (${files} files)` : ''}` +
      `${audit.measured ? '' : pc.dim(' (not measured: --no-measure)')}`,
    ...(missingDatabases.length ? [pc.yellow(`not audited, database missing: ${missingDatabases.join(', ')} (unrun, not clean)`)] : []),
    ...(audit.correctness
      ? [correctnessSummaryText(audit.correctness), ...audit.correctness.notes.map((note) => pc.yellow(`correctness: ${note}`))]
      : []),
    ...(crossDialect
      ? [crossDialect.server_lost !== undefined ? pc.yellow(crossDialectText(crossDialect)) : crossDialectText(crossDialect)]
      : []),
    '',
    pc.bold(`Gold SQL worth another look: ${audit.ranked.length}`),
  ];
  audit.ranked.slice(0, top).forEach((entry, i) => out.push(...entryLines(entry, i + 1)));
  if (audit.ranked.length > top) out.push(pc.dim(`and ${audit.ranked.length - top} more (all in --json / --html; --top N shows more)`));
  out.push(...optimizeSectionText(audit, top));
  return out.join('\n');
}
