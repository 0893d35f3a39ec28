/**
 * The eval use case, called by `ves-lens eval` (cli/evalCommand.ts) and the editor's Evaluate
 * (server/report/reportProvider.ts): `prepareEvalRun` checks the settings against the engine and reads and pairs
 * the inputs before any work; `runEvalRun` scores what a resumed run has not finished, runs the face's step (the
 * CLI's counterexample search), adds what the results say about the databases and the plan costs, and summarizes.
 * The faces parse their options into EvalRunSettings and render what comes back.
 */
import * as fs from 'fs';
import { GoldFile } from '../core/bird/gold';
import { topLevelEntryLines } from '../core/bird/jsonFile';
import { loadPredictions, PredictionFile } from '../core/bird/predictions';
import { InputProblem } from '../core/bird/problems';
import { Question } from '../core/bird/questions';
import { buildTasks, EvalTask, GoldSource } from '../core/bird/tasks';
import { DatabaseSource } from '../core/db/source';
import { databaseRunProblems, nothingScored, sqliteDbRootProblems } from '../core/eval/databaseProblems';
import { fromRunFailure } from '../core/eval/runFailure';
import { defaultJobs, laneCount, widenThreadPool } from '../core/eval/parallelEval';
import { DEFAULT_MAX_ROWS, evaluateTasks, EvalProgress, isTimedPair } from '../core/eval/evaluate';
import { EvalSummary, summarize } from '../core/eval/evalSummary';
import { RobustnessRun } from '../core/eval/robustnessStep';
import { interruptedRobustness } from '../core/eval/robustnessSummary';
import { GoldResultCache, goldCacheFor, goldCacheLine } from '../core/eval/goldResultCache';
import { ReportQuestion, ShardInfo } from '../core/eval/reportFile';
import { Shard, shardInfo, shardOf } from '../core/eval/shard';
import type { TechniqueStep } from '../core/eval/techniqueStep';
import { Metric, METRICS, QuestionResult, TimingMode } from '../core/eval/types';
import { quoted } from '../core/text/problemText';
import { plannerCostVerdict } from '../core/plan/cost';
import { attachPlanCosts, PlanCostReader } from '../core/report/htmlCosts';
import { checkEngineNeeds } from './engineRules';
import { RunRefused, serverUnreachable } from './runRefused';
import { EmbeddedUnavailable } from '../core/db/pglite/embeddedSource';
import { checkDialects, loadScoringInputs, ScoringInputOptions } from './scoringInputs';
import { withLoadedDatabasesOnly } from '../core/eval/serverDatabases';
import { EngineDescription } from '../core/db/source';

/** How a run scores, as each face parsed it. */
export interface EvalRunSettings {
  source: DatabaseSource;
  metrics: readonly Metric[];
  timing: TimingMode;
  /** Limit for one prediction/gold pair, as the official meta_time_out. */
  timeoutMs: number;
  maxRows: number;
  /** Questions scored for correctness at once (core/eval/parallelEval.ts). */
  jobs?: number;
  officialIterations?: number;
  /** Re-time each timed pair on copies of its database scaled by these factors (SQLite only). */
  scales?: readonly number[];
  /** BIRD's tables file, for the keys of scaled copies. */
  schemaFile?: string;
  /** SQLMorph's techniques (SQLite only). */
  techniques?: TechniqueStep;
  /** BIRD-Critic's plan-cost verdict beside the timed ratio (a server engine only). */
  planCost?: boolean;
  /** Keep gold results between runs (SQLite; core/eval/goldResultCache.ts); false: every gold runs. */
  goldCache: boolean;
}

/** Where the questions, gold and predictions come from: files (the CLI) or the editor's dataset and a prediction file. */
export type EvalInputs =
  | ({ kind: 'files'; goldFromOption?: GoldSource } & ScoringInputOptions)
  | { kind: 'dataset'; questions: Question[]; goldSql: (question: Question) => string | undefined; predictions: string };

export interface PreparedEvalRun {
  settings: EvalRunSettings;
  /** What runs the SQL, asked before any question (files' runs; the editor knows its engine already). */
  engine?: EngineDescription;
  predictionFile: PredictionFile;
  goldFrom?: GoldSource;
  goldFile?: GoldFile;
  /** Every question's task; `tasks` are those this run scores (a shard's, or all). */
  allTasks: EvalTask[];
  tasks: EvalTask[];
  /** The inputs' problems (the whole file's, so every shard reports the same). */
  problems: InputProblem[];
  /** The shard this run scores, as the report's inputs say it (of every question). */
  shardInfo?: ShardInfo;
}

