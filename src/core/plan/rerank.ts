import { DatabaseConnection } from '../db/engine';
import { readQuery } from '../db/readQuery';
import { SchemaInfo } from '../db/schema';
import { ExplainedPlan, explainQuery } from './explain';

export interface RankedCandidate {
  /** Position in the candidate list. */
  index: number;
  sql: string;
  executable: boolean;
  /** Why it is not executable: SQLite's message, a refusal or a timeout. */
  error?: string;
  plan: ExplainedPlan;
  /** Rows it returned, when it ran. */
  rows?: number;
}

/** Which cost orders candidates: the row-aware estimate (then the rule cost), or the rule cost alone (the seed's weights). */
export type RerankBy = 'estimate' | 'rule';

/**
 * Cost-aware re-ranking: candidates that compile and run come first, cheapest estimated plan first (row
 * visits, then the rule cost; with `by: 'rule'`, the rule cost alone: SCAN +100, temp B-tree +50, SEARCH 0),
 * ties kept in their original order.
 */
export async function rerankCandidates(
  db: DatabaseConnection,
  candidates: readonly string[],
  schema: SchemaInfo,
  limits: { timeoutMs: number; maxRows: number },
  by: RerankBy = 'estimate',
): Promise<RankedCandidate[]> {
  const ranked: RankedCandidate[] = [];
  for (const [index, sql] of candidates.entries()) {
    const plan = await explainQuery(db, sql, schema);
    if (plan.error) {
      ranked.push({ index, sql, executable: false, error: plan.error, plan });
      continue;
    }
    const run = await readQuery(db, sql, {
      deadline: performance.now() + limits.timeoutMs,
      budgetMs: limits.timeoutMs,
      maxRows: limits.maxRows,
    });
    ranked.push(
      run.status === 'ok'
        ? { index, sql, executable: true, plan, rows: run.rows.length }
        : { index, sql, executable: false, error: run.message, plan },
    );
  }
  return ranked.sort(
    (a, b) =>
      Number(b.executable) - Number(a.executable) ||
      (by === 'rule' ? a.plan.cost.rule - b.plan.cost.rule : a.plan.cost.work - b.plan.cost.work || a.plan.cost.rule - b.plan.cost.rule) ||
      a.index - b.index,
  );
}
