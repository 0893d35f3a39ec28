import * as path from 'path';
import Table from 'cli-table3';
import pc from 'picocolors';
import { loadPredictions } from '../core/bird/predictions';
import { readTextFile } from '../core/bird/jsonFile';
import { adviseIndexes } from '../core/plan/indexAdvice';
import { rerankCandidates } from '../core/plan/rerank';
import { compactNumber, planLines } from '../core/report/planText';
import { TABLE_STYLE } from '../core/report/terminal';
import { splitStatements } from '../core/sql/statements';
import { positiveInteger, timeoutMs, toolInfo, UsageError } from './common';
import { RerankBatchOptions, runRerankBatch } from './rerankBatchCommand';
import { databaseSchema, openDatabase, statementsFromArguments } from './explainCommand';

export async function runIndexes(
  sql: string | undefined,
  options: { db: string; file?: string; measure?: boolean; json?: boolean; timeout: string },
): Promise<number> {
  const limitMs = timeoutMs('--timeout', options.timeout);
  const statements = statementsFromArguments(sql, options.file);
  const db = await openDatabase(options.db);
  try {
    const schema = await databaseSchema(db);
    const advice = [];
    for (const statement of statements)
      advice.push(await adviseIndexes(db, statement, schema, { measure: options.measure, timeoutMs: limitMs }));
    if (options.json) {
      process.stdout.write(JSON.stringify({ tool: await toolInfo(), db: options.db, advice }, null, 2) + '\n');
      return 0;
    }
    const out: string[] = [];
    for (const item of advice) {
      if (statements.length > 1) out.push('', pc.bold('-- ') + item.sql.replace(/\s+/g, ' ').slice(0, 100));
      if (item.error) {
        out.push(pc.yellow(`no index advice: ${item.error}`));
        continue;
      }
      if (item.verdicts.length === 0)
        out.push(
          pc.dim('no index to propose: the columns it filters, joins or sorts on are indexed already (or it reads no table column)'),
        );
      for (const v of item.verdicts) {
        const mark = v.used ? pc.green('✓ planner uses it') : pc.dim('✗ planner ignores it');
        out.push(`${v.candidate.createSql};  ${pc.dim(`-- ${v.candidate.reason}`)}  ${mark}`);
        if (v.used && v.plan && item.baseline) {
          out.push(
            pc.dim(
              `    plan cost: rule ${item.baseline.cost.rule} → ${v.plan.cost.rule}, ~${compactNumber(item.baseline.cost.work)} → ~${compactNumber(v.plan.cost.work)} row visits`,
            ),
          );
        }
        if (v.measured) {
          const m = v.measured;
          out.push(
            `    measured: ${m.ratio.toFixed(2)}× as fast with it (95 % interval ${m.low.toFixed(2)}–${m.high.toFixed(2)}, ${m.runs} runs; ${m.goldMs.toFixed(3)} → ${m.predMs.toFixed(3)} ms)`,
          );
        }
      }
    }
    process.stdout.write(out.join('\n') + '\n');
    return 0;
  } finally {
    await db.close();
  }
}

/** Candidates from a .sql file (one per statement) or any prediction-file format (JSON list, lines). */
function readCandidates(file: string, dbFile: string): string[] {
  const candidates =
    path.extname(file).toLowerCase() === '.sql'
      ? splitStatements(readTextFile(file, 'candidate file')).map((s) => s.text)
      : loadPredictions(file, {
          what: 'candidate file',
          dbIds: new Set([path.basename(dbFile).replace(/\.(sqlite3?|db)$/i, '')]),
        }).predictions.map((p) => p.sql);
  if (candidates.length === 0) throw new UsageError(`--candidates: ${file} holds no candidate SQL`);
  return candidates;
}

export async function runRerank(
  options: {
    db?: string;
    candidates?: string;
    json?: boolean;
    timeout: string;
    maxRows: string;
    by?: string;
  } & Partial<RerankBatchOptions>,
): Promise<number> {
  // With a question file: K candidates for every question, one picked each, written as a prediction file.
  if (options.questions || options.dbRoot || options.predictions || options.out) {
    if (!options.questions || !options.dbRoot)
      throw new UsageError(
        'rerank: picking for a whole question file needs --questions and --db-root (or give --db and --candidates for one question)',
      );
    if (options.db) throw new UsageError('rerank: --db is for one question; with --questions the databases come from --db-root');
    return runRerankBatch({ ...options, questions: options.questions, dbRoot: options.dbRoot, by: options.by ?? 'estimate' });
  }
  if (!options.db || !options.candidates) {
    const missing = options.db ? "'--candidates <file>'" : "'--db <file>'";
    throw new UsageError(
      `rerank: required option ${missing} not specified (one question: give --db and --candidates; every question of a question file: --questions, --db-root and --candidates or --predictions)`,
    );
  }
  if (options.by !== undefined && options.by !== 'estimate' && options.by !== 'rule')
    throw new UsageError(`--by: expected estimate or rule, got ${JSON.stringify(options.by)}`);
  const limits = { timeoutMs: timeoutMs('--timeout', options.timeout), maxRows: positiveInteger('--max-rows', options.maxRows) };
  const candidates = readCandidates(options.candidates, options.db);
  const db = await openDatabase(options.db);
  try {
    const schema = await databaseSchema(db);
    const ranked = await rerankCandidates(db, candidates, schema, limits, options.by === 'rule' ? 'rule' : 'estimate');
    if (options.json) {
      process.stdout.write(JSON.stringify({ tool: await toolInfo(), db: options.db, ranked }, null, 2) + '\n');
      return 0;
    }
    const table = new Table({
      head: ['rank', '#', 'runs', 'rule', 'row visits', 'rows', 'SQL'],
      style: TABLE_STYLE,
      colAligns: ['right', 'right', 'left', 'right', 'right', 'right', 'left'],
    });
    ranked.forEach((c, rank) => {
      table.push([
        String(rank + 1),
        String(c.index),
        c.executable ? pc.green('yes') : pc.red('no'),
        c.executable ? String(c.plan.cost.rule) : '-',
        c.executable ? compactNumber(c.plan.cost.work) : '-',
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