/** Checks the settings against the engine (RunRefused), then reads and pairs the inputs. */
export async function prepareEvalRun(inputs: EvalInputs, settings: EvalRunSettings, shard?: Shard): Promise<PreparedEvalRun> {
  const engine = settings.source.engine.name;
  checkEngineNeeds(engine, { scales: Boolean(settings.scales), techniques: Boolean(settings.techniques), planCost: settings.planCost });
  if (inputs.kind === 'dataset') {
    const predictionFile = loadPredictions(inputs.predictions);
    const problems = [...predictionFile.problems];
    const tasks = buildTasks(inputs.questions, predictionFile, undefined, problems);
    for (const task of tasks) task.goldSql = inputs.goldSql(task.question);
    return { settings, predictionFile, problems, ...sharded(tasks, shard) };
  }
  const scoring = loadScoringInputs(inputs, inputs.goldFromOption);
  checkDialects(inputs, scoring, engine); // another dialect's SQL would fail or differ on this engine, scored 0
  const { predictionFile, goldFile, goldFrom, problems, tasks } = scoring;
  const described = await describeRunEngine(settings, tasks);
  const dbIds = tasks.map((task) => task.question.dbId);
  problems.push(...sqliteDbRootProblems(settings.source, inputs.dbRoot, dbIds));
  return { settings, engine: described, predictionFile, goldFile, goldFrom, problems, ...sharded(tasks, shard) };
}

/** Every task, the shard's, and the shard as the report's inputs say it (of every question). */
function sharded(tasks: EvalTask[], shard: Shard | undefined): Pick<PreparedEvalRun, 'allTasks' | 'tasks' | 'shardInfo'> {
  return {
    allTasks: tasks,
    tasks: shardOf(tasks, shard, (task) => task.question.index),
    shardInfo: shard && shardInfo(shard, tasks.length),
  };
}

/**
 * What runs the SQL, asked before any question (a server that cannot be reached is refused, naming --db-url); on
 * a one-database server, the databases it lacks are skipped from now on, as missing SQLite files are (not gold errors).
 */
export async function describeRunEngine(
  settings: { source: DatabaseSource },
  tasks: readonly Pick<EvalTask, 'question' | 'goldSql'>[],
): Promise<EngineDescription> {
  const engine = await settings.source.describe().catch((error: Error) => {
    if (error instanceof EmbeddedUnavailable) throw new RunRefused('--engine', error.message, error.message);
    throw serverUnreachable(settings.source, '--db-url', error);
  });
  settings.source = await withLoadedDatabasesOnly(settings.source, engine, tasks);
  return engine;
}

export interface EvalRunHooks {
  signal?: AbortSignal;
  /** A question's result is final (in no fixed order; timed pairs after the timing passes). */
  onResult?: (result: QuestionResult) => void;
  /** A final result a checkpoint may keep: not one the run's failure made (not run: server gone; timing cut off). */
  onKeep?: (result: QuestionResult) => void;
  onProgress?: (progress: EvalProgress) => void;
  /** Something the person should know before the results (the gold cache is off, and why). */
  onNote?: (note: string) => void;
}

export interface ScoredEvalRun {
  results: QuestionResult[];
  goldCache?: GoldResultCache;
  /** The gold cache's counts once scoring is over, said ("gold results: N taken from the cache, …"). */
  goldCacheLine?: string;
  /** The database server went away during the run: its message (the questions after it are not run). */
  serverLost?: string;
}

/** What a whole run asks beyond scoring: a resumed run's results, a step of the face's before the summary. */
export interface FinishHooks extends EvalRunHooks {
  /** Results a resumed run already has (its checkpoint's), by question index: not scored again, reported in their place. */
  resumed?: ReadonlyMap<number, QuestionResult>;
  /** After an interruption: the results the face kept before the signal (its checkpoint's); default: those passed on before it. */
  kept?: () => ReadonlyMap<number, QuestionResult>;
  /** Scoring is over (the progress bar ends, the gold cache's counts are known). */
  onScored?: (scored: ScoredEvalRun) => void;
  /** A step over the scored results before the summary (the CLI's counterexample search); not after an interruption. */
  afterScoring?: (results: QuestionResult[], tasks: readonly EvalTask[]) => Promise<RobustnessRun | undefined>;
  /** Attach each question's plan cost (a report will hold it); always under plan-cost efficiency. */
  planCosts?: boolean;
}

