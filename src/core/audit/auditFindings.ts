/**
 * What the gold audit counts as a finding, and what it could not audit: shared by the audit itself, its
 * terminal text, its HTML page and the editor's panel, so that every face flags and counts alike. It imports
 * nothing: the editor uses it without the database layer.
 */

/** A measured speed-up of an alternative (a rewrite, an index) over the gold. */
export interface MeasuredGain {
  /** t_gold / t_alternative: above 1, the alternative is faster. */
  ratio: number;
  low: number;
  high: number;
  verdict: 'faster' | 'slower' | 'no-difference';
}

/**
 * An index is flagged when a repeat run agrees it at least halves the gold's time: the whole measured interval
 * lies at or above this factor. A significant 1.2× (question 747's `full_name` index) is a real but small
 * gain that an annotator need not look at; the index column still shows every measured gain.
 */
export const INDEX_GAIN_FACTOR = 2;

/** Whether a measured index gain is one the audit flags (see INDEX_GAIN_FACTOR). */
export function isFlaggedIndexGain(gain: MeasuredGain | undefined): gain is MeasuredGain {
  return gain !== undefined && gain.verdict === 'faster' && gain.low >= INDEX_GAIN_FACTOR;
}

/** A gold that returns other rows than its counterpart in another dialect: its weight in the audit's ranking. */
export const CROSS_DIALECT_WEIGHT = 200;

/** Why a gold was not audited: it is unrun, which is not the same as clean. */
export type NotAuditedReason = 'database_missing' | 'database_unreadable' | 'no_database' | 'no_gold';

export const NOT_AUDITED_LABELS: Record<NotAuditedReason, string> = {
  database_missing: 'database missing',
  database_unreadable: 'database cannot be opened',
  no_database: 'no database named',
  no_gold: 'no gold SQL',
};

export interface AuditCounts {
  total: number;
  audited: number;
  /** Per reason, only the reasons that occur. */
  not_audited: Partial<Record<NotAuditedReason, number>>;
}

/** How many gold were audited and, per reason, how many were not (an audit kept by an older version has no reasons). */
export function auditCounts(entries: readonly { status: string; not_audited?: NotAuditedReason }[]): AuditCounts {
  const notAudited: Partial<Record<NotAuditedReason, number>> = {};
  let audited = 0;
  for (const entry of entries) {
    if (entry.status !== 'skipped') audited++;
    else if (entry.not_audited) notAudited[entry.not_audited] = (notAudited[entry.not_audited] ?? 0) + 1;
  }
  return { total: entries.length, audited, not_audited: notAudited };
}

/** `360 not audited (database missing)`, `3 not audited (2 database missing, 1 no gold SQL)`; '' when every gold was audited. */
export function notAuditedText(counts: AuditCounts): string {
  const unrun = counts.total - counts.audited;
  if (unrun === 0) return '';
  const parts = (Object.entries(counts.not_audited) as [NotAuditedReason, number][]).filter(([, n]) => n > 0);
  if (parts.length === 0) return `${unrun} not audited`;
  const reasons =
    parts.length === 1 && parts[0][1] === unrun
      ? NOT_AUDITED_LABELS[parts[0][0]]
      : parts.map(([reason, n]) => `${n} ${NOT_AUDITED_LABELS[reason]}`).join(', ');
  return `${unrun} not audited (${reasons})`;
}
