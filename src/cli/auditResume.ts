import type { AuditRunHooks, KeptEvidence } from '../app/auditRun';
import type { GoldAuditEntry } from '../core/audit/goldAudit';
import { ResumableRun } from '../app/resumableRun';

/**
 * What `audit`'s checkpoint holds (cli/resumableRun.ts): each audited gold, keyed by its question's index, and
 * the evidence of each prediction file scored against the gold (EX and a measured time ratio per question),
 * keyed by -(n + 1) for the n-th --predictions input. The evidence is kept rather than scored again on --resume:
 * its ratios are measured, and the gold audited after a resume must see the same evidence as those before it.
 * Eval reports given as --predictions are read again (reading one is cheap and gives the same evidence).
 */
export type AuditCheckpointItem = { entry: GoldAuditEntry } | { evidence: KeptEvidence };

const evidenceKey = (n: number) => -(n + 1);

/** The gold audited by the run a checkpoint was made by, by question index. */
export function auditedEntries(run: ResumableRun<AuditCheckpointItem>): Map<number, GoldAuditEntry> {
  const entries = new Map<number, GoldAuditEntry>();
  for (const [key, item] of run.resumed) if (key >= 0 && 'entry' in item) entries.set(key, item.entry);
  return entries;
}

/**
 * The audit's evidence through the checkpoint (app/auditRun.ts gathers it one input at a time): a prediction file
 * scored by the run a checkpoint was made by is taken from it, the others kept as each is complete.
 */
export function evidenceCheckpoint(run: ResumableRun<AuditCheckpointItem>): Pick<AuditRunHooks, 'keptEvidence' | 'onEvidence'> {
  return {
    keptEvidence: (n) => {
      const kept = run.resumed.get(evidenceKey(n));
      return kept && 'evidence' in kept ? kept.evidence : undefined;
    },
    onEvidence: (n, evidence) => run.finish(evidenceKey(n), { evidence }),
  };
}
