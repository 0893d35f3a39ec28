import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import { loadGold } from '../core/bird/gold';
import { loadPredictions } from '../core/bird/predictions';
import { InputProblem } from '../core/bird/problems';
import { loadQuestions } from '../core/bird/questions';
import { ReadOnlyDatabase } from '../core/db/database';
import { evaluateTasks } from '../core/eval/evaluate';
import { summarize } from '../core/eval/summary';
import { buildTasks } from '../core/eval/tasks';
import { Metric, METRICS, TimingMode } from '../core/eval/types';
import { evalReport } from '../core/report/json';
import { failureList, outcomeTable, problemList, scoreTable, skippedLine } from '../core/report/terminal';
import { TOOL_NAME, TOOL_VERSION, toolInfo, UsageError } from './common';

export interface EvalCommandOptions {
  questions: string;
  predictions: string;
  gold?: string;
  dbRoot: string;
  metrics: string;
  timing: string;
  timeout: string;
  maxRows: string;
  iterations?: string;
  json?: string;
  progress: boolean;
}

export function parseMetrics(text: string): Metric[] {
  const metrics = text.split(',').map((m) => m.trim().toLowerCase()).filter(Boolean);
  for (const m of metrics) {
    if (!METRICS.includes(m as Metric)) throw new UsageError(`--metrics: unknown metric "${m}" (choose from ${METRICS.join(', ')})`);
  }
  if (metrics.length === 0) throw new UsageError('--metrics: name at least one metric');
  return METRICS.filter((m) => metrics.includes(m));
}

function positiveNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${flag}: expected a positive number, got "${text}"`);
  return value;
}

export async function runEval(options: EvalCommandOptions): Promise<number> {
  const metrics = parseMetrics(options.metrics);
  if (options.timing !== 'fast' && options.timing !== 'official') throw new UsageError(`--timing: expected fast or official, got "${options.timing}"`);
  const timing = options.timing as TimingMode;
  const timeoutMs = positiveNumber('--timeout', options.timeout) * 1000;
  const maxRows = Math.floor(positiveNumber('--max-rows', options.maxRows));
  const officialIterations = options.iterations ? Math.floor(positiveNumber('--iterations', options.iterations)) : undefined;
  if (!fs.existsSync(options.dbRoot) || !fs.statSync(options.dbRoot).isDirectory()) {
    throw new UsageError(`--db-root: not a folder: ${options.dbRoot}`);
  }

  const questionFile = loadQuestions(options.questions);
  const predictionFile = loadPredictions(options.predictions);
  const goldFile = options.gold ? loadGold(options.gold) : undefined;
  const problems: InputProblem[] = [...questionFile.problems, ...predictionFile.problems, ...(goldFile?.problems ?? [])];
  const tasks = buildTasks(questionFile.questions, predictionFile, goldFile, problems);
  const sqlite = await ReadOnlyDatabase.sqliteVersion();

  const err = process.stderr;
  err.write(
    `${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · SQLite ${sqlite} · timing ${timing}\n` +
      `${tasks.length} questions from ${options.questions}; predictions from ${options.predictions} (${predictionFile.format}, paired by ${predictionFile.pairing})\n`,
  );
  const bar = options.progress && err.isTTY ? new SingleBar({ format: ' {bar} {value}/{total} questions · {eta_formatted} left · {last}', hideCursor: true, stream: err }) : undefined;
  bar?.start(tasks.length, 0, { last: '' });
  const results = await evaluateTasks(tasks, {
    dbRoot: options.dbRoot,
    metrics,
    timing,
    timeoutMs,
    maxRows,
    officialIterations,
    onResult: (result, done) => bar?.update(done, { last: `${result.question_id}: ${result.outcome}` }),
  });
  bar?.stop();

  const summary = summarize(results, metrics);
  const out = process.stdout;
  out.write(scoreTable(summary, metrics) + '\n');
  out.write(outcomeTable(summary) + '\n');
  for (const block of [skippedLine(summary), failureList(results), problemList(problems)]) {
    if (block) out.write(block + '\n');
  }
  if (options.json) {
    const report = evalReport(
      await toolInfo(),
      {
        questions: options.questions,
        predictions: options.predictions,
        prediction_format: predictionFile.format,
        pairing: predictionFile.pairing,
        gold: options.gold ?? null,
        db_root: options.dbRoot,
        metrics,
        timing,
        timeout_s: timeoutMs / 1000,
        max_rows: maxRows,
      },
      summary,
      problems,
      results,
    );
    fs.writeFileSync(options.json, JSON.stringify(report, null, 2) + '\n');
    err.write(`wrote ${options.json}\n`);
  }
  return 0;
}
