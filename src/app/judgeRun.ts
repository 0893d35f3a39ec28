/**
 * The judge use case (`ves-lens judge`): `prepareJudgeRun` reads and pairs the inputs as eval does; `runJudgeRun`
 * scores EX for every pair not resumed, asks the model (ROSE's judge, core/judge/) about every pair whose
 * database is there, and returns the judged questions in question order with their summary and the databases'
 * problems. The face parses its options into the settings (`judgeMethod`, `checkJudgeConcurrency`, `judgeCacheDir`),
 * builds the model with `judgeRunModel`, and renders with app/judgeReport.ts.
 */
import { InputProblem } from '../core/bird/problems';
import { EvalTask, GoldSource } from '../core/bird/tasks';
import { DatabaseSource, EngineDescription } from '../core/db/source';
import { describeRunEngine } from './evalRun';
import { databaseRunProblems, nothingScored, sqliteDbRootProblems } from '../core/eval/databaseProblems';
import { evaluateTasks, EvalProgress } from '../core/eval/evaluate';
import { QuestionResult } from '../core/eval/types';
import { fromRunFailure } from '../core/eval/runFailure';
import { DatabaseFactsCache } from '../core/judge/dbInfo';
import { JudgedQuestion, JudgeSummary, summarizeJudge } from '../core/judge/judgeSummary';
import { JUDGE_CONCURRENCY_BOUND, JudgePairInput } from '../core/judge/judgePair';
import { judgeAll } from '../core/judge/runJudge';
import { JUDGE_METHODS, JudgeMethod, JudgeOutcome } from '../core/judge/types';
import { ChatModel, ChatModelError } from '../core/llm/chatModel';
import { chatCompletionsUrl, type OpenAiChatModel, type OpenAiChatOptions } from '../core/llm/openAiChat';
import { defaultCacheDir, ReplyCache } from '../core/llm/replyCache';
import { quoted } from '../core/text/problemText';
import { RunRefused } from './runRefused';
import { fatalModelCause, openAiModel, type OpenAiModelSpec } from './statementJudge';
import { checkDialects, loadScoringInputs, ScoringInputOptions, ScoringInputs } from './scoringInputs';

export interface JudgeRunSettings {
  source: DatabaseSource;
  method: JudgeMethod;
  /** The model that judges: an OpenAI-compatible endpoint's. */
  model: OpenAiModelSpec;
  /** Limit for one query, and rows one result may have. */
  timeoutMs: number;
  maxRows: number;
  /** Pairs judged at once. */
  concurrency: number;
  /** Where the model's replies are kept between runs; undefined: none. */
  cacheDir?: string;
}

export interface PreparedJudgeRun extends ScoringInputs {
  settings: JudgeRunSettings;
  /** What runs the SQL, asked before any question. */
  engine: EngineDescription;
  /** The chat completions URL the model is asked at. */
  modelUrl: string;
}

/** The judging method named by `option`'s text (RunRefused naming the methods otherwise). */
export function judgeMethod(option: string, text: string): JudgeMethod {
  if (!JUDGE_METHODS.includes(text as JudgeMethod))
    throw new RunRefused(option, `expected one of ${JUDGE_METHODS.join(', ')}, got ${quoted(text)}`);
  return text as JudgeMethod;
}

/** Pairs judged at once: at most the bound that keeps the results in memory (RunRefused naming `option` otherwise). */
export function checkJudgeConcurrency(option: string, concurrency: number): void {
  if (concurrency > JUDGE_CONCURRENCY_BOUND)
    throw new RunRefused(
      option,
      `at most ${JUDGE_CONCURRENCY_BOUND} pairs at once (each holds two whole results; memory stays under 1 GiB)`,
    );
}

/** Where the model's replies are kept: the folder chosen, else the user's cache; none without the cache. */
export function judgeCacheDir(cache: boolean, chosen: string | undefined): string | undefined {
  return cache ? (chosen ?? defaultCacheDir()) : undefined;
}

/**
 * The run's model with the face's limits. `failFast`: a dead endpoint (refused, hanging, an HTML page) stops the
 * run after a few failures in a row, and the whole judging stops at its deadline.
 */
export function judgeRunModel(
  run: PreparedJudgeRun,
  apiKey: string | undefined,
  limits: Pick<OpenAiChatOptions, 'timeoutMs' | 'maxRetries' | 'temperature'> & { deadlineMs: number; deadlineHint: string },
): OpenAiChatModel {
  const { deadlineMs, deadlineHint, ...request } = limits;
  return openAiModel(run.settings.model, apiKey, { ...request, failFast: { deadlineMs, deadlineHint } });
}

/** A fatal model error (a wrong key, model or endpoint: the run cannot go on) as what to change and its message. */
export function fatalModelFailure(error: unknown): { cause: ReturnType<typeof fatalModelCause>; message: string } | undefined {
  if (error instanceof ChatModelError && error.fatal) return { cause: fatalModelCause(error), message: error.message };
  return undefined;
}

/** Reads and pairs the inputs (as eval pairs them); a --db-root that holds no question's database is a problem. */
export async function prepareJudgeRun(
  inputs: ScoringInputOptions & { goldFromOption?: GoldSource },
  settings: JudgeRunSettings,
): Promise<PreparedJudgeRun> {
  const scoring = loadScoringInputs(inputs, inputs.goldFromOption);
  checkDialects(inputs, scoring, settings.source.engine.name); // another dialect's SQL would fail or differ on this engine, scored 0
  const dbIds = scoring.tasks.map((task) => task.question.dbId);
  scoring.problems.push(...sqliteDbRootProblems(settings.source, inputs.dbRoot, dbIds));
  const engine = await describeRunEngine(settings, scoring.tasks);
  return { ...scoring, settings, engine, modelUrl: chatCompletionsUrl(settings.model.url) };
}

