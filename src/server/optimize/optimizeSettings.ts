/**
 * The optimizer's bounds as the settings say (vesLens.optimize.*): read by "Find a faster equivalent"
 * (optimizeProvider.ts) and by the editor's gold audit when vesLens.optimize.inAudit is on (audit/goldAuditRun.ts).
 */
import { optimizeOptions, OptimizeRunSettings } from '../../app/optimizeRun';
import { OptimizeBounds } from '../../shared/protocol';
import { ServerContext } from '../context';
import { witnessFolder } from '../score/counterexampleAction';

export function optimizeBounds(context: ServerContext): OptimizeBounds {
  const s = context.settings;
  return {
    scale: s.optimizeScale,
    budgetSeconds: s.optimizeBudgetSeconds,
    timeoutSeconds: s.optimizeTimeoutSeconds,
    counterexampleSeconds: s.optimizeCounterexampleSeconds,
  };
}

/** The run's settings on `engine`: the bounds, the row limit, and the witness folder under the extension's storage. */
export function optimizeRunSettings(context: ServerContext, engine: string): OptimizeRunSettings {
  const bounds = optimizeBounds(context);
  return {
    engine,
    scale: bounds.scale,
    optimize: optimizeOptions({
      timeoutMs: bounds.timeoutSeconds * 1000,
      statementBudgetMs: bounds.budgetSeconds * 1000,
      counterexampleMs: bounds.counterexampleSeconds * 1000,
      maxRows: context.limits.maxRows,
      witnessDir: witnessFolder(context.storageDir),
    }),
  };
}
