/**
 * The gold audit's optimizer step (`audit --optimize`, issue 28), a use case of its own so that any face running
 * an audit can add it after auditGold: every gold that ran is searched once (the same SQL on the same database
 * once: distinctStatements) by runOptimize, and each entry gets its statement's verdict (core/audit/auditOptimize.ts
 * keeps the verified rewrite, re-ranks the audit, sums up the time that could be saved).
 */
import { attachOptimizations } from '../core/audit/auditOptimize';
import type { GoldAudit, GoldAuditEntry } from '../core/audit/goldAudit';
import { DatabaseSource } from '../core/db/source';
import { formKey } from '../core/optimize/candidates';
import { StatementOptimization } from '../core/optimize/types';
import {
  distinctStatements,
  OptimizeRunHooks,
  OptimizeRunResult,
  OptimizeRunSettings,
  OptimizeStatementInput,
  runOptimize,
} from './optimizeRun';

const statementKey = (dbId: string, sql: string) => `${dbId}\u0000${formKey(sql)}`;

/** Searches every gold of `audit` that ran for a faster verified equivalent, and puts the verdicts on the audit. */
export async function optimizeAuditedGold(
  audit: GoldAudit,
  source: DatabaseSource,
  settings: OptimizeRunSettings,
  hooks: OptimizeRunHooks = {},
): Promise<OptimizeRunResult> {
  const ran = audit.entries.filter((e) => e.status === 'ok' && e.gold_sql.trim());
  const inputs: OptimizeStatementInput[] = distinctStatements(
    ran.map((e) => ({ sql: e.gold_sql, dbId: e.db_id, questionId: e.question_id, source: 'gold' })),
  );
  const run = await runOptimize(inputs, source, settings, hooks);
  const byStatement = new Map<string, StatementOptimization>(run.statements.map((s) => [statementKey(s.dbId ?? '', s.sql), s]));
  const byEntry = new Map<GoldAuditEntry, StatementOptimization>();
  for (const entry of ran) {
    const statement = byStatement.get(statementKey(entry.db_id, entry.gold_sql));
    if (statement) byEntry.set(entry, statement);
  }
  attachOptimizations(audit, byEntry, {
    scale: settings.scale,
    searched: run.totals.statements,
    optimized: run.totals.optimized,
    before_ms: run.totals.beforeMs,
    after_ms: run.totals.afterMs,
    saved_share: run.totals.savedShare,
    lower_bound: run.totals.lowerBound,
    skipped: run.skipped.map((s) => ({ question_id: s.input.questionId ?? '', reason: s.reason })),
  });
  return run;
}
