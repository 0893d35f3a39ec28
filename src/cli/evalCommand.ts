import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import { InputProblem } from '../core/bird/problems';
import { DatabaseSource, engineLine } from '../core/db/source';
import { EmbeddedUnavailable } from '../core/db/pglite/embeddedSource';
import { evaluateTasks } from '../core/eval/evaluate';
import { fromRunFailure } from '../core/eval/runFailure';
import { defaultJobs, widenThreadPool } from '../core/eval/parallelEval';
import { summarize } from '../core/eval/evalSummary';
import { describeGoldSource } from '../core/bird/tasks';
import { databaseRunProblems, nothingScored, sqliteDbRootProblems } from '../core/eval/databaseProblems';
import { Metric, METRICS, QuestionResult, TimingMode } from '../core/eval/types';
import { evalReport } from '../core/eval/reportJson';
import { attachPlanCosts } from '../core/report/htmlCosts';
import { plannerCostLines } from '../core/report/planText';
import { plannerCostVerdict } from '../core/plan/cost';
import { ReportQuestion } from '../core/eval/reportFile';
import { evalReportHtml } from '../core/report/htmlReports';
import { resolveShard, shardInfo, shardOf } from '../core/eval/shard';
import {
  efficiencyNotes,
  failureList,
  headlineProblems,
  outcomeTable,
  problemList,
  scoreTable,
  skippedLine,
} from '../core/report/terminal';
import { techniqueNotes } from '../core/report/techniqueRows';
import { runClock } from '../core/timing/pythonTimer';
import { goldCacheFor, goldCacheLine, goldCacheOffLine, goldCacheOffReason } from '../core/eval/goldResultCache';
import { TechniqueCliOptions, techniqueSettings } from './techniqueOptions';
import {
  checkCounterexampleOptions,
  CounterexampleCliOptions,
  robustnessBlock,
  runCounterexampleStep,
  searchInterruptedLine,
  withRobustnessRun,
} from './counterexampleOptions';
import { checkCheckpointPath, completeness, fileOutput, inputFingerprint, interruptedLine, startResumableRun } from './resumableRun';
import { withLoadedDatabasesOnly } from '../core/eval/serverDatabases';
import { checkDialects, checkScoringOptions, loadScoringInputs, scoringInputsJson } from './scoringInputs';
import {
  checkOutputFile,
  databaseSource,
  EngineCliOptions,
  EXIT,
  parseScales,
  positiveInteger,
  quoted,
  timeoutMs as parseTimeoutMs,
  TOOL_NAME,
  TOOL_VERSION,
  toolInfo,
  UsageError,
  writeOutputFile,
} from './common';
import { emitJson } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';

export interface EvalCommandOptions extends TechniqueCliOptions, EngineCliOptions, CounterexampleCliOptions {
  questions: string;
  predictions: string;
  gold?: string;
  metrics: string;
  timing: string;
  timeout: string;
  maxRows: string;
  /** Questions scored for correctness at once (default: the cores). */
  jobs?: string;
  iterations?: string;
  scales?: string;
  schema?: string;
  json?: string;
  /** `--json` alone or `--json -`: the report on standard output, the tables on standard error (cli/jsonOption.ts). */
  jsonStdout?: boolean;
  /** Write the self-contained HTML report here. */
  html?: string;
  /** `i/n` or `auto` (a Slurm array task, a Kubernetes Indexed Job): score only every n-th question, from the i-th. */
  shard?: string;
  /** With --shard auto in a Kubernetes Indexed Job: the Job's completions. */
  shardCount?: string;
  progress: boolean;
  /** questions, gold-file or predictions (the prediction file's own gold_sql); default: --gold if given, else questions. */
  goldFrom?: string;
  /** `plan-cost`: also BIRD-Critic's comparison of EXPLAIN (FORMAT JSON) Total Cost (PostgreSQL), beside the timed ratio. */
  efficiency?: string;
  /** Continue the run whose checkpoint is beside --json (or --html): its finished questions are not scored again. */
  resume?: boolean;
  /** false with --no-gold-cache: every gold runs (core/eval/goldResultCache.ts). */
  goldCache?: boolean;
}

export function parseMetrics(text: string): Metric[] {
  const metrics = text
    .split(',')
    .map((m) => m.trim().toLowerCase())
    .filter(Boolean);
  for (const m of metrics) {
    if (!METRICS.includes(m as Metric)) throw new UsageError(`--metrics: unknown metric ${quoted(m)} (choose from ${METRICS.join(', ')})`);
  }
  if (metrics.length === 0) throw new UsageError('--metrics: name at least one metric');
  return METRICS.filter((m) => metrics.includes(m));
}

/**
 * A database on which every gold query failed (at least two questions) is damaged or not the one the
 * questions were written for: said once, naming the file (or the server's schema or database), instead of
 * only question by question.
 */
