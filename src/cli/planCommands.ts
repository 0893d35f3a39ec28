import * as path from 'path';
import pc from 'picocolors';
import { indexAdviceLines, prepareIndexesRun, runIndexesRun } from '../app/indexesRun';
import { queryDatabaseLine, querySchema } from '../app/queryDatabase';
import { rankCandidates, rankedLines, readCandidateFile } from '../app/rerankRun';
import { checkOutputFile, positiveInteger, timeoutMs, UsageError } from './common';
import { toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';
import { RerankBatchOptions, runRerankBatch } from './rerankBatchCommand';
import { openCommandDatabase, SqlCommandOptions, statementsFromArguments } from './explainCommand';

export interface IndexesCommandOptions extends SqlCommandOptions, JsonDestination {
  measure?: boolean;
  timeout: string;
  scratchUrl?: string;
}

export async function runIndexes(sql: string | undefined, options: IndexesCommandOptions): Promise<number> {
  const limitMs = timeoutMs('--timeout', options.timeout);
  const statements = statementsFromArguments(sql, options.file);
  if (options.json) checkOutputFile('--json', options.json, [options.file, options.db]);
  const opened = await openCommandDatabase(options);
  const { db } = opened;
  try {
    const run = prepareIndexesRun(db, {
      measure: options.measure,
      timeoutMs: limitMs,
      scratch:
        options.scratchUrl === undefined
          ? undefined
          : { url: options.scratchUrl, layout: options.dbLayout ?? 'one-database', dbId: options.db ?? '' },
    });
    const advice = await runIndexesRun({ db, schema: await querySchema(db) }, statements, run);
    if (options.json || options.jsonStdout) {
      emitJson(options, { tool: await toolInfo(), engine: opened.engine, db: opened.label, advice });
      if (options.jsonStdout) return 0;
    }
    const out: string[] = db.engine.name === 'sqlite' ? [] : [pc.dim(queryDatabaseLine(opened))];
    out.push(...indexAdviceLines(advice, options.measure));
    process.stdout.write(out.join('\n') + '\n');
    return 0;
  } finally {
    await db.close();
  }
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
  const candidates = readCandidateFile(options.candidates, dbId);
  if (options.json) checkOutputFile('--json', options.json, [options.candidates, options.db]);
  const opened = await openCommandDatabase(options);
  const { db } = opened;
  try {
    const ranked = await rankCandidates({ db, schema: await querySchema(db) }, candidates, {
      limits,
      by: options.by === 'rule' ? 'rule' : 'estimate',
    });
    if (options.json || options.jsonStdout) {
      emitJson(options, { tool: await toolInfo(), engine: opened.engine, db: opened.label, ranked });
      if (options.jsonStdout) return 0;
    }
    // A planner's plans are ranked by its own cost: the line above the table says which engine planned them.
    if (ranked.some((c) => c.plan.cost.totalCost !== undefined)) process.stdout.write(pc.dim(queryDatabaseLine(opened)) + '\n');
    process.stdout.write(rankedLines(ranked).join('\n') + '\n');
    return 0;
  } finally {
    await db.close();
  }
}
