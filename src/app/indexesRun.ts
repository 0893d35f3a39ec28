/**
 * The index advice use case (`ves-lens indexes`, cli/planCommands.ts): for each statement the indexes that would
 * serve its filters, joins and sorts, each tried on a copy (SQLite: a temporary copy of the file; PostgreSQL: a
 * throwaway database, `scratch`) to see whether the planner uses it, and with `measure` timed with and without it:
 * the measurement decides whether it is recommended. `prepareIndexesRun` checks the scratch database before any
 * work, `runIndexesRun` returns the typed advice, `indexAdviceLines` draws it for the terminal.
 */
import pc from 'picocolors';
import type { DatabaseConnection } from '../core/db/engine';
import { DatabaseSource, PostgresLayout, postgresServer } from '../core/db/source';
import type { ExplainedPlan } from '../core/plan/explain';
import { adviseIndexes, IndexAdvice, IndexVerdict } from '../core/plan/indexAdvice';
import { compactNumber, plannerCostText } from '../core/report/planText';
import type { SchemaInfo } from '../core/sql/catalog';
import { counted } from '../core/text/numberText';
import type { TimingResult } from '../core/timing/types';
import { describeSpeed } from '../core/timing/verdict';
import { RunRefused } from './runRefused';

export interface IndexesRunSettings {
  /** Time the query with and without each index the planner uses (the measurement decides). */
  measure?: boolean;
  /** The time limit of each measured run (ms). */
  timeoutMs: number;
  /** PostgreSQL: the server (URL, layout) holding a throwaway copy of the db_id's database, where indexes are tried. */
  scratch?: { url: string; layout: string; dbId: string };
}

export interface PreparedIndexesRun extends IndexesRunSettings {
  /** Where the indexes are tried on PostgreSQL (never the database itself). */
  scratchTarget?: string;
}

/** Checks the scratch database against the engine and the database itself (RunRefused naming --scratch-url). */
export function prepareIndexesRun(db: DatabaseConnection, settings: IndexesRunSettings): PreparedIndexesRun {
  if (!settings.scratch) return settings;
  if (db.engine.name === 'sqlite')
    throw new RunRefused(
      '--scratch-url',
      'for PostgreSQL (--engine postgres); on SQLite every index is tried on a temporary copy of the file',
    );
  let server: DatabaseSource;
  try {
    server = postgresServer(settings.scratch.url, settings.scratch.layout as PostgresLayout);
  } catch (error) {
    throw new RunRefused('--scratch-url', (error as Error).message);
  }
  const scratchTarget = server.targetFor(settings.scratch.dbId);
  if (scratchTarget === db.path)
    throw new RunRefused(
      '--scratch-url',
      'that is the database at --db-url, which is never written; give a throwaway copy (ves-lens load --to <another database>)',
    );
  return { ...settings, scratchTarget };
}

/** The advice for each statement, in order. */
export async function runIndexesRun(
  database: { db: DatabaseConnection; schema: SchemaInfo },
  statements: readonly string[],
  run: PreparedIndexesRun,
): Promise<IndexAdvice[]> {
  const advice = [];
  for (const statement of statements)
    advice.push(
      await adviseIndexes(database.db, statement, database.schema, {
        measure: run.measure,
        timeoutMs: run.timeoutMs,
        scratchTarget: run.scratchTarget,
      }),
    );
  return advice;
}

/**
 * What an index changes in the plan's cost: rule cost and row visits (SQLite), or the planner's cost (PostgreSQL).
 * An estimate that points against the measurement beside it is said to disagree, without an arrow.
 */
function costChange(before: ExplainedPlan, after: ExplainedPlan, disagrees = false): string {
  const planner = before.cost.totalCost !== undefined && after.cost.totalCost !== undefined;
  const [what, from, to] = planner
    ? ['planner cost', plannerCostText(before.cost.totalCost!), plannerCostText(after.cost.totalCost!)]
    : ['row visits', `~${compactNumber(before.cost.work)}`, `~${compactNumber(after.cost.work)}`];
  if (disagrees)
    return `rule ${before.cost.rule} → ${after.cost.rule}; the ${what} estimate (${from} without, ${to} with it) disagrees with the measurement, which decides`;
  return planner
    ? `${what} ${from} → ${to}, rule cost ${before.cost.rule} → ${after.cost.rule}`
    : `rule ${before.cost.rule} → ${after.cost.rule}, ${from} → ${to} ${what}`;
}

const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);