export function unusableDatabases(source: Pick<DatabaseSource, 'label'>, results: readonly QuestionResult[]): InputProblem[] {
  const byDb = new Map<string, QuestionResult[]>();
  for (const r of results) if (r.outcome !== 'skipped') byDb.set(r.db_id, [...(byDb.get(r.db_id) ?? []), r]);
  const problems: InputProblem[] = [];
  for (const [dbId, rs] of byDb) {
    if (rs.length < 2 || !rs.every((r) => r.outcome === 'gold_error' && /^gold: /.test(r.error ?? ''))) continue;
    const first = (rs[0].error ?? '').replace(/^gold: /, '').replace(/; prediction: .*$/s, '');
    problems.push({
      file: source.label(dbId),
      message: `the gold SQL of all ${rs.length} questions on it fails (first: ${first}): is the database damaged, or another version?`,
      headline: true,
    });
  }
  return problems;
}

export async function runEval(options: EvalCommandOptions): Promise<number> {
  const metrics = parseMetrics(options.metrics);
  if (options.timing !== 'fast' && options.timing !== 'official')
    throw new UsageError(`--timing: expected fast or official, got "${options.timing}"`);
  const timing = options.timing as TimingMode;
  const timeoutMs = parseTimeoutMs('--timeout', options.timeout);
  const maxRows = positiveInteger('--max-rows', options.maxRows);
  const jobs = options.jobs === undefined ? defaultJobs() : positiveInteger('--jobs', options.jobs);
  widenThreadPool(jobs);
  const officialIterations = options.iterations !== undefined ? positiveInteger('--iterations', options.iterations) : undefined;
  const scales = options.scales === undefined ? undefined : parseScales(options.scales);
  if (options.schema && !fs.existsSync(options.schema)) throw new UsageError(`--schema: file not found: ${options.schema}`);
  const goldFromOption = checkScoringOptions(options);
  let source = databaseSource(options);
  if (scales && source.engine.name !== 'sqlite')
    throw new UsageError('--scales: scaled copies are SQLite files; not with --engine postgres');
  // Outputs are checked by real path against every input and the database folders (core/io/outputPaths.ts).
  const inputFiles = [
    { label: '--questions', file: options.questions },
    { label: '--predictions', file: options.predictions },
    { label: '--gold', file: options.gold },
    { label: '--schema', file: options.schema },
  ];
  const databaseFolders = [{ label: '--db-root', folder: options.dbRoot }];
  const jsonFile = fileOutput(options.json);
  const htmlFile = fileOutput(options.html);
  if (jsonFile) checkOutputFile('--json', jsonFile, inputFiles, databaseFolders);
  const techniques = techniqueSettings(options);
  if (techniques && source.engine.name !== 'sqlite')
    throw new UsageError("--techniques: SQLMorph's techniques read SQLite's value types; not with --engine postgres");
  const planCost = options.efficiency === 'plan-cost';
  if (options.efficiency !== undefined && options.efficiency !== 'timed' && !planCost)
    throw new UsageError(`--efficiency: expected timed or plan-cost, got ${quoted(options.efficiency)}`);
  if (planCost && source.engine.name === 'sqlite')
    throw new UsageError(
      "--efficiency plan-cost: BIRD-Critic compares PostgreSQL's EXPLAIN (FORMAT JSON) Total Cost, which SQLite's planner does not give; use --engine postgres (on SQLite, --json's plan_cost holds the rule cost and row visits)",
    );
  if (htmlFile) checkOutputFile('--html', htmlFile, [...inputFiles, { label: '--json', file: jsonFile }], databaseFolders);
  const checkpointFile = checkCheckpointPath(jsonFile ?? htmlFile, options.resume, inputFiles, databaseFolders);
  const shard = resolveShard(options.shard, options.shardCount, process.env);
  if (shard && 'error' in shard) throw new UsageError(`${shard.option}: ${shard.error}`);
  const pairBudgetMs = checkCounterexampleOptions(options, source, inputFiles);

  const scoring = loadScoringInputs(options, goldFromOption);
  checkDialects(options, scoring, source.engine.name); // another dialect's SQL would fail or differ on this engine, scored 0
  const { predictionFile, goldFile, goldFrom, problems, tasks: allTasks } = scoring;
  problems.push(
    ...sqliteDbRootProblems(
      source,
      options.dbRoot,
      allTasks.map((task) => task.question.dbId),
    ),
  );
  // A shard scores every n-th question; the problems above are the whole file's, so every shard reports the same.
  const tasks = shardOf(allTasks, shard, (task) => task.question.index);
  // What runs the SQL, asked before any question: a server that cannot be reached stops here, naming --db-url.
  const engine = await source.describe().catch((error: Error) => {
    throw new UsageError(
      error instanceof EmbeddedUnavailable ? error.message : `--db-url: cannot reach the PostgreSQL server: ${error.message}`,
    );
  });
  // A one-database server's missing databases are skipped, as missing SQLite files are (not gold errors).
  source = await withLoadedDatabasesOnly(source, engine, allTasks);

  const err = process.stderr;
  err.write(
    `${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · ${engineLine(engine)} · timing ${timing}\n` +
      `${tasks.length} questions from ${options.questions}${shard ? ` (shard ${shard.index}/${shard.count} of ${allTasks.length}${'from' in shard ? `: ${shard.from}` : ''})` : ''}; predictions from ${options.predictions} (${predictionFile.format}, paired by ${predictionFile.pairing}); gold from ${describeGoldSource(goldFrom, goldFile, predictionFile)}\n`,
  );
  // An embedded engine's timings are its own (WASM in this process), said before the numbers they make.
  if (engine.note && metrics.some((metric) => metric === 'ves' || metric === 'rves')) err.write(pc.yellow(`note: ${engine.note}`) + '\n');
  // --timing official on SQLite: Python's sqlite3 times as the scripts, or VES Lens's own clock, said either way.
  const clock = await runClock(engine.engine, timing, metrics);
  if (clock.line) err.write((clock.line.fallback ? pc.yellow(`note: ${clock.line.text}`) : clock.line.text) + '\n');
  const atTop = headlineProblems(problems);
  if (atTop) err.write(atTop + '\n');
  const bar =
    options.progress && err.isTTY
      ? new SingleBar({ format: ' {bar} {value}/{total} questions · {eta_formatted} left · {last}', hideCursor: true, stream: err })
      : undefined;
  const reportInputs = {
    ...scoringInputsJson(options, { predictionFile, goldFrom }),
    engine,
    metrics,
    efficiency: planCost ? ('plan-cost' as const) : ('timed' as const),
    timing,
    ...clock.inputs,
    timeout_s: timeoutMs / 1000,
    max_rows: maxRows,
    ...(techniques ? { techniques: techniques.inputs } : {}),
    ...(shard ? { shard: shardInfo(shard, allTasks.length) } : {}),
  };
  // Finished questions go to a checkpoint as they finish; --resume scores only the others (cli/resumableRun.ts).
  const run = startResumableRun<QuestionResult>(
    'eval',
    checkpointFile,
    {
      ...inputFingerprint(
        inputFiles,
        options.dbRoot,
        allTasks.map((task) => task.question.dbId),
      ),
      options: { ...reportInputs, iterations: officialIterations ?? null, scales: scales ?? null },
    },
    Boolean(options.resume),
    `finishing the question under way, then writing what is finished${checkpointFile ? ' (--resume continues)' : ''}`,
  );
  // What the run's failure left (not run, timing cut off by a lost server) is no score: run again, never kept.
  const rerun = [...run.resumed].filter(([, result]) => fromRunFailure(result)).map(([index]) => index);
  for (const index of rerun) run.resumed.delete(index);
  if (options.resume)
    err.write(
      `resuming: ${run.resumed.size} of ${tasks.length} questions taken from ${checkpointFile}` +
        `${rerun.length ? `; ${rerun.length} it holds from the failure of that run (server gone, timing cut off) run again` : ''}\n`,
    );
  const toScore = tasks.filter((task) => !run.resumed.has(task.question.index));
  bar?.start(toScore.length, 0, { last: '' });
  let serverLost: string | undefined;
  const goldCache = goldCacheFor(source.engine.name, options.goldCache !== false, (note) => err.write(pc.yellow(`note: ${note}`) + '\n'));
  const fresh = await evaluateTasks(toScore, {
    source,
    goldCache,
    onServerUnavailable: (message) => (serverLost = message),
    metrics,
    timing,
    timeoutMs,
    maxRows,
    jobs,
    officialIterations,
    scales,
    schemaFile: options.schema,
    techniques: techniques?.step,
    signal: run.interrupt.signal,
    onResult: (result) => {
      // A question its lost server did not run stays out of the checkpoint: --resume runs it.
      if (!fromRunFailure(result)) run.finish(result.index, result);
      bar?.update({ last: `${result.question_id}: ${result.outcome}` });
    },
    onProgress: (progress) => {
      if (progress.phase === 'correctness') bar?.update(progress.done);
      else if (bar && progress.phase === 'scales') {
        bar.setTotal(progress.total);
        bar.update(progress.done, { last: 'timing on scaled copies of the databases (built once, cached)' });
      } else if (bar) {
        // Timing runs in passes over the correct pairs, each pass one block per pair still unsettled.
        bar.setTotal(progress.total);
        bar.update(progress.done, { last: `timing pass ${progress.pass}: ${progress.total - progress.done} pairs not settled yet` });
      }
    },
  });
  bar?.stop();
  if (goldCache) err.write(`${goldCacheLine(goldCache.counts())}; --no-gold-cache runs every gold\n`);
  else if (source.engine.name === 'sqlite') err.write(`${goldCacheOffLine(goldCacheOffReason(options.goldCache !== false) ?? '')}\n`);
  // In question order: the checkpoint's, then this run's (interrupted: only those finished before the signal).
  const interrupted = run.interrupted();
  const freshByIndex = interrupted ? run.finished : new Map(fresh.map((result) => [result.index, result]));
  const reportTasks = tasks.filter((task) => run.resumed.has(task.question.index) || freshByIndex.has(task.question.index));
  const results = reportTasks.map((task) => run.resumed.get(task.question.index) ?? freshByIndex.get(task.question.index)!);
  // Not after an interruption (its partial report is due now); a Ctrl-C during the search stops it, the report says so.
  const robustnessRun =
    pairBudgetMs !== undefined && !interrupted
      ? await runCounterexampleStep(results, reportTasks, { ...options, pairBudgetMs, timeoutMs, maxRows, signal: run.interrupt.signal })
      : undefined;
  run.interrupt.dispose();

  problems.push(...databaseRunProblems(source, results));
  const named = new Set(problems.map((p) => p.file));
  problems.push(...unusableDatabases(source, results).filter((p) => !named.has(p.file)));
  const summary = withRobustnessRun(summarize(results, metrics), robustnessRun);
  // With the report on standard output, what is printed for a person goes to standard error.
  const out = options.jsonStdout ? err : process.stdout;
  out.write(scoreTable(summary, metrics) + '\n');
  out.write(outcomeTable(summary) + '\n');
  for (const block of [
    skippedLine(summary),
    failureList(results),
    efficiencyNotes(results),
    techniqueNotes(results),
    robustnessBlock(summary.robustness),
    problemList(problems),
  ]) {
    if (block) out.write(block + '\n');
  }
  if (planCost) {
    // BIRD-Critic's deterministic verdict beside the timed ratio, per question in the JSON's plan_cost.
    await attachPlanCosts(results, reportTasks, source);
    for (const result of results as ReportQuestion[]) if (result.plan_cost) result.plan_cost = plannerCostVerdict(result.plan_cost);
    out.write(plannerCostLines(results).join('\n') + '\n');
  }
  if (options.json || options.jsonStdout || options.html) {
    if (!planCost) await attachPlanCosts(results, reportTasks, source);
    const report = completeness(
      evalReport(
        await toolInfo(),
        { ...reportInputs, gold_cache: goldCache?.counts() ?? null, ...(options.resume ? { resumed: run.resumed.size } : {}) },
        summary,
        problems,
        results,
      ),
      // Complete only when every question was scored by a working engine (none left by the run's failure).
      !interrupted && !results.some(fromRunFailure),
      tasks.length,
    );
    emitJson(options, report, JSON_SHAPES.eval);
    // An HTML page has no place to say it is partial: an interrupted run writes only the JSON.
    if (options.html && !interrupted) {
      writeOutputFile('--html', options.html, evalReportHtml(report, reportTasks, options.predictions, options.html));
      err.write(`wrote ${options.html}\n`);
    }
  }
  if (interrupted) {
    run.checkpoint?.close();
    err.write(interruptedLine(results.length, tasks.length, jsonFile, run.checkpoint !== undefined && !run.checkpoint.failure));
    return run.interrupt.exitCode() ?? EXIT.input;
  }
  if (robustnessRun?.interrupted) {
    run.checkpoint?.close(); // every question is in it: --resume scores none again and searches anew
    const written = jsonFile ?? htmlFile ?? (options.jsonStdout ? 'standard output' : undefined);
    err.write(searchInterruptedLine(robustnessRun, written, run.checkpoint !== undefined && !run.checkpoint.failure));
    return run.interrupt.exitCode() ?? EXIT.input;
  }
  if (serverLost === undefined) run.checkpoint?.remove();
  if (serverLost !== undefined) {
    const notRun = results.filter(fromRunFailure).length;
    err.write(
      `${pc.red('error')}: the database server went away during the run (${serverLost}): ${notRun} question${notRun === 1 ? ' was' : 's were'} not run or not timed` +
        `${options.json || options.html ? '; the report was written' : ''}${run.checkpoint ? '; --resume runs them when the server is back' : ''}\n`,
    );
    return EXIT.input;
  }
  const scoredNothing = nothingScored(results);
  if (scoredNothing) {
    err.write(`${pc.red('error')}: ${scoredNothing}\n`);
    return EXIT.input;
  }
  return 0;
}
