import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import type { EngineDescription } from '../core/db/source';
import type { EvalProgress } from '../core/eval/evaluate';
import type { Metric, QuestionResult, TimingMode } from '../core/eval/types';
import type { EvalInputs as ReportInputs } from '../core/eval/reportJson';
import type { NamedInput } from '../core/io/outputPaths';
import type { Shard } from '../core/eval/shard';
import { evalClock, evalResultsText, evalShard, goldCacheText, writeEvalHeader, writeEvalHtml } from '../app/evalTerminal';
import {
  EvalRunSettings,
  FinishedEvalRun,
  parseMetricList,
  PreparedEvalRun,
  prepareEvalRun,
  runEvalRun,
  runJobs,
  withoutRunFailures,
} from '../app/evalRun';
import { finishedEvalReport } from '../app/evalReport';
import { checkScoringOptions, scoringInputsJson } from '../app/scoringInputs';
import { TechniqueCliOptions, techniqueSettings } from './techniqueOptions';
import {
  checkCounterexampleOptions,
  CounterexampleCliOptions,
  runCounterexampleStep,
  searchInterruptedLine,
} from './counterexampleOptions';
import { checkCheckpointPath, fileOutput, interruptedLine, RESUME_NOTES } from './resumableRun';
import { inputFingerprint, ResumableRun, startResumableRun } from '../app/resumableRun';
import {
  checkOutputFile,
  databaseSource,
  EngineCliOptions,
  EXIT,
  parseScales,
  positiveInteger,
  timeoutMs as parseTimeoutMs,
  UsageError,
} from './common';
import { quoted } from '../core/text/problemText';
import { toolInfo } from '../app/toolInfo';
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
  const metrics = parseMetricList(text);
  if ('error' in metrics) throw new UsageError(`--metrics: ${metrics.error}`);
  return metrics;
}

/** The settings the options give, checked before any work (the engine rules are the application layer's). */
function evalSettings(options: EvalCommandOptions) {
  const metrics = parseMetrics(options.metrics);
  if (options.timing !== 'fast' && options.timing !== 'official')
    throw new UsageError(`--timing: expected fast or official, got "${options.timing}"`);
  const jobs = runJobs(options.jobs === undefined ? undefined : positiveInteger('--jobs', options.jobs));
  if (options.schema && !fs.existsSync(options.schema)) throw new UsageError(`--schema: file not found: ${options.schema}`);
  const planCost = options.efficiency === 'plan-cost';
  if (options.efficiency !== undefined && options.efficiency !== 'timed' && !planCost)
    throw new UsageError(`--efficiency: expected timed or plan-cost, got ${quoted(options.efficiency)}`);
  const techniques = techniqueSettings(options);
  const settings: EvalRunSettings = {
    source: databaseSource(options),
    metrics,
    timing: options.timing as TimingMode,
    timeoutMs: parseTimeoutMs('--timeout', options.timeout),
    maxRows: positiveInteger('--max-rows', options.maxRows),
    jobs,
    officialIterations: options.iterations !== undefined ? positiveInteger('--iterations', options.iterations) : undefined,
    scales: options.scales === undefined ? undefined : parseScales(options.scales),
    schemaFile: options.schema,
    techniques: techniques?.step,
    planCost,
    goldCache: options.goldCache !== false,
  };
  return { settings, techniqueInputs: techniques?.inputs };
}

/** The outputs, checked by real path against every input and the database folders (core/io/outputPaths.ts), and the shard. */
function evalOutputs(options: EvalCommandOptions, settings: EvalRunSettings) {
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
  if (htmlFile) checkOutputFile('--html', htmlFile, [...inputFiles, { label: '--json', file: jsonFile }], databaseFolders);
  const checkpointFile = checkCheckpointPath(jsonFile ?? htmlFile, options.resume, inputFiles, databaseFolders);
  const { shard, error } = evalShard(options.shard, options.shardCount, process.env);
  if (error) throw new UsageError(error);
  const pairBudgetMs = checkCounterexampleOptions(options, settings.source, inputFiles);
  return { inputFiles, jsonFile, htmlFile, checkpointFile, shard, pairBudgetMs };
}

/** What --resume takes from the checkpoint; what the failure of that run left (not run, timing cut off) is run again, never kept. */
function resumeLine(run: ResumableRun<QuestionResult>, total: number, checkpointFile: string | undefined): string {
  const rerun = withoutRunFailures(run.resumed);
  return (
    `resuming: ${run.resumed.size} of ${total} questions taken from ${checkpointFile}` +
    `${rerun ? `; ${rerun} it holds from the failure of that run (server gone, timing cut off) run again` : ''}\n`
  );
}

