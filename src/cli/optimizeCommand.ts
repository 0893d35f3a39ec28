import * as fs from 'fs';
import * as path from 'path';
import pc from 'picocolors';
import type { DatabaseSource } from '../core/db/source';
import { sqliteFileSource } from '../app/databaseSource';
import { sqlFileStatements } from '../app/sqlInput';
import { engineLine } from '../core/text/engineText';
import type { ChatModel } from '../core/llm/chatModel';
import { describeMeasurement, fmtMs } from '../core/text/speedText';
import type { StatementOptimization } from '../core/optimize/types';
import {
  birdFileStatements,
  optimizeChatModel,
  optimizeOptions,
  OptimizeRunResult,
  OptimizeStatementInput,
  runOptimize,
  statementKey,
} from '../app/optimizeRun';
import { RunRefused } from '../app/runRefused';
import { checkOutputFile, databaseSource, positiveInteger, timeoutMs, UsageError } from './common';
import { toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';
import { SqlCommandOptions, sqlFromArguments } from './explainCommand';

export interface OptimizeCommandOptions extends SqlCommandOptions, JsonDestination {
  dbRoot?: string;
  dbId?: string;
  questions?: string;
  predictions?: string;
  gold?: string;
  scale: string;
  schema?: string;
  timeout: string;
  budget: string;
  runBudget?: string;
  depth: string;
  candidates: string;
  counterexampleBudget: string;
  witnessDir?: string;
  maxRows: string;
  endpoint?: string;
  model?: string;
  apiKeyEnv?: string;
  rounds: string;
  rules?: string;
  resume?: boolean;
  progress: boolean;
}

/** The statements asked for: one (or a .sql file's) on --db / --db-root + --db-id, or every distinct gold or prediction of a BIRD file. */
function statementsAsked(
  sql: string | undefined,
  options: OptimizeCommandOptions,
): { inputs: OptimizeStatementInput[]; source: DatabaseSource } {
  if (options.questions) {
    if (sql || options.file) throw new UsageError('give the SQL (or --file), or --questions with --predictions or --gold, not both');
    if (!options.dbRoot && !options.dbUrl) throw new UsageError('--questions: give --db-root (the folder holding <db_id>/<db_id>.sqlite)');
    if (!!options.predictions === !!options.gold)
      throw new UsageError('--questions: give --predictions (the predictions) or --gold (the gold file), one of them');
    const inputs = birdFileStatements(options.questions, options.gold ? { gold: options.gold } : { predictions: options.predictions! });
    return { inputs, source: databaseSource({ ...options, dbRoot: options.dbRoot }) };
  }
  const { text } = sqlFromArguments(sql, options.file);
  const statements = sqlFileStatements(text, options.file);
  if (options.db && (options.dbRoot || options.dbId))
    throw new UsageError('--db: give --db FILE, or --db-root DIR with --db-id ID, not both');
  if (options.db) {
    const fromFile = /\.(sqlite|db|sqlite3)$/i.test(options.db);
    if (!fromFile && (options.engine ?? 'sqlite') === 'sqlite') throw new UsageError(`--db: ${options.db} is not a .sqlite file`);
    const dbId = path.basename(options.db).replace(/\.(sqlite|db|sqlite3)$/i, '');
    const root = path.dirname(path.dirname(path.resolve(options.db)));
    // On a server engine the file names the db_id (and, without --db-url, the folder its local copy loads).
    if ((options.engine ?? (options.dbUrl === undefined ? 'sqlite' : 'server')) !== 'sqlite')
      return {
        inputs: statements.map((s) => ({ sql: s, dbId })),
        source: databaseSource({ ...options, dbRoot: fromFile && options.dbUrl === undefined ? root : options.dbRoot }),
      };
    return { inputs: statements.map((s) => ({ sql: s, dbId })), source: sqliteFileSource(options.db) };
  }
  if (!options.dbId || (!options.dbRoot && !options.dbUrl))
    throw new UsageError(
      'give the database: --db FILE, or --db-root DIR with --db-id ID (or --engine postgres --db-url URL with --db-id ID)',
    );
  return { inputs: statements.map((s) => ({ sql: s, dbId: options.dbId! })), source: databaseSource(options) };
}

function chatModel(options: OptimizeCommandOptions): ChatModel | undefined {
  if (!options.endpoint && !options.model) return undefined;
  if (!options.endpoint || !options.model)
    throw new UsageError('--endpoint and --model go together (an OpenAI-compatible chat endpoint and its model)');
  const keyVariable = options.apiKeyEnv ?? (process.env.OPENAI_API_KEY ? 'OPENAI_API_KEY' : undefined);
  const apiKey = keyVariable ? process.env[keyVariable] : undefined;
  if (options.apiKeyEnv && !apiKey) throw new UsageError(`--api-key-env: ${options.apiKeyEnv} is not set`);
  return optimizeChatModel(options.endpoint, options.model, apiKey);
}

export async function runOptimizeCommand(sql: string | undefined, options: OptimizeCommandOptions): Promise<number> {
  const scale = positiveInteger('--scale', options.scale);
  const { inputs, source } = statementsAsked(sql, options);
  if (options.json)
    checkOutputFile('--json', options.json, [
      options.file,
      options.db,
      options.questions,
      options.predictions,
      options.gold,
      options.schema,
    ]);
  const model = chatModel(options);
  // Each finished statement goes to a checkpoint beside the --json file, so an interrupted or killed run resumes.
  const checkpoint = options.json ? `${options.json}.checkpoint.jsonl` : undefined;
  if (options.resume && !checkpoint) throw new UsageError('--resume: goes with --json FILE (the checkpoint is kept beside it)');
  const resumed = new Map<string, StatementOptimization>();
  if (checkpoint && options.resume && fs.existsSync(checkpoint)) {
    for (const line of fs.readFileSync(checkpoint, 'utf8').split('\n')) {
      try {
        const done = JSON.parse(line) as StatementOptimization;
        if (done.dbId !== undefined) resumed.set(statementKey({ dbId: done.dbId, sql: done.sql }), done);
      } catch {
        // a line cut short by a kill: that statement runs again
      }
    }
    process.stderr.write(`resuming: ${resumed.size} statement${resumed.size === 1 ? '' : 's'} taken from ${checkpoint}\n`);
  } else if (checkpoint && fs.existsSync(checkpoint)) fs.rmSync(checkpoint);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const err = process.stderr;
  const live = options.progress && err.isTTY;
  let result: OptimizeRunResult;
  try {
    result = await runOptimize(
      inputs,
      source,
      {
        engine: source.engine.name,
        scale,
        schemaFile: options.schema,
        runBudgetMs: options.runBudget === undefined ? undefined : timeoutMs('--run-budget', options.runBudget),
        optimize: optimizeOptions({
          timeoutMs: timeoutMs('--timeout', options.timeout),
          statementBudgetMs: timeoutMs('--budget', options.budget),
          maxRows: positiveInteger('--max-rows', options.maxRows),
          depth: positiveInteger('--depth', options.depth),
          maxCandidates: positiveInteger('--candidates', options.candidates),
          counterexampleMs: timeoutMs('--counterexample-budget', options.counterexampleBudget),
          witnessDir: options.witnessDir,
          model,
          modelRounds: positiveInteger('--rounds', options.rounds),
          ...ruleChoice(options.rules),
          onStep: live ? (step) => err.write(`\r\x1b[2K  ${pc.dim(step.slice(0, (err.columns ?? 100) - 4))}`) : undefined,
        }),
      },
      {
        signal: controller.signal,
        resumed,
        onResult: (statement) => {
          if (checkpoint && statement.status !== 'interrupted') fs.appendFileSync(checkpoint, JSON.stringify(statement) + '\n');
        },
        onStatement: (index, total, input) => {
          if (options.progress) err.write(`${live ? '\r\x1b[2K' : ''}${pc.dim(`statement ${index + 1} of ${total}${label(input)}`)}\n`);
        },
      },
    );
  } catch (error) {
    if (error instanceof RunRefused) throw new UsageError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (live) err.write('\r\x1b[2K');
  }
  const ranOn = await source.describe().catch(() => undefined);
  if (options.json || options.jsonStdout) {
    emitJson(
      options,
      {
        tool: await toolInfo(),
        engine: source.engine.name,
        engine_description: ranOn ?? null,
        scale,
        complete: result.skipped.length === 0 && !controller.signal.aborted,
        statements: result.statements,
        skipped: result.skipped.map((s) => ({ ...s.input, reason: s.reason })),
        totals: result.totals,
        scaled_copies: result.scaledCopies,
      },
      JSON_SHAPES.optimize,
    );
    const complete = result.skipped.length === 0 && !controller.signal.aborted;
    if (checkpoint && complete && fs.existsSync(checkpoint)) fs.rmSync(checkpoint);
    if (options.jsonStdout) return 0;
  }
  // On a server, say what ran the search: its speed-ups are that engine's.
  if (ranOn && ranOn.engine !== 'sqlite') process.stdout.write(pc.dim(engineLine(ranOn)) + '\n');
  process.stdout.write(renderRun(result, scale) + '\n');
  if (controller.signal.aborted) {
    process.stderr.write(`interrupted${checkpoint ? `: run again with --resume to go on from ${checkpoint}` : ''}\n`);
    return 130;
  }
  return 0;
}

/** --rules: a list of rule ids, or `none` (a chat model's candidates only). */
function ruleChoice(rules: string | undefined): { useRules?: boolean; onlyRules?: string[] } {
  if (rules === undefined) return {};
  if (rules.trim().toLowerCase() === 'none') return { useRules: false };
  const ids = rules
    .split(',')
    .map((id) => id.trim().toUpperCase())
    .filter(Boolean);
  const bad = ids.find((id) => !/^VL\d{3}$/.test(id));
  if (bad !== undefined || ids.length === 0)
    throw new UsageError(`--rules: expected rule ids such as VL020,VL021 (or none), got ${JSON.stringify(rules)}`);
  return { onlyRules: ids };
}

const label = (s: { questionId?: number | string; source?: string; dbId?: string }) =>
  s.questionId !== undefined
    ? ` (question ${s.questionId}, ${s.source ?? ''}${s.dbId ? `, ${s.dbId}` : ''})`
    : s.dbId
      ? ` (${s.dbId})`
      : '';

const REASON_WORDS: Record<string, string> = {
  'changes-rows': 'return other rows',
  counterexample: 'differ on a varied copy',
  'same-work': 'the same work',
  slower: 'slower',
  'not-faster': 'not measurably faster',
  fails: 'fail',
  refused: 'refused',
};

export function renderStatement(s: StatementOptimization, index: number): string {
  const lines: string[] = [];
  const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();
  lines.push(
    pc.bold(`statement ${index + 1}${label(s)}`) + pc.dim(`  ${oneLine(s.sql).slice(0, 100)}${oneLine(s.sql).length > 100 ? '…' : ''}`),
  );
  const original = s.original.cutOff ? `over ${fmtMs(s.original.ms)} (stopped)` : fmtMs(s.original.ms);
  if (s.status === 'refused' || s.status === 'original-fails') {
    lines.push(`  ${pc.yellow('not searched')}: ${s.notes.join('; ')}`);
    return lines.join('\n');
  }
  lines.push(
    `  original: ${original} at ×${s.original.scale}; ${s.tried} form${s.tried === 1 ? '' : 's'} tried in ${s.seconds.toFixed(1)} s`,
  );
  if (s.best) {
    const [main, ...others] = s.best.measurements;
    lines.push(`  ${pc.green('faster')}: ${describeMeasurement(main)}${others.map((m) => `; ${describeMeasurement(m)}`).join('')}`);
    lines.push(`  by: ${s.best.patterns.join(' + ')} (${s.best.notes.join('; ')})`);
    lines.push(
      `  ${s.best.verification.proof === 'proven' ? pc.green('proven') : s.best.verification.proof === 'by-rule' ? pc.cyan('by rule') : pc.yellow('tested, not proven')}: ${s.best.verification.summary}`,
    );
    lines.push(`  rewrite: ${pc.green(oneLine(s.best.sql))}`);
  } else {
    lines.push(`  ${pc.yellow('no faster equivalent found')}${s.status === 'interrupted' ? ' (interrupted)' : ''}`);
  }
  const counts = Object.entries(s.rejectedCounts).map(([reason, n]) => `${n} ${REASON_WORDS[reason] ?? reason}`);
  if (counts.length) lines.push(pc.dim(`  rejected: ${counts.join(', ')}`));
  for (const r of s.rejected.filter((r) => r.reason === 'counterexample' || r.reason === 'changes-rows').slice(0, 3))
    lines.push(pc.dim(`    ${r.patterns.join('+')}: ${r.detail}${r.witness ? ` (${r.witness})` : ''}`));
  for (const note of s.notes) lines.push(pc.dim(`  note: ${note}`));
  return lines.join('\n');
}

export function renderRun(result: OptimizeRunResult, scale: number): string {
  const lines = result.statements.map(renderStatement);
  for (const s of result.skipped) lines.push(pc.yellow(`skipped${label(s.input)}: ${s.reason}`));
  const t = result.totals;
  if (t.statements > 0) {
    const share = `${(t.savedShare * 100).toFixed(1)} %`;
    lines.push(
      pc.bold(
        `total at ×${scale}: ${t.lowerBound ? 'over ' : ''}${fmtMs(t.beforeMs)} → ${fmtMs(t.afterMs)} (${share} saved) over ${t.statements} statement${t.statements === 1 ? '' : 's'}, ${t.optimized} with a verified faster rewrite`,
      ) + (t.lowerBound ? pc.dim(' (originals stopped at the limit counted at the limit: the share saved is a lower bound)') : ''),
    );
  }
  return lines.join('\n\n');
}
