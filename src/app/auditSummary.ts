// The editor's words for a gold audit's end (its panel's status line, its notification): what was audited, from
// core's counts of the entries (an audit the editor kept from an older version has none of its own).
import { auditCounts, notAuditedText } from '../core/audit/auditFindings';
import type { GoldAudit } from '../core/audit/goldAudit';

/** What the words read of an audit's result (the language server's AuditGoldResult). */
interface AuditOutcome {
  audit: Pick<GoldAudit, 'entries'>;
  /** One per flagged question. */
  marks: readonly unknown[];
  /** Cancelled before the end. */
  partial: boolean;
  /** Questions in the dataset. */
  total: number;
}

/**
 * The Gold Audit panel's status line, as plain text: gold audited, then those that were not (a missing database
 * is unrun, not clean), then how many are worth another look.
 */
export function auditStatusLine(result: AuditOutcome): string {
  const counts = auditCounts(result.audit.entries);
  const notAudited = notAuditedText(counts);
  const audited = result.partial ? `Cancelled: ${counts.audited} of ${result.total} gold audited` : `${counts.audited} gold audited`;
  return `${audited}${notAudited ? ` · ${notAudited}` : ''} · ${result.marks.length} worth another look`;
}

/** The notification when an audit ends: what was audited, what was not, and where the flags are. */
export function auditDoneMessage(result: AuditOutcome): string {
  const counts = auditCounts(result.audit.entries);
  const notAudited = notAuditedText(counts);
  const flagged = `${result.marks.length} worth another look, marked in the BIRD Explorer`;
  if (result.partial) {
    const unrun = notAudited ? ` (${notAudited})` : '';
    return `gold audit cancelled; it keeps the ${counts.audited} of ${result.total} gold audited so far${unrun} (${flagged}).`;
  }
  return `${counts.audited} gold SQL audited${notAudited ? `, ${notAudited}` : ''}: ${flagged}.`;
}