/** The progress bar on a terminal: questions scored, then timing passes, then scaled copies. */
function progressBar(options: EvalCommandOptions, err: NodeJS.WriteStream) {
  const bar =
    options.progress && err.isTTY
      ? new SingleBar({ format: ' {bar} {value}/{total} questions · {eta_formatted} left · {last}', hideCursor: true, stream: err })
      : undefined;
  const onProgress = (progress: EvalProgress) => {
    if (progress.phase === 'correctness') bar?.update(progress.done);
    else if (bar && progress.phase === 'scales') {
      bar.setTotal(progress.total);
      bar.update(progress.done, { last: 'timing on scaled copies of the databases (built once, cached)' });
    } else if (bar) {
      // Timing runs in passes over the correct pairs, each pass one block per pair still unsettled.
      bar.setTotal(progress.total);
      bar.update(progress.done, { last: `timing pass ${progress.pass}: ${progress.total - progress.done} pairs not settled yet` });
    }
  };
  return { bar, onProgress };
}

/** The exit code, and the line that explains a run that did not finish or scored nothing. */
function evalExit(
  run: ResumableRun<QuestionResult>,
  finished: FinishedEvalRun,
  context: { total: number; jsonFile?: string; written?: string; reportWritten: boolean },
): number {
  const err = process.stderr;
  const { robustnessRun, serverLost, notRun } = finished;
  const kept = run.checkpoint !== undefined && !run.checkpoint.failure;
  // Interrupted while scoring (a Ctrl-C during the counterexample search after it is robustnessRun's).
  if (finished.interrupted) {
    run.checkpoint?.close();
    err.write(interruptedLine(finished.results.length, context.total, context.jsonFile, kept));
    return run.interrupt.exitCode() ?? EXIT.input;
  }
  if (robustnessRun?.interrupted) {
    run.checkpoint?.close(); // every question is in it: --resume scores none again and searches anew
    err.write(searchInterruptedLine(robustnessRun, context.written, kept));
    return run.interrupt.exitCode() ?? EXIT.input;
  }
  if (serverLost === undefined) run.checkpoint?.remove();
  if (serverLost !== undefined) {
    err.write(
      `${pc.red('error')}: the database server went away during the run (${serverLost}): ${notRun} question${notRun === 1 ? ' was' : 's were'} not run or not timed` +
        `${context.reportWritten ? '; the report was written' : ''}${run.checkpoint ? '; --resume runs them when the server is back' : ''}\n`,
    );
    return EXIT.input;
  }
  if (finished.nothingScored) err.write(`${pc.red('error')}: ${finished.nothingScored}\n`);
  return finished.nothingScored ? EXIT.input : EXIT.done;
}

/** What runs the SQL (asked before any question: a server that cannot be reached stops here, naming --db-url) and what reads. */
async function printHeader(options: EvalCommandOptions, prepared: PreparedEvalRun, shard: Shard | undefined) {
  const { tasks, allTasks, predictionFile, goldFrom, goldFile, problems } = prepared;
  const { metrics, timing } = prepared.settings;
  const engine = prepared.engine!;
  const clock = await writeEvalHeader((text) => process.stderr.write(text), {
    ...{ engine, timing, metrics, questionsFile: options.questions, predictionsFile: options.predictions },
    ...{ questions: tasks.length, allQuestions: allTasks.length, shard, predictionFile, goldFrom: goldFrom!, goldFile, problems },
  });
  return { engine, clock };
}

/** The report's inputs block, and the run's checkpoint opened on them (--resume continues it; cli/resumableRun.ts). */
function startEvalRun(
  options: EvalCommandOptions,
  prepared: PreparedEvalRun,
  context: {
    inputFiles: NamedInput[];
    checkpointFile?: string;
    engine: EngineDescription;
    clock: { inputs: object };
    techniqueInputs?: object;
  },
) {
  const { settings, predictionFile, goldFrom, allTasks } = prepared;
  const { metrics, timing, timeoutMs, maxRows } = settings;
  const { inputFiles, checkpointFile, engine, clock, techniqueInputs } = context;
  const reportInputs = {
    ...scoringInputsJson(options, { predictionFile, goldFrom: goldFrom! }),
    ...{ engine, metrics, efficiency: settings.planCost ? ('plan-cost' as const) : ('timed' as const), timing, ...clock.inputs },
    ...{ timeout_s: timeoutMs / 1000, max_rows: maxRows, ...(techniqueInputs ? { techniques: techniqueInputs } : {}) },
    ...(prepared.shardInfo ? { shard: prepared.shardInfo } : {}),
  };
  const fingerprint = inputFingerprint(
    inputFiles,
    options.dbRoot,
    allTasks.map((task) => task.question.dbId),
  );
  const run = startResumableRun<QuestionResult>(
    'eval',
    checkpointFile,
    { ...fingerprint, options: { ...reportInputs, iterations: settings.officialIterations ?? null, scales: settings.scales ?? null } },
    Boolean(options.resume),
    `finishing the question under way, then writing what is finished${checkpointFile ? ' (--resume continues)' : ''}`,
    RESUME_NOTES,
  );
  return { reportInputs, run };
}

