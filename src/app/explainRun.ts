/**
 * The explain use case (`ves-lens explain`, cli/explainCommand.ts): the engine's plan of each statement as a typed
 * tree with both costs, measured step by step with `analyze` where the engine can (PostgreSQL's EXPLAIN ANALYZE,
 * one time limit per query), and with a second query (`vs`, the gold) what differs between the two plans.
 * `prepareExplainRun` refuses what the engine cannot do before any work; `runExplainRun` returns the plans;
 * `explainRunLines` draws them for the terminal.
 */
import pc from 'picocolors';
import type { DatabaseConnection } from '../core/db/engine';
import { comparePlans, PlanDifference } from '../core/plan/comparePlans';
import { ExplainedPlan, explainQuery } from '../core/plan/explain';
import { differenceLines, planLines, sideBySide } from '../core/report/planText';
import type { SchemaInfo } from '../core/sql/catalog';
import { RunRefused } from './runRefused';

export interface ExplainRunSettings {
  statements: readonly string[];
  /** A query whose plan the first statement's is compared with (the gold). */
  vs?: string;
  /** Run each query and measure every step, within this time limit each (ms). */
  analyzeMs?: number;
}

export interface ExplainRunResult {
  /** Each statement's plan, in order; one that cannot be planned carries its error. */
  plans: ExplainedPlan[];
  gold?: ExplainedPlan;
  /** What differs between the gold's plan and the first statement's, with `vs`. */
  differences?: PlanDifference[];
}

/** Refuses a measured plan (`analyzeMs`) on an engine that cannot measure one (RunRefused naming --analyze). */
export function prepareExplainRun(db: DatabaseConnection, settings: ExplainRunSettings): void {
  if (settings.analyzeMs !== undefined && !db.explainAnalyze)
    throw new RunRefused(
      '--analyze',
      'runs the query and measures every plan step (EXPLAIN ANALYZE), which PostgreSQL does and SQLite does not; use --engine postgres --db-url ...',
    );
}

/** The plans (and, with `vs`, the gold's and what differs); each statement is planned in turn. */
export async function runExplainRun(
  database: { db: DatabaseConnection; schema: SchemaInfo },
  settings: ExplainRunSettings,
): Promise<ExplainRunResult> {
  const { db, schema } = database;
  const limitMs = settings.analyzeMs;
  // With analyze each query runs, one time limit each (the server's statement_timeout, a cancel request behind it).
  const explain = (statement: string) =>
    explainQuery(
      db,
      statement,
      schema,
      limitMs === undefined ? {} : { analyze: { deadline: performance.now() + limitMs, budgetMs: limitMs } },
    );
  const plans = [];
  for (const statement of settings.statements) plans.push(await explain(statement));
  const gold = settings.vs ? await explain(settings.vs) : undefined;
  return { plans, gold, differences: gold ? comparePlans(gold, plans[0]) : undefined };
}

/** The plans as the terminal shows them: the gold's and the prediction's side by side and what differs, or each plan in turn. */
export function explainRunLines(result: ExplainRunResult): string[] {
  const { plans, gold, differences } = result;
  if (gold)
    return [
      ...sideBySide(planLines(gold), planLines(plans[0]), 'gold', 'prediction'),
      '',
      pc.bold('what differs'),
      ...differenceLines(differences ?? []),
    ];
  return plans.flatMap((plan, i) => [
    ...(plans.length > 1 ? ['', pc.bold(`-- statement ${i + 1}: `) + plan.sql.replace(/\s+/g, ' ').slice(0, 100)] : []),
    ...planLines(plan),
  ]);
}