export interface FinishedEvalRun extends ScoredEvalRun {
  /** In question order: the resumed ones and this run's (interrupted: those finished before the signal). */
  results: QuestionResult[];
  /** The tasks of `results`, in the same order. */
  tasks: EvalTask[];
  /** The inputs' problems and what the results add about the databases. */
  problems: InputProblem[];
  summary: EvalSummary;
  interrupted: boolean;
  robustnessRun?: RobustnessRun;
  /** Questions the run's failure left not run or not timed (a lost server): --resume runs them again. */
  notRun: number;
  /** Every question scored by a working engine and none cut off by an interruption: the report is complete. */
  complete: boolean;
  /** The run scored nothing (no database found or readable): the line that says so. */
  nothingScored?: string;
}

/** The whole run after its preparation: scores what is not resumed, the face's step, the problems, the summary. */
export async function runEvalRun(run: PreparedEvalRun, hooks: FinishHooks = {}): Promise<FinishedEvalRun> {
  const resumed = hooks.resumed ?? new Map<number, QuestionResult>();
  const passedOn = new Map<number, QuestionResult>();
  const onResult = (result: QuestionResult) => {
    if (!hooks.signal?.aborted) passedOn.set(result.index, result);
    hooks.onResult?.(result);
    if (!fromRunFailure(result)) hooks.onKeep?.(result);
  };
  const toScore = run.tasks.filter((task) => !resumed.has(task.question.index));
  const scored = await scoreEvalRun(run, { ...hooks, onResult }, toScore, { planCosts: Boolean(hooks.planCosts) });
  hooks.onScored?.(scored);
  const interrupted = Boolean(hooks.signal?.aborted);
  const fresh = interrupted ? (hooks.kept?.() ?? passedOn) : new Map(scored.results.map((result) => [result.index, result]));
  const tasks = run.tasks.filter((task) => resumed.has(task.question.index) || fresh.has(task.question.index));
  const results = tasks.map((task) => resumed.get(task.question.index) ?? fresh.get(task.question.index)!);
  // Not after an interruption (its partial report is due now).
  const robustnessRun = interrupted ? undefined : await hooks.afterScoring?.(results, tasks);
  const problems = await concludeEvalRun(run, results, tasks, { planCosts: Boolean(hooks.planCosts) });
  const summary = withRobustnessRun(summarize(results, run.settings.metrics), robustnessRun);
  const notRun = results.filter(fromRunFailure).length;
  const complete = !interrupted && notRun === 0;
  return {
    ...scored,
    results,
    tasks,
    problems,
    summary,
    interrupted,
    robustnessRun,
    notRun,
    complete,
    nothingScored: nothingScored(results),
  };
}

/**
 * What a resumed run keeps of its checkpoint: never a result the failure of that run made (not run, timing cut
 * off), which is taken out of `resumed` to run again. Returns how many were taken out.
 */
export function withoutRunFailures(resumed: Map<number, QuestionResult>): number {
  const rerun = [...resumed].filter(([, result]) => fromRunFailure(result)).map(([index]) => index);
  for (const index of rerun) resumed.delete(index);
  return rerun.length;
}

/**
 * Scores `tasks` (default: the run's) as the settings say; with `planCosts` (always under plan-cost efficiency), each
 * question's plan cost too, explained on the lane that scored it.
 */
export async function scoreEvalRun(
  run: PreparedEvalRun,
  hooks: EvalRunHooks = {},
  tasks = run.tasks,
  options: { planCosts?: boolean } = {},
): Promise<ScoredEvalRun> {
  const { settings } = run;
  const planCosts = options.planCosts || settings.planCost ? new PlanCostReader() : undefined;
  const costed = planCostWanted(settings);
  const goldCache = goldCacheFor(settings.source.engine.name, settings.goldCache, hooks.onNote);
  let serverLost: string | undefined;
  const results = await evaluateTasks(tasks, {
    ...settings,
    goldCache,
    onServerUnavailable: (message) => (serverLost = message),
    signal: hooks.signal,
    onResult: hooks.onResult,
    onProgress: hooks.onProgress,
    // A database whose schema or plans cannot be read is left to attachPlanCosts, which says nothing either.
    onLane:
      planCosts &&
      (async (db, task, result) => {
        if (!costed(result)) return;
        const cost = await planCosts.costs(db, task).catch(() => undefined);
        if (cost) (result as ReportQuestion).plan_cost = cost;
      }),
  });
  return { results, goldCache, goldCacheLine: goldCache && goldCacheLine(goldCache.counts()), serverLost };
}