/** The JSON report (a file or standard output) and the HTML page. */
async function writeReports(
  options: EvalCommandOptions,
  finished: FinishedEvalRun,
  reportInputs: Omit<ReportInputs, 'gold_cache'>,
  total: number,
) {
  const err = process.stderr;
  const { interrupted, tasks: reportTasks } = finished;
  const report = finishedEvalReport(await toolInfo(), reportInputs, finished, total);
  emitJson(options, report, JSON_SHAPES.eval);
  // An HTML page has no place to say it is partial: an interrupted run writes only the JSON.
  if (options.html && !interrupted) {
    writeEvalHtml(options.html, report, reportTasks, options.predictions);
    err.write(`wrote ${options.html}\n`);
  }
}

export async function runEval(options: EvalCommandOptions): Promise<number> {
  const { settings, techniqueInputs } = evalSettings(options);
  const goldFromOption = checkScoringOptions(options);
  const { inputFiles, jsonFile, htmlFile, checkpointFile, shard, pairBudgetMs } = evalOutputs(options, settings);
  // The timing process (Python) starts while the inputs are read; printHeader's evalClock finds it started.
  void evalClock(settings.source.engine.name, settings.timing, settings.metrics);
  const prepared = await prepareEvalRun({ kind: 'files', ...options, goldFromOption }, settings, shard);
  const { tasks } = prepared;
  const { metrics, timeoutMs, maxRows, source } = settings;
  const err = process.stderr;
  const { engine, clock } = await printHeader(options, prepared, shard);
  const { reportInputs, run } = startEvalRun(options, prepared, { inputFiles, checkpointFile, engine, clock, techniqueInputs });
  if (options.resume) err.write(resumeLine(run, tasks.length, checkpointFile));
  const reported = Boolean(options.json || options.jsonStdout || options.html);
  const { bar, onProgress } = progressBar(options, err);
  bar?.start(tasks.filter((task) => !run.resumed.has(task.question.index)).length, 0, { last: '' });
  const finished = await runEvalRun(prepared, {
    signal: run.interrupt.signal,
    onProgress,
    onNote: (note) => err.write(pc.yellow(`note: ${note}`) + '\n'),
    onResult: (result) => bar?.update({ last: `${result.question_id}: ${result.outcome}` }),
    // A question its lost server did not run stays out of the checkpoint: --resume runs it.
    onKeep: (result) => run.finish(result.index, result),
    onScored: ({ goldCacheLine }) => {
      bar?.stop();
      const cacheLine = goldCacheText(goldCacheLine, source.engine.name, settings.goldCache);
      if (cacheLine) err.write(cacheLine);
    },
    resumed: run.resumed,
    kept: () => run.finished,
    // A Ctrl-C during the search stops it; the report says so.
    afterScoring:
      pairBudgetMs === undefined
        ? undefined
        : (results, reportTasks) =>
            runCounterexampleStep(results, reportTasks, { ...options, pairBudgetMs, timeoutMs, maxRows, signal: run.interrupt.signal }),
    planCosts: reported,
  });
  run.interrupt.dispose();
  const { results, summary, problems: allProblems } = finished;
  // With the report on standard output, what is printed for a person goes to standard error.
  const planCost = Boolean(settings.planCost);
  const out = options.jsonStdout ? err : process.stdout;
  out.write(evalResultsText({ summary, metrics, results, problems: allProblems, planCost, engine: source.engine }));
  if (reported)
    await writeReports(options, finished, { ...reportInputs, ...(options.resume ? { resumed: run.resumed.size } : {}) }, tasks.length);
  const written = jsonFile ?? htmlFile ?? (options.jsonStdout ? 'standard output' : undefined);
  const reportWritten = Boolean(options.json || options.html);
  return evalExit(run, finished, { total: tasks.length, jsonFile, written, reportWritten });
}
