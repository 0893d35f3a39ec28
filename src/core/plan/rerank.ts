import { ReadOnlyDatabase } from '../db/database';
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

/**
 * Cost-aware re-ranking: candidates that compile and run come first, cheapest estimated plan first (row
 * visits, then the rule cost), ties kept in their original order.
 */
export async function rerankCandidates(
  db: ReadOnlyDatabase,
  candidates: readonly string[],
  schema: SchemaInfo,
  limits: { timeoutMs: number; maxRows: number },
): Promise<RankedCandidate[]> {
  const ranked: RankedCandidate[] = [];
  for (const [index, sql] of candidates.entries()) {
    const plan = await explainQuery(db, sql, schema);
    if (plan.error) {
      ranked.push({ index, sql, executable: false, error: plan.error, plan });
      continue;
    }
    const run = await readQuery(db, sql, { deadline: performance.now() + limits.timeoutMs, budgetMs: limits.timeoutMs, maxRows: limits.maxRows });
    ranked.push(run.status === 'ok' ? { index, sql, executable: true, plan, rows: run.rows.length } : { index, sql, executable: false, error: run.message, plan });
  }
  return ranked.sort(
    (a, b) =>
      Number(b.executable) - Number(a.executable) || a.plan.cost.work - b.plan.cost.work || a.plan.cost.rule - b.plan.cost.rule || a.index - b.index,
  );
}