/**
 * Which questions' plan costs a report holds, each two EXPLAINs: under plan-cost efficiency every question's
 * (BIRD-Critic's verdict is per question); otherwise a timed pair's only, what the HTML report and compare draw
 * against its measured ms. Nothing reads any other: on a server an EX report's 280 EXPLAINs were a quarter of its
 * wall time (issue 33).
 */
function planCostWanted(settings: Pick<EvalRunSettings, 'planCost' | 'metrics'>): (result: QuestionResult) => boolean {
  return (result) => Boolean(settings.planCost) || isTimedPair(result, settings.metrics);
}

/**
 * What the results add: problems of the databases they ran on, and (with `planCosts`, always under plan-cost
 * efficiency) each question's plan cost, BIRD-Critic's verdict when the run compares plan costs.
 */
async function concludeEvalRun(
  run: PreparedEvalRun,
  results: QuestionResult[],
  tasks: readonly EvalTask[],
  options: { planCosts: boolean },
): Promise<InputProblem[]> {
  const { source } = run.settings;
  const problems = [...run.problems, ...databaseRunProblems(source, results)];
  const named = new Set(problems.map((p) => p.file));
  problems.push(...unusableDatabases(source, results).filter((p) => !named.has(p.file)));
  if (options.planCosts || run.settings.planCost)
    await attachPlanCosts(results, tasks, source, planCostWanted(run.settings), laneCount(run.settings.jobs, source, tasks.length));
  if (run.settings.planCost) {
    for (const result of results as ReportQuestion[]) if (result.plan_cost) result.plan_cost = plannerCostVerdict(result.plan_cost);
  }
  return problems;
}

/** The summary, its robustness marked incomplete when the counterexample search was interrupted. */
export function withRobustnessRun(summary: EvalSummary, robustnessRun: RobustnessRun | undefined): EvalSummary {
  if (!robustnessRun?.interrupted || !summary.robustness) return summary;
  return { ...summary, robustness: interruptedRobustness(summary.robustness, robustnessRun.total - robustnessRun.checked) };
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

/**
 * What a run takes where its face says nothing: the rows one result may have, and the questions scored at once
 * (VES_LENS_JOBS when set, else the cores): the CLI's option defaults and the editor's run alike.
 */
export function runDefaults(): { maxRows: number; jobs: number } {
  return { maxRows: DEFAULT_MAX_ROWS, jobs: defaultJobs() };
}

/**
 * Where each prediction of a file stands (0-based line), by the index of the question it answers (the editor's
 * report rows link to it): the line its `where` names, else its entry's in a JSON file; none when unreadable.
 */
export function predictionLines(file: string, predictions: PredictionFile, questions: readonly Question[]): Map<number, number> {
  let entryLines: number[] = [];
  if (predictions.format !== 'lines') {
    try {
      entryLines = topLevelEntryLines(fs.readFileSync(file, 'utf8'));
    } catch {
      // no locations: the report still lists every question
    }
  }
  const lineOf = (index: number) => {
    const stated = /line (\d+)/.exec(predictions.predictions[index]?.where ?? '')?.[1];
    return stated ? Number(stated) - 1 : entryLines[index] !== undefined ? entryLines[index] - 1 : undefined;
  };
  const byQuestion = new Map<number, number>();
  if (predictions.pairing === 'question_id') {
    const firstById = new Map<string, number>();
    predictions.predictions.forEach((p, i) => {
      if (!firstById.has(String(p.questionId))) firstById.set(String(p.questionId), i);
    });
    for (const question of questions) {
      const i = firstById.get(String(question.questionId));
      const line = i === undefined ? undefined : lineOf(i);
      if (line !== undefined) byQuestion.set(question.index, line);
    }
  } else {
    for (const question of questions) {
      const line = lineOf(question.index);
      if (line !== undefined) byQuestion.set(question.index, line);
    }
  }
  return byQuestion;
}

/** The questions scored at once (the cores without --jobs), and libuv's pool widened so that many can read at once. */
export function runJobs(jobs: number | undefined): number {
  const lanes = jobs ?? defaultJobs();
  widenThreadPool(lanes);
  return lanes;
}

/** `--metrics a,b`: the metrics in their canonical order, or what is wrong with the list. */
export function parseMetricList(text: string): Metric[] | { error: string } {
  const metrics = text
    .split(',')
    .map((m) => m.trim().toLowerCase())
    .filter(Boolean);
  const unknown = metrics.find((m) => !METRICS.includes(m as Metric));
  if (unknown !== undefined) return { error: `unknown metric ${quoted(unknown)} (choose from ${METRICS.join(', ')})` };
  if (metrics.length === 0) return { error: 'name at least one metric' };
  return METRICS.filter((m) => metrics.includes(m));
}
