import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import type { RerankBy } from '../core/plan/rerank';
import type { CorrelationSummary } from '../core/plan/rerankBatch';
import { formatProblem, orderProblems } from '../core/text/problemText';
import { prepareRerankRun, runRerankRun } from '../app/rerankRun';
import { checkOutputFile, databaseSource, EngineCliOptions, positiveInteger, timeoutMs, UsageError } from './common';
import { writeOutputFile } from '../app/runOutputs';
import { toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';

export interface RerankBatchOptions extends EngineCliOptions, JsonDestination {
  questions: string;
  candidates?: string;
  predictions?: string[];
  by: string;
  out?: string;
  measure?: boolean;
  timeout: string;
  maxRows: string;
  progress?: boolean;
}

const formatRho = (r: number | null) => (r === null ? '-' : r.toFixed(3));

function correlationLine(name: string, c: CorrelationSummary): string {
  return `${name}: mean ρ per question ${formatRho(c.mean_per_question)} (${c.questions} questions with 3+ distinct runnable candidates), pooled ρ ${formatRho(c.pooled)} (${c.statements} statements)`;
}

/**
 * `ves-lens rerank --questions q.json --db-root dir (--candidates list.json | --predictions a.json b.json ...)
 * --out picked.json`: picks one of K candidates per question by plan cost and writes a prediction file that
 * `eval` scores; `compare` then sets it against the first candidates (greedy decoding).
 */
export async function runRerankBatch(options: RerankBatchOptions): Promise<number> {
  if (options.by !== 'estimate' && options.by !== 'rule')
    throw new UsageError(`--by: expected estimate or rule, got ${JSON.stringify(options.by)}`);
  const by = options.by as RerankBy;
  const limits = { timeoutMs: timeoutMs('--timeout', options.timeout), maxRows: positiveInteger('--max-rows', options.maxRows) };
  const predictions = options.predictions ?? [];
  if (!options.candidates && predictions.length === 0)
    throw new UsageError('rerank --questions: give the candidates with --candidates <list.json> or --predictions <file> <file> ...');
  if (options.candidates && predictions.length) throw new UsageError('rerank: give --candidates or --predictions, not both');
  if (!options.out && !options.json && !options.jsonStdout)
    throw new UsageError(
      'rerank --questions: say where to write the picked predictions with --out <file> (or the report with --json [file])',
    );
  const source = databaseSource(options);
  if (source.engine.name === 'sqlite' && (!fs.existsSync(options.dbRoot!) || !fs.statSync(options.dbRoot!).isDirectory()))
    throw new UsageError(`--db-root: not a folder: ${options.dbRoot}`);
  const inputs = [options.questions, options.candidates, ...predictions];
  // Like every output: never over an input, never inside a database folder (core/io/outputPaths.ts).
  const databaseFolders = [{ label: '--db-root', folder: options.dbRoot }];
  if (options.out) checkOutputFile('--out', options.out, inputs, databaseFolders);
  if (options.json) checkOutputFile('--json', options.json, [...inputs, options.out], databaseFolders);

  const run = await prepareRerankRun({ questions: options.questions, candidates: options.candidates, predictions }, source);
  const { sets, k, problems, engine } = run;
  const err = process.stderr;
  const estimate = source.engine.name === 'sqlite' ? 'row-aware estimate' : "the planner's cost";
  err.write(
    `rerank: ${sets.length} questions, up to ${k} candidates each, by ${by === 'rule' ? 'rule cost (SCAN +100, temp B-tree +50, SEARCH 0)' : `${estimate}, then rule cost`}${options.measure ? '; timing every runnable candidate' : ''}\n`,
  );
  if (source.engine.name !== 'sqlite') err.write(`${run.engineLine}\n`);
  for (const p of orderProblems(problems).filter((p) => p.headline)) err.write(`${pc.yellow('problem')}: ${formatProblem(p)}\n`);
  const bar =
    options.progress !== false && err.isTTY
      ? new SingleBar({ format: ' {bar} {value}/{total} questions', hideCursor: true, stream: err })
      : undefined;
  bar?.start(sets.length, 0);
  const { report, predictions: picked } = await runRerankRun(
    run,
    { by, limits, measure: options.measure },
    { onProgress: (done) => bar?.update(done) },
  );
  bar?.stop();

  if (options.out) {
    writeOutputFile('--out', options.out, JSON.stringify(picked, null, 2) + '\n');
    err.write(`wrote ${options.out} (official prediction format, in question order)\n`);
  }
  if (options.json || options.jsonStdout) {
    emitJson(options, {
      tool: await toolInfo(),
      inputs: {
        questions: options.questions,
        db_root: options.dbRoot ?? null,
        engine,
        candidates: options.candidates ?? predictions,
        by,
        out: options.out ?? null,
      },
      ...report,
      problems: orderProblems(problems).map(formatProblem),
    });
    if (options.jsonStdout) return 0;
  }
  // Why questions kept their first candidate, counted by kind ("database not found", "no candidate runs", ...).
  const kept = new Map<string, number>();
  for (const q of report.questions) if (q.note) kept.set(q.note.split(':')[0], (kept.get(q.note.split(':')[0]) ?? 0) + 1);
  const keptText = [...kept].map(([why, n]) => `${n}: ${why}`).join('; ');
  const lines = [
    `${report.changed} of ${report.questions.length} questions pick another candidate than the first${kept.size ? `; kept without ranking: ${keptText}` : ''}`,
  ];
  const counts = new Map<number, number>();
  for (const q of report.questions) counts.set(q.chosen, (counts.get(q.chosen) ?? 0) + 1);
  lines.push(
    `picked: ${[...counts]
      .sort((a, b) => a[0] - b[0])
      .map(([i, n]) => `candidate ${i}: ${n}`)
      .join(', ')}`,
  );
  if (report.correlation) {
    lines.push('Spearman ρ between plan cost and measured time:');
    lines.push(`  ${correlationLine('rule cost', report.correlation.rule)}`);
    lines.push(`  ${correlationLine(estimate, report.correlation.estimate)}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
