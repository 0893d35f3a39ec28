/**
 * `audit --optimize [--scale N] [--optimize-budget S]`: after the audit, every gold that ran is searched for a
 * faster verified equivalent (app/auditOptimize.ts) and the gold are ranked by the time it saves. Its options and
 * its step live here, apart from the rest of the audit command.
 */
import { Command } from 'commander';
import pc from 'picocolors';
import { optimizeAuditedGold } from '../app/auditOptimize';
import { RunRefused } from '../app/runRefused';
import type { GoldAudit } from '../core/audit/goldAudit';
import { DatabaseSource } from '../core/db/source';
import { DEFAULT_OPTIMIZE_OPTIONS, defaultWitnessDir } from '../core/optimize/optimizeStatement';
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

/** The step: each gold searched, the verdicts put on `audit`; progress on standard error. */
export async function runAuditOptimizeStep(
  audit: GoldAudit,
  source: DatabaseSource,
  options: AuditOptimizeOptions,
  signal: AbortSignal,
): Promise<void> {
  const err = process.stderr;
  const scale = positiveInteger('--scale', options.scale ?? '1');
  const gold = audit.entries.filter((e) => e.status === 'ok').length;
  err.write(`searching ${gold} gold SQL for a faster verified equivalent, decided at ×${scale}\n`);
  try {
    await optimizeAuditedGold(
      audit,
      source,
      {
        engine: source.engine.name,
        scale,
        schemaFile: options.schema,
        optimize: {
          ...DEFAULT_OPTIMIZE_OPTIONS,
          timeoutMs: timeoutMs('--timeout', options.timeout),
          statementBudgetMs: timeoutMs('--optimize-budget', options.optimizeBudget ?? '60'),
          maxRows: positiveInteger('--max-rows', options.maxRows),
          witnessDir: defaultWitnessDir(),
        },
      },
      {
        signal,
        onStatement: (index, total, input) => {
          if (options.progress) err.write(pc.dim(`  gold ${index + 1} of ${total} (question ${input.questionId}, ${input.dbId})\n`));
        },
      },
    );
  } catch (error) {
    if (error instanceof RunRefused) throw new UsageError(error.message);
    throw error;
  }
}
