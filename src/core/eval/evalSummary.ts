import { Metric, Outcome, OUTCOMES, QuestionResult } from './types';
import { summarizeTechniques, TechniqueGroupScore } from './techniqueSummary';
import type { TechniqueName } from '../results/sqlmorph/types';
import { robustnessSummary, RobustnessSummary } from './robustnessSummary';

export interface GroupSummary {
  /** A difficulty (simple, moderate, challenging, ...) or `total`. */
  group: string;
  /** Scored questions (skipped ones are not counted). */
  count: number;
  /** Each requested metric × 100 over the group's scored questions (null where the group is empty). */
  scores: Partial<Record<Metric, number | null>>;
  outcomes: Record<Outcome, number>;
  /** With --techniques: SQLMorph's techniques over the group's scored questions (eval/techniqueSummary.ts). */
  techniques?: Partial<Record<TechniqueName, TechniqueGroupScore>>;
}

export interface EvalSummary {
  groups: GroupSummary[];
  skipped: { count: number; databases: Record<string, number> };
  /** With --counterexamples: counterexamples, provable equivalences and EX-fragile mismatches. */
  robustness?: RobustnessSummary;
}

const DIFFICULTY_ORDER = ['simple', 'moderate', 'challenging'];

/** The value each metric contributes for one question (null-safe: unscored metrics count as 0). */
function contribution(result: QuestionResult, metric: Metric): number {
  const value = metric === 'ex' ? result.ex : result[metric];
  return value ?? 0;
}

function summarizeGroup(group: string, results: QuestionResult[], metrics: readonly Metric[]): GroupSummary {
  const scored = results.filter((r) => r.outcome !== 'skipped');
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of results) outcomes[r.outcome]++;
  const scores: Partial<Record<Metric, number | null>> = {};
  for (const metric of metrics) {
    // Plain left-to-right sums, as Python's sum(), so totals match the official figures to the last digit.
    let total = 0;
    for (const r of scored) total += contribution(r, metric);
    scores[metric] = scored.length ? (total / scored.length) * 100 : null;
  }
  const techniques = summarizeTechniques(scored);
  return { group, count: scored.length, scores, outcomes, ...(techniques ? { techniques } : {}) };
}

/** The official per-difficulty table (simple / moderate / challenging / total), plus what was skipped. */
export function summarize(results: readonly QuestionResult[], metrics: readonly Metric[]): EvalSummary {
  const difficulties = [...new Set(results.map((r) => r.difficulty).filter(Boolean))].sort((a, b) => {
    const rank = (d: string) => (DIFFICULTY_ORDER.includes(d) ? DIFFICULTY_ORDER.indexOf(d) : DIFFICULTY_ORDER.length);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  const groups = difficulties.map((d) =>
    summarizeGroup(
      d,
      results.filter((r) => r.difficulty === d),
      metrics,
    ),
  );
  groups.push(summarizeGroup('total', [...results], metrics));
  const databases: Record<string, number> = {};
  for (const r of results) if (r.outcome === 'skipped') databases[r.db_id] = (databases[r.db_id] ?? 0) + 1;
  const robustness = robustnessSummary(results);
  return {
    groups,
    skipped: { count: Object.values(databases).reduce((a, b) => a + b, 0), databases },
    ...(robustness ? { robustness } : {}),
  };
}
