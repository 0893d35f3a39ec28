import { CROSS_DIALECT_WEIGHT, isFlaggedIndexGain } from './auditFindings';
import { goldNames, isCrossDialectFinding } from './crossDialect';
import { GoldAudit, GoldAuditEntry } from './goldAudit';
import { CORRECTNESS_LABELS, CORRECTNESS_WEIGHTS, CorrectnessKind } from './correctness/kinds';

/** What an editor marks a flagged question with: the most important finding in a few words, and every reason. */
export interface AuditMark {
  questionId: string;
  dbId: string;
  /** 1: most worth another look. */
  rank: number;
  score: number;
  kind: 'gold_error' | 'cross_dialect' | 'correctness' | 'faster_rewrite' | 'faster_prediction' | 'index' | 'grows' | CorrectnessKind;
  /** "fails", "3.1× faster rewrite", "correct prediction 90× faster", ... */
  headline: string;
  reasons: string[];
}

const times = (ratio: number) => `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1)}×`;

/** The headline finding, by the audit's own order of importance (a failing gold, a hazard, then measured speed-ups). */
function headline(entry: GoldAuditEntry): Pick<AuditMark, 'kind' | 'headline'> {
  if (entry.status === 'gold_error') return { kind: 'gold_error', headline: 'fails' };
  // --correctness: the weightiest finding on the data, where it outweighs a cross-dialect difference (as in the ranking).
  const found = [...(entry.correctness ?? [])].sort((a, b) => CORRECTNESS_WEIGHTS[b.kind] - CORRECTNESS_WEIGHTS[a.kind])[0];
  if (found && (CORRECTNESS_WEIGHTS[found.kind] >= CROSS_DIALECT_WEIGHT || !isCrossDialectFinding(entry.cross_dialect)))
    return { kind: found.kind, headline: CORRECTNESS_LABELS[found.kind] };
  const crossDialect = entry.cross_dialect;
  if (crossDialect && isCrossDialectFinding(crossDialect)) {
    const other = goldNames(crossDialect.evidence.gold.engine, crossDialect.evidence.compared?.engine ?? '').compared;
    return { kind: 'cross_dialect', headline: crossDialect.status === 'different' ? `differs from ${other}` : `${other} fails` };
  }
  const hazard = entry.rewrites.find((r) => r.kind === 'correctness' && r.status === 'changes-results');
  if (hazard) return { kind: 'correctness', headline: `${hazard.rule} correctness hazard` };
  const smell = entry.hints?.[0];
  if (smell) return { kind: 'correctness', headline: `${smell.rule}: ${smell.title.split(' (')[0]}` };
  const best = (ratios: number[]) => Math.max(0, ...ratios);
  const rewrite = best(entry.rewrites.filter((r) => r.kind === 'speed' && r.status === 'faster' && r.gain).map((r) => r.gain!.ratio));
  if (rewrite > 0) return { kind: 'faster_rewrite', headline: `${times(rewrite)} faster rewrite` };
  const fp = entry.faster_predictions;
  if (fp && fp.files > 0) return { kind: 'faster_prediction', headline: `correct prediction ${times(fp.best ?? fp.factor)} faster` };
  const index = best(entry.indexes.filter((i) => isFlaggedIndexGain(i.gain)).map((i) => i.gain!.ratio));
  if (index > 0) return { kind: 'index', headline: `${times(index)} faster with an index` };
  if ((entry.growth?.exponent ?? 0) >= 1.5) return { kind: 'grows', headline: `grows ~N^${entry.growth!.exponent!.toFixed(1)}` };
  return { kind: 'no_rows', headline: 'returns no rows' };
}

/** One mark per gold worth another look, in the audit's ranking. */
export function auditMarks(audit: GoldAudit): AuditMark[] {
  return audit.ranked.map((entry, i) => ({
    questionId: String(entry.question_id),
    dbId: entry.db_id,
    rank: i + 1,
    score: entry.score,
    ...headline(entry),
    reasons: entry.reasons,
  }));
}