/** "over 60 s with it, 0.5 s without", for an index measured against the time limit. */
function pastLimitText(past: NonNullable<IndexVerdict['pastLimit']>): string {
  const side = (ms: number | null) => (ms === null ? `over ${seconds(past.limitMs)}` : seconds(ms));
  return `${side(past.withMs)} with it, ${side(past.withoutMs)} without`;
}

/** An index's verdict: the planner's use, and with --measure what the measurement says (it decides). */
function indexMark(v: IndexVerdict): string {
  if (!v.used) return pc.dim('✗ planner ignores it');
  if (v.pastLimit) {
    const text = pastLimitText(v.pastLimit);
    if (v.speed === 'slower') return pc.red(`✗ planner uses it, but measured slower (${text}): not recommended`);
    if (v.speed === 'faster') return pc.green(`✓ planner uses it, measured faster (${text}): recommended`);
    const both = v.pastLimit.withMs === null && v.pastLimit.withoutMs === null;
    return pc.yellow(
      `– planner uses it, ${both ? `past the ${seconds(v.pastLimit.limitMs)} limit with and without it` : `no verdict: a run went past the ${seconds(v.pastLimit.limitMs)} limit once, then ${text}`}: not recommended`,
    );
  }
  if (v.speed === 'faster') return pc.green('✓ planner uses it, measured faster: recommended');
  if (v.speed === 'no-difference') return pc.yellow('– planner uses it, no measurable change: not recommended');
  if (v.speed === 'slower') return pc.red('✗ planner uses it, but measured slower: not recommended');
  if (v.unmeasured) return pc.yellow('? planner uses it, not measured');
  return pc.green('✓ planner uses it');
}

const msChange = (m: TimingResult) => `${m.goldMs.toFixed(3)} → ${m.predMs.toFixed(3)} ms per run`;

/** One line after a measured statement's indexes: which (if any) the measurement recommends. */
function measuredSummary(verdicts: readonly IndexVerdict[]): string {
  const recommended = verdicts.filter((v) => v.recommended).map((v) => v.candidate.name);
  const measured = verdicts.filter((v) => v.measured || v.pastLimit).length;
  if (recommended.length === 0)
    return pc.yellow(`no index recommended: ${counted(measured, 'index', 'indexes')} measured, none made the query measurably faster`);
  return pc.green(`recommended (measured faster): ${recommended.join(', ')}`);
}

/** The advice as the terminal shows it: each statement's candidate indexes with their verdicts (`measure`: a summary line each). */
export function indexAdviceLines(advice: readonly IndexAdvice[], measure?: boolean): string[] {
  const out: string[] = [];
  for (const item of advice) {
    if (advice.length > 1) out.push('', pc.bold('-- ') + item.sql.replace(/\s+/g, ' ').slice(0, 100));
    if (item.error) {
      out.push(pc.yellow(`no index advice: ${item.error}`));
      continue;
    }
    if (item.unchecked) {
      out.push(pc.yellow(item.unchecked.reason));
      for (const candidate of item.unchecked.candidates)
        out.push(`${candidate.createSql};  ${pc.dim(`-- ${candidate.reason}`)}  ${pc.dim('? not checked')}`);
      if (item.unchecked.candidates.length === 0)
        out.push(pc.dim('no index to propose: the columns it filters, joins or sorts on are indexed already'));
      continue;
    }
    if (item.method) out.push(pc.dim(item.method));
    if (item.verdicts.length === 0)
      out.push(pc.dim('no index to propose: the columns it filters, joins or sorts on are indexed already (or it reads no table column)'));
    for (const v of item.verdicts) {
      out.push(`${v.candidate.createSql};  ${pc.dim(`-- ${v.candidate.reason}`)}  ${indexMark(v)}`);
      if (v.used && v.plan && item.baseline) out.push(pc.dim(`    plan cost: ${costChange(item.baseline, v.plan, v.estimateDisagrees)}`));
      if (v.measured) out.push(`    measured: ${describeSpeed(v.measured, 'the query with it')}; ${msChange(v.measured)}`);
      if (v.pastLimit)
        out.push(
          `    measured: a run went past the ${seconds(v.pastLimit.limitMs)} limit (--timeout); one run of each within it: ${pastLimitText(v.pastLimit)}`,
        );
      if (v.unmeasured) out.push(pc.yellow(`    not measured: ${v.unmeasured}`));
    }
    if (measure && item.verdicts.some((v) => v.used)) out.push(measuredSummary(item.verdicts));
  }
  return out;
}
