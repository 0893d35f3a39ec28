import * as path from 'path';
import Table from 'cli-table3';
import pc from 'picocolors';
import { loadPredictions } from '../core/bird/predictions';
import { readTextFile } from '../core/bird/jsonFile';
import { DatabaseSource, PostgresLayout, postgresServer } from '../core/db/source';
import { ExplainedPlan } from '../core/plan/explain';
import { adviseIndexes, IndexVerdict } from '../core/plan/indexAdvice';
import { counted } from '../core/text/numberText';
import { TimingResult } from '../core/timing/types';
import { describeSpeed } from '../core/timing/verdict';
import { rerankCandidates } from '../core/plan/rerank';
import { compactNumber, planLines, plannerCostText } from '../core/report/planText';
import { TABLE_STYLE } from '../core/text/tableStyle';
import { splitStatements } from '../core/sql/statements';
import { checkOutputFile, positiveInteger, timeoutMs, toolInfo, UsageError } from './common';
import { emitJson, JsonDestination } from './jsonOption';
import { RerankBatchOptions, runRerankBatch } from './rerankBatchCommand';
import {
  CommandDatabase,
  databaseSchema,
  engineHeader,
  openCommandDatabase,
  SqlCommandOptions,
  statementsFromArguments,
} from './explainCommand';

export interface IndexesCommandOptions extends SqlCommandOptions, JsonDestination {
  measure?: boolean;
  timeout: string;
  scratchUrl?: string;
}