export interface JudgeRunHooks {
  signal?: AbortSignal;
  /** Results a resumed run already has (its checkpoint's), by question index: not judged again. */
  resumed?: ReadonlyMap<number, JudgedQuestion>;
  /** After an interruption: the questions the face kept before the signal (its checkpoint's). */
  kept?: () => ReadonlyMap<number, JudgedQuestion>;
  /** A question is final: skipped (no database) after EX, or judged. */
  onQuestion?: (question: JudgedQuestion) => void;
  /** EX is scored for every pair: `toJudge` pairs go to the model now. */
  onJudging?: (toJudge: number) => void;
  onProgress?: (progress: EvalProgress) => void;
}

export interface FinishedJudgeRun {
  /** In question order: the resumed ones and this run's (interrupted: those finished before the signal). */
  questions: JudgedQuestion[];
  summary: JudgeSummary;
  /** The inputs' problems and what the run learned of its databases (locked, damaged, not openable). */
  problems: InputProblem[];
  interrupted: boolean;
  /** Questions its lost server did not run (no result: --resume runs them). */
  notRun: number;
  /** Questions the run was to judge (the resumed ones too). */
  total: number;
  /** Questions not judged: their database is not there. */
  skipped: number;
  /** Why nothing was judged (every database missing or failing), if so: the run failed. */
  nothingJudged: string | undefined;
}

/**
 * EX, then the judge, for every pair not resumed. A fatal model error (a wrong key, model or endpoint) is thrown
 * as core's ChatModelError, after what was finished is passed on; a cancelled run ends with what was finished.
 */
export async function runJudgeRun(run: PreparedJudgeRun, model: ChatModel, hooks: JudgeRunHooks = {}): Promise<FinishedJudgeRun> {
  const { settings, tasks } = run;
  const resumed = hooks.resumed ?? new Map<number, JudgedQuestion>();
  const toJudge = tasks.filter((task) => !resumed.has(task.question.index));
  const judged = (result: QuestionResult, task: EvalTask, judge: JudgeOutcome | null): JudgedQuestion => ({
    ...result,
    predicted_sql: task.predictedSql ?? null,
    gold_sql: task.goldSql ?? null,
    judge,
  });
  const exResults = await evaluateTasks(toJudge, {
    source: settings.source,
    metrics: ['ex'],
    timing: 'fast',
    timeoutMs: settings.timeoutMs,
    maxRows: settings.maxRows,
    signal: hooks.signal,
    onProgress: hooks.onProgress,
  });
  const judgedIndexes: number[] = [];
  const inputs: JudgePairInput[] = [];
  exResults.forEach((result, i) => {
    const task = toJudge[i];
    // Not judged (its database is not there): final already.
    if (result.outcome === 'skipped') return hooks.onQuestion?.(judged(result, task, null));
    // Not run (its server went away): nothing to judge, and nothing to keep for --resume.
    if (fromRunFailure(result)) return;
    judgedIndexes.push(i);
    inputs.push({
      question: task.question.question,
      evidence: task.question.evidence,
      dbId: task.question.dbId,
      dbPath: settings.source.targetFor(task.question.dbId),
      predictedSql: task.predictedSql,
      goldSql: task.goldSql,
    });
  });
  hooks.onJudging?.(inputs.length);
  const byTask = new Map<number, JudgeOutcome>();
  await judgeAll(hooks.signal?.aborted ? [] : inputs, {
    model,
    method: settings.method,
    cache: settings.cacheDir ? new ReplyCache(settings.cacheDir) : undefined,
    timeoutMs: settings.timeoutMs,
    maxRows: settings.maxRows,
    concurrency: settings.concurrency,
    facts: new DatabaseFactsCache(),
    signal: hooks.signal,
    onResult: (index, outcome) => {
      const i = judgedIndexes[index];
      byTask.set(i, outcome);
      hooks.onQuestion?.(judged(exResults[i], toJudge[i], outcome));
    },
  }).catch((error: unknown) => {
    // judgeAll ends a cancelled run with a ChatModelError of its own: the interruption is the caller's to say.
    if (!hooks.signal?.aborted || (error instanceof ChatModelError && error.fatal)) throw error;
  });
  const interrupted = Boolean(hooks.signal?.aborted);
  const fresh = interrupted
    ? (hooks.kept?.() ?? new Map<number, JudgedQuestion>())
    : new Map(exResults.map((result, i) => [toJudge[i].question.index, judged(result, toJudge[i], byTask.get(i) ?? null)]));
  const questions = tasks.flatMap((task) => resumed.get(task.question.index) ?? fresh.get(task.question.index) ?? []);
  const problems = [...run.problems, ...databaseRunProblems(settings.source, questions)];
  const notRun = questions.filter(fromRunFailure).length;
  const skipped = questions.filter((r) => r.outcome === 'skipped').length;
  const nothingJudged = nothingScored(questions, 'judged');
  return { questions, summary: summarizeJudge(questions), problems, interrupted, notRun, total: tasks.length, skipped, nothingJudged };
}
