import { GoldFile } from '../core/bird/gold';
import { InputProblem } from '../core/bird/problems';
import { Question } from '../core/bird/questions';
import { GoldAuditEntry } from '../core/audit/goldAudit';
import { PredictionEvidence, PredictionHit } from '../core/audit/predictionEvidence';
import { EvidenceOptions, gatherEvidence, PredictionSource } from '../core/audit/predictionSources';
import { ResumableRun } from './resumableRun';

/**
 * What `audit`'s checkpoint holds (cli/resumableRun.ts): each audited gold, keyed by its question's index, and
 * the evidence of each prediction file scored against the gold (EX and a measured time ratio per question),
 * keyed by -(n + 1) for the n-th --predictions input. The evidence is kept rather than scored again on --resume:
 * its ratios are measured, and the gold audited after a resume must see the same evidence as those before it.
 * Eval reports given as --predictions are read again (reading one is cheap and gives the same evidence).
 */
export type AuditCheckpointItem =
  { entry: GoldAuditEntry } | { evidence: { file: string; hits: [number, PredictionHit][]; problems: InputProblem[] } };

const evidenceKey = (n: number) => -(n + 1);

/** The gold audited by the run a checkpoint was made by, by question index. */
export function auditedEntries(run: ResumableRun<AuditCheckpointItem>): Map<number, GoldAuditEntry> {
  const entries = new Map<number, GoldAuditEntry>();
  for (const [key, item] of run.resumed) if (key >= 0 && 'entry' in item) entries.set(key, item.entry);
  return entries;
}

/**
 * gatherEvidence one input at a time: a prediction file scored by the run a checkpoint was made by is taken from
 * it (with the problems its scoring found), the others are scored and kept as each is complete. An interruption
 * mid-file keeps nothing of that file (it is scored again on --resume) and stops the gathering.
 */
export async function resumableEvidence(
  sources: readonly PredictionSource[],
  questions: Question[],
  gold: GoldFile | undefined,
  problems: InputProblem[],
  options: EvidenceOptions,
  run: ResumableRun<AuditCheckpointItem>,
): Promise<PredictionEvidence[]> {
  const evidence: PredictionEvidence[] = [];
  for (const [n, source] of sources.entries()) {
    const kept = run.resumed.get(evidenceKey(n));
    if (kept && 'evidence' in kept && kept.evidence.file === source.file && 'predictions' in source) {
      problems.push(...kept.evidence.problems);
      evidence.push({ file: kept.evidence.file, byIndex: new Map(kept.evidence.hits) });
      continue;
    }
    const before = problems.length;
    const found = await gatherEvidence([source], questions, gold, problems, { ...options, signal: run.interrupt.signal });
    if (run.interrupted()) break;
    evidence.push(...found);
    if ('predictions' in source && found.length === 1)
      run.finish(evidenceKey(n), { evidence: { file: source.file, hits: [...found[0].byIndex], problems: problems.slice(before) } });
  }
  return evidence;
}
