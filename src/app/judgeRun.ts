/**
 * The judge use case (`ves-lens judge`): `prepareJudgeRun` reads and pairs the inputs as eval does; `runJudgeRun`
 * scores EX for every pair not resumed, asks the model (ROSE's judge, core/judge/) about every pair whose
 * database is there, and returns the judged questions in question order with their summary and the databases'
 * problems. The face chooses the model (an OpenAI-compatible endpoint on the command line) and renders.
 */
import { InputProblem } from '../core/bird/problems';
import { EvalTask, GoldSource } from '../core/bird/tasks';
import { DatabaseSource, EngineDescription } from '../core/db/source';
import { describeRunEngine } from './evalRun';
import { databaseRunProblems, sqliteDbRootProblems } from '../core/eval/databaseProblems';
import { evaluateTasks, EvalProgress } from '../core/eval/evaluate';
import { QuestionResult } from '../core/eval/types';
import { fromRunFailure } from '../core/eval/runFailure';
import { DatabaseFactsCache } from '../core/judge/dbInfo';
import { JudgedQuestion, JudgeSummary, summarizeJudge } from '../core/judge/judgeSummary';
import { JudgePairInput } from '../core/judge/judgePair';
import { judgeAll } from '../core/judge/runJudge';
import { JudgeMethod, JudgeOutcome } from '../core/judge/types';
import { ChatModel, ChatModelError } from '../core/llm/chatModel';
import { ReplyCache } from '../core/llm/replyCache';
import { checkDialects, loadScoringInputs, ScoringInputOptions, ScoringInputs } from './scoringInputs';

export interface JudgeRunSettings {
  source: DatabaseSource;
  method: JudgeMethod;
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
  return { ...scoring, settings, engine: await describeRunEngine(settings, scoring.tasks) };
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
  return { questions, summary: summarizeJudge(questions), problems, interrupted, notRun, total: tasks.length };
}
