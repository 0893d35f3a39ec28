/**
 * `audit --optimize [--scale N] [--optimize-budget S]`: after the audit, every gold that ran is searched for a
 * faster verified equivalent (app/auditOptimize.ts) and the gold are ranked by the time it saves. Its options and
 * its progress lines live here, apart from the rest of the audit command.
 */
import { Command } from 'commander';
import pc from 'picocolors';
import { optimizeOptions, OptimizeRunSettings, OptimizeStatementInput } from '../app/optimizeRun';
import { positiveInteger, timeoutMs, UsageError } from './common';

export interface AuditOptimizeOptions {
  optimize?: boolean;
  /** The scale --optimize decides at (1: the database itself). */
  scale?: string;
  optimizeBudget?: string;
  schema?: string;
  timeout: string;
  maxRows: string;
  progress: boolean;
}

/** Adds --optimize, --scale and --optimize-budget to `audit`. */
export function addAuditOptimizeOptions(command: Command): Command {
  return command
    .option(
      '--optimize',
      'search each gold for a faster equivalent (rewrite rules, each kept only with the same rows, no varied copy telling them apart, and measured faster) and rank the gold by the time it saves',
    )
    .option('--scale <n>', 'with --optimize: decide on a copy of each database with n times the rows (cached; SQLite)', '1')
    .option('--optimize-budget <seconds>', 'with --optimize: the search of one gold', '60');
}

/** Checks the step's options before any work (a wrong --scale stops at once, not after the audit). */
export function checkAuditOptimizeOptions(options: AuditOptimizeOptions): void {
  if (!options.optimize) {
    if (options.scale !== undefined && options.scale !== '1')
      throw new UsageError('--scale: goes with --optimize (the scale it decides at)');
    return;
  }
  positiveInteger('--scale', options.scale ?? '1');
  timeoutMs('--optimize-budget', options.optimizeBudget ?? '60');
}

/** The step's settings (undefined without --optimize); the step runs in the audit use case (app/auditRun.ts). */
export function auditOptimizeSettings(options: AuditOptimizeOptions, engine: string): OptimizeRunSettings | undefined {
  if (!options.optimize) return undefined;
  return {
    engine,
    scale: positiveInteger('--scale', options.scale ?? '1'),
    schemaFile: options.schema,
    optimize: optimizeOptions({
      timeoutMs: timeoutMs('--timeout', options.timeout),
      statementBudgetMs: timeoutMs('--optimize-budget', options.optimizeBudget ?? '60'),
      maxRows: positiveInteger('--max-rows', options.maxRows),
    }),
  };
}

/** The step's progress on standard error: what it searches, then each gold with --progress. */
export function auditOptimizeProgress(options: AuditOptimizeOptions, settings: OptimizeRunSettings) {
  const err = process.stderr;
  return {
    onOptimizing: (gold: number) =>
      err.write(`searching ${gold} gold SQL for a faster verified equivalent, decided at ×${settings.scale}\n`),
    optimize: {
      onStatement: (index: number, total: number, input: OptimizeStatementInput) => {
        if (options.progress) err.write(pc.dim(`  gold ${index + 1} of ${total} (question ${input.questionId}, ${input.dbId})\n`));
      },
    },
  };
}