/** The scratch copy index advice may write to on PostgreSQL (never the --db-url database itself), as a target for the command's db_id. */
function scratchTarget(options: IndexesCommandOptions, opened: CommandDatabase): string | undefined {
  if (options.scratchUrl === undefined) return undefined;
  if (opened.db.engine.name === 'sqlite')
    throw new UsageError(
      '--scratch-url: for PostgreSQL (--engine postgres); on SQLite every index is tried on a temporary copy of the file',
    );
  let scratch: DatabaseSource;
  try {
    scratch = postgresServer(options.scratchUrl, (options.dbLayout ?? 'one-database') as PostgresLayout);
  } catch (error) {
    throw new UsageError(`--scratch-url: ${(error as Error).message}`);
  }
  const target = scratch.targetFor(options.db ?? '');
  if (target === opened.db.path)
    throw new UsageError(
      '--scratch-url: that is the database at --db-url, which is never written; give a throwaway copy (ves-lens load --to <another database>)',
    );
  return target;
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

export async function runIndexes(sql: string | undefined, options: IndexesCommandOptions): Promise<number> {
  const limitMs = timeoutMs('--timeout', options.timeout);
  const statements = statementsFromArguments(sql, options.file);
  if (options.json) checkOutputFile('--json', options.json, [options.file, options.db]);
  const opened = await openCommandDatabase(options);
  const { db } = opened;
  try {
    const scratch = scratchTarget(options, opened);
    const schema = await databaseSchema(db);
    const advice = [];
    for (const statement of statements)
      advice.push(await adviseIndexes(db, statement, schema, { measure: options.measure, timeoutMs: limitMs, scratchTarget: scratch }));
    if (options.json || options.jsonStdout) {
      emitJson(options, { tool: await toolInfo(), engine: opened.engine, db: opened.label, advice });
      if (options.jsonStdout) return 0;
    }
    const out: string[] = db.engine.name === 'sqlite' ? [] : [pc.dim(engineHeader(opened))];
    for (const item of advice) {
      if (statements.length > 1) out.push('', pc.bold('-- ') + item.sql.replace(/\s+/g, ' ').slice(0, 100));
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
        out.push(
          pc.dim('no index to propose: the columns it filters, joins or sorts on are indexed already (or it reads no table column)'),
        );
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
      if (options.measure && item.verdicts.some((v) => v.used)) out.push(measuredSummary(item.verdicts));
    }
    process.stdout.write(out.join('\n') + '\n');
    return 0;
  } finally {
    await db.close();
  }
}

/** Candidates from a .sql file (one per statement) or any prediction-file format (JSON list, lines); `dbId` pairs official-format lines. */
function readCandidates(file: string, dbId: string): string[] {
  const candidates =
    path.extname(file).toLowerCase() === '.sql'
      ? splitStatements(readTextFile(file, 'candidate file')).map((s) => s.text)
      : loadPredictions(file, { what: 'candidate file', dbIds: new Set([dbId]) }).predictions.map((p) => p.sql);
  if (candidates.length === 0) throw new UsageError(`--candidates: ${file} holds no candidate SQL`);
  return candidates;
}

export async function runRerank(
  options: {
    candidates?: string;
    timeout: string;
    maxRows: string;
    by?: string;
  } & SqlCommandOptions &
    JsonDestination &
    Partial<RerankBatchOptions>,
): Promise<number> {
  const server = options.engine === 'postgres' || (options.engine === undefined && options.dbUrl !== undefined);
  // With a question file: K candidates for every question, one picked each, written as a prediction file.
  if (options.questions || options.dbRoot || options.predictions || options.out) {
    if (!options.questions || (!options.dbRoot && !server))
      throw new UsageError(
        'rerank: picking for a whole question file needs --questions and --db-root (or --engine postgres --db-url), or give --db and --candidates for one question',
      );
    if (options.db)
      throw new UsageError('rerank: --db is for one question; with --questions the databases come from --db-root (or the --db-url server)');
    return runRerankBatch({ ...options, questions: options.questions, by: options.by ?? 'estimate' });
  }
  if ((!options.db && !server) || !options.candidates) {
    const missing = options.db || server ? "'--candidates <file>'" : "'--db <file>'";
    throw new UsageError(
      `rerank: required option ${missing} not specified (one question: give --db and --candidates; every question of a question file: --questions, --db-root and --candidates or --predictions)`,
    );
  }
  if (options.by !== undefined && options.by !== 'estimate' && options.by !== 'rule')
    throw new UsageError(`--by: expected estimate or rule, got ${JSON.stringify(options.by)}`);
  const limits = { timeoutMs: timeoutMs('--timeout', options.timeout), maxRows: positiveInteger('--max-rows', options.maxRows) };
  const dbId = server ? (options.db ?? '') : path.basename(options.db ?? '').replace(/\.(sqlite3?|db)$/i, '');
  const candidates = readCandidates(options.candidates, dbId);
  if (options.json) checkOutputFile('--json', options.json, [options.candidates, options.db]);
  const opened = await openCommandDatabase(options);
  const { db } = opened;
  try {
    const schema = await databaseSchema(db);
    const ranked = await rerankCandidates(db, candidates, schema, limits, options.by === 'rule' ? 'rule' : 'estimate');
    if (options.json || options.jsonStdout) {
      emitJson(options, { tool: await toolInfo(), engine: opened.engine, db: opened.label, ranked });
      if (options.jsonStdout) return 0;
    }
    // A planner's plans are ranked by its own cost (rerankCandidates' estimate): the column says so.
    const planned = ranked.some((c) => c.plan.cost.totalCost !== undefined);
    if (planned) process.stdout.write(pc.dim(engineHeader(opened)) + '\n');
    const table = new Table({
      head: ['rank', '#', 'runs', 'rule', planned ? 'planner cost' : 'row visits', 'rows', 'SQL'],
      style: TABLE_STYLE,
      colAligns: ['right', 'right', 'left', 'right', 'right', 'right', 'left'],
    });
    ranked.forEach((c, rank) => {
      table.push([
        String(rank + 1),
        String(c.index),
        c.executable ? pc.green('yes') : pc.red('no'),
        c.executable ? String(c.plan.cost.rule) : '-',
        c.executable ? (planned ? plannerCostText(c.plan.cost.work) : compactNumber(c.plan.cost.work)) : '-',
        c.rows === undefined ? '-' : String(c.rows),
        (c.executable ? c.sql : `${c.sql}\n${pc.red(c.error ?? '')}`).replace(/\s+/g, ' ').slice(0, 90),
      ]);
    });
    process.stdout.write(table.toString() + '\n');
    const best = ranked[0];
    if (best?.executable)
      process.stdout.write(`\n${pc.bold('cheapest executable candidate')} (#${best.index}):\n${planLines(best.plan).join('\n')}\n`);
    return 0;
  } finally {
    await db.close();
  }
}
