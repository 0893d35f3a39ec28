import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import { formatProblem, orderProblems } from '../core/text/problemText';
import { describeGoldSource } from '../core/bird/tasks';
import { JUDGE_CONCURRENCY_BOUND } from '../core/judge/judgePair';
import { judgeDetails, judgeTable, usageLine } from '../core/judge/report';
import type { JudgedQuestion } from '../core/judge/judgeSummary';
import { JUDGE_METHODS, JudgeMethod } from '../core/judge/types';
import { ChatModelError } from '../core/llm/chatModel';
import { chatCompletionsUrl, OpenAiChatModel } from '../core/llm/openAiChat';
import { defaultCacheDir } from '../core/llm/replyCache';
import { headlineProblems, problemList } from '../core/report/terminal';
import {
  checkOutputFile,
  databaseSource,
  EngineCliOptions,
  EXIT,
  positiveInteger,
  timeoutMs as parseTimeoutMs,
  UsageError,
} from './common';
import { quoted } from '../core/text/problemText';
import { TOOL_NAME, TOOL_VERSION, toolInfo } from '../app/toolInfo';
import { emitJson } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';
import { fromRunFailure } from '../core/eval/runFailure';
import { checkScoringOptions, scoringInputsJson } from '../app/scoringInputs';
import { FinishedJudgeRun, PreparedJudgeRun, prepareJudgeRun, runJudgeRun } from '../app/judgeRun';
import { checkCheckpointPath, fileOutput, interruptedLine, RESUME_NOTES } from './resumableRun';
import { completeness } from '../core/eval/reportJson';
import { inputFingerprint, startResumableRun } from '../app/resumableRun';
import type { EngineDescription } from '../core/db/source';
import { engineLine } from '../core/text/engineText';
import { nothingScored } from '../core/eval/databaseProblems';

export interface JudgeCommandOptions extends EngineCliOptions {
  questions: string;
  predictions: string;
  gold?: string;
  goldFrom?: string;
  endpoint: string;
  model: string;
  apiKeyEnv?: string;
  concurrency: string;
  method: string;
  timeout: string;
  maxRows: string;
  llmTimeout: string;
  retries: string;
  temperature?: string;
  cacheDir?: string;
  /** false with --no-cache. */
  cache: boolean;
  json?: string;
  /** `--json` alone or `--json -`: the report on standard output, the table on standard error (cli/jsonOption.ts). */
  jsonStdout?: boolean;
  /** The whole judging's time with the endpoint, in seconds (the run stops, exit 2, when it passes). */
  deadline?: string;
  progress: boolean;
  /** Continue the run whose checkpoint is beside --json: its finished questions are not judged again. */
  resume?: boolean;
}

/** The judging's default deadline: a backstop, far above a real run's time; a dead endpoint stops long before. */
export const DEFAULT_JUDGE_DEADLINE_S = 12 * 3600;

/** The base URL of an OpenAI-compatible API: http(s) only. */
export function parseEndpoint(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--endpoint: not a URL: ${quoted(text)} (e.g. https://api.openai.com/v1 or http://localhost:11434/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--endpoint: expected an http or https URL, got ${quoted(text)}`);
  return text;
}

/** The key named by --api-key-env (which must then be set), else OPENAI_API_KEY if set, else none (local servers). */
export function apiKeyFrom(variable: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (variable === undefined) return env.OPENAI_API_KEY || undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
    throw new UsageError(`--api-key-env: expected the name of an environment variable, got ${quoted(variable)}`);
  const key = env[variable];
  if (!key) throw new UsageError(`--api-key-env: the environment variable ${variable} is not set`);
  return key;
}

function parseMethod(text: string): JudgeMethod {
  if (!JUDGE_METHODS.includes(text as JudgeMethod))
    throw new UsageError(`--method: expected one of ${JUDGE_METHODS.join(', ')}, got ${quoted(text)}`);
  return text as JudgeMethod;
}

function parseRetries(text: string): number {
  if (!/^\s*\d+\s*$/.test(text) || Number(text) > 20)
    throw new UsageError(`--retries: expected a whole number from 0 to 20, got ${quoted(text)}`);
  return Number(text);
}

function parseTemperature(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 2)
    throw new UsageError(`--temperature: expected a number from 0 to 2, got ${quoted(text)}`);
  return value;
}

/** A fatal model error names the option that would fix it. */
function modelUsageError(error: ChatModelError, endpoint: string, model: string): UsageError {
  const status = error.details.status;
  const option = status === 401 || status === 403 ? '--api-key-env' : status === 404 ? '--endpoint or --model' : '--endpoint';
  return new UsageError(`${option}: the model cannot be used (${model} at ${chatCompletionsUrl(endpoint)}): ${error.message}`);
}

/** The judging's settings, checked before any work. */
function judgeSettings(options: JudgeCommandOptions) {
  const method = parseMethod(options.method);
  const endpoint = parseEndpoint(options.endpoint);
  if (!options.model.trim()) throw new UsageError('--model: give the model name the endpoint serves');
  const apiKey = apiKeyFrom(options.apiKeyEnv);
  const concurrency = positiveInteger('--concurrency', options.concurrency);
  if (concurrency > JUDGE_CONCURRENCY_BOUND)
    throw new UsageError(
      `--concurrency: at most ${JUDGE_CONCURRENCY_BOUND} pairs at once (each holds two whole results; memory stays under 1 GiB)`,
    );
  const timeoutMs = parseTimeoutMs('--timeout', options.timeout);
  const llmTimeoutMs = parseTimeoutMs('--llm-timeout', options.llmTimeout);
  const deadlineMs = parseTimeoutMs('--deadline', options.deadline ?? DEFAULT_JUDGE_DEADLINE_S);
  const maxRows = positiveInteger('--max-rows', options.maxRows);
  const retries = parseRetries(options.retries);
  const temperature = parseTemperature(options.temperature);
  return { method, endpoint, apiKey, concurrency, timeoutMs, llmTimeoutMs, deadlineMs, maxRows, retries, temperature };
}

/** The JSON report of a judge run: its inputs and settings, the summary by group, problems and every question. */
async function judgeReport(
  options: JudgeCommandOptions,
  parsed: ReturnType<typeof judgeSettings>,
  run: {
    predictionFile: PreparedJudgeRun['predictionFile'];
    goldFrom: PreparedJudgeRun['goldFrom'];
    engine: EngineDescription;
    cacheDir?: string;
    resumed: number;
    finished: FinishedJudgeRun;
    skipped: number;
  },
) {
  const { method, endpoint, concurrency, timeoutMs, llmTimeoutMs, deadlineMs, maxRows, retries, temperature } = parsed;
  const { predictionFile, goldFrom, engine, cacheDir, skipped } = run;
  const { summary, problems, questions, interrupted, notRun } = run.finished;
  const groups = Object.fromEntries(summary.groups.map(({ group, ...rest }) => [group, rest]));
  return completeness(
    {
      tool: await toolInfo(),
      inputs: {
        ...scoringInputsJson(options, { predictionFile, goldFrom }),
        engine,
        method,
        endpoint: chatCompletionsUrl(endpoint),
        model: options.model,
        temperature: temperature ?? null,
        concurrency,
        timeout_s: timeoutMs / 1000,
        llm_timeout_s: llmTimeoutMs / 1000,
        deadline_s: deadlineMs / 1000,
        retries,
        max_rows: maxRows,
        cache_dir: cacheDir ?? null,
        ...(options.resume ? { resumed: run.resumed } : {}),
      },
      summary: {
        ...groups,
        skipped,
        branches: summary.branches,
        calls: summary.calls,
        cached_calls: summary.cached_calls,
        usage: summary.usage,
      },
      problems: orderProblems(problems).map(formatProblem),
      headline_problems: problems.filter((p) => p.headline).map(formatProblem),
      questions,
    },
    // Complete only when every question ran on a working engine (none left by a lost server).
    !interrupted && notRun === 0,
    run.finished.total,
  );
}

export async function runJudge(options: JudgeCommandOptions): Promise<number> {
  const parsed = judgeSettings(options);
  const { method, endpoint, apiKey, concurrency, timeoutMs, llmTimeoutMs, deadlineMs, maxRows, retries, temperature } = parsed;
  const goldFromOption = checkScoringOptions(options);
  const source = databaseSource(options);
  // Outputs are checked by real path against every input and the database folders (core/io/outputPaths.ts).
  const inputFiles = [
    { label: '--questions', file: options.questions },
    { label: '--predictions', file: options.predictions },
    { label: '--gold', file: options.gold },
  ];
  const databaseFolders = [{ label: '--db-root', folder: options.dbRoot }];
  const jsonFile = fileOutput(options.json);
  if (jsonFile) checkOutputFile('--json', jsonFile, inputFiles, databaseFolders);
  const checkpointFile = checkCheckpointPath(jsonFile, options.resume, inputFiles, databaseFolders);
  const cacheDir = options.cache ? (options.cacheDir ?? defaultCacheDir()) : undefined;
  if (options.cacheDir && !options.cache) throw new UsageError('--cache-dir and --no-cache: give one of them');

  const prepared = await prepareJudgeRun({ ...options, goldFromOption }, { source, method, timeoutMs, maxRows, concurrency, cacheDir });
  const { predictionFile, goldFile, goldFrom, tasks, engine } = prepared;
  // What runs the SQL, asked before any question: a server that cannot be reached stops here, naming --db-url.

  const err = process.stderr;
  err.write(
    `${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · ${engineLine(engine)} · judge ${method} with ${options.model} at ${chatCompletionsUrl(endpoint)}\n` +
      `${tasks.length} questions from ${options.questions}; predictions from ${options.predictions} (${predictionFile.format}, paired by ${predictionFile.pairing}); gold from ${describeGoldSource(goldFrom, goldFile, predictionFile)}\n` +
      `replies cached in ${cacheDir ?? '(no cache)'}\n`,
  );
  const atTop = headlineProblems(prepared.problems);
  if (atTop) err.write(atTop + '\n');

  const bar =
    options.progress && err.isTTY
      ? new SingleBar({ format: ' {bar} {value}/{total} · {phase} · {eta_formatted} left · {last}', hideCursor: true, stream: err })
      : undefined;
  // Finished questions go to a checkpoint as they finish; --resume judges only the others (cli/resumableRun.ts).
  const run = startResumableRun<JudgedQuestion>(
    'judge',
    checkpointFile,
    {
      ...inputFingerprint(
        inputFiles,
        options.dbRoot,
        tasks.map((task) => task.question.dbId),
      ),
      options: { ...scoringInputsJson(options, { predictionFile, goldFrom }), engine, method, endpoint, model: options.model },
      limits: { temperature: temperature ?? null, timeoutMs, maxRows },
    },
    Boolean(options.resume),
    `finishing the pairs under way, then writing what is finished${checkpointFile ? ' (--resume continues)' : ''}`,
    RESUME_NOTES,
  );
  // What the run's failure left (a question its lost server did not run) is no result: run again, never kept.
  for (const [index, result] of [...run.resumed]) if (fromRunFailure(result)) run.resumed.delete(index);
  if (options.resume) err.write(`resuming: ${run.resumed.size} of ${tasks.length} questions taken from ${checkpointFile}\n`);
  bar?.start(tasks.filter((task) => !run.resumed.has(task.question.index)).length, 0, { phase: 'EX', last: '' });
  // A dead endpoint (refused, hanging, an HTML page) stops the run after a few failures in a row: exit 2, not 0 for hours.
  const model = new OpenAiChatModel({
    endpoint,
    model: options.model,
    apiKey,
    timeoutMs: llmTimeoutMs,
    maxRetries: retries,
    temperature,
    failFast: { deadlineMs, deadlineHint: 'raise it with --deadline <seconds>' },
  });
  let done = 0;
  const finished = await runJudgeRun(prepared, model, {
    signal: run.interrupt.signal,
    resumed: run.resumed,
    kept: () => run.finished,
    onProgress: (progress) => bar?.update(progress.done),
    onJudging: (count) => {
      bar?.setTotal(count);
      bar?.update(0, { phase: 'judge', last: '' });
    },
    onQuestion: (question) => {
      run.finish(question.index, question);
      if (question.judge) bar?.update(++done, { last: `${question.question_id}: ${question.judge.score ?? 'no verdict'}` });
    },
  })
    .catch((error: unknown) => {
      if (error instanceof ChatModelError && error.fatal) throw modelUsageError(error, endpoint, options.model);
      throw error;
    })
    .finally(() => {
      bar?.stop();
      model.close();
    });
  run.interrupt.dispose();
  const { questions, summary, problems, interrupted } = finished;
  // With the report on standard output, the table goes to standard error.
  const out = options.jsonStdout ? err : process.stdout;
  out.write(judgeTable(summary) + '\n');
  const details = judgeDetails(questions, summary);
  if (details) out.write(details + '\n');
  const skipped = questions.filter((r) => r.outcome === 'skipped').length;
  if (skipped)
    out.write(
      `${pc.yellow('skipped')} ${skipped} question${skipped === 1 ? '' : 's'} whose database is not ${source.engine.name === 'sqlite' ? 'under --db-root' : 'on the --db-url server'}\n`,
    );
  const listed = problemList(problems);
  if (listed) out.write(listed + '\n');
  out.write(usageLine(options.model, summary) + '\n');

  if (options.json || options.jsonStdout) {
    const report = await judgeReport(options, parsed, {
      predictionFile,
      goldFrom,
      engine,
      cacheDir,
      resumed: run.resumed.size,
      finished,
      skipped,
    });
    emitJson(options, report, JSON_SHAPES.judge);
  }
  if (interrupted) {
    run.checkpoint?.close();
    err.write(interruptedLine(questions.length, tasks.length, jsonFile, run.checkpoint !== undefined && !run.checkpoint.failure));
    return run.interrupt.exitCode() ?? EXIT.input;
  }
  if (finished.notRun > 0) {
    run.checkpoint?.close(); // the rest is in it: --resume runs only what the lost server left
    err.write(
      `${pc.red('error')}: the database server went away during the run: ${finished.notRun} question${finished.notRun === 1 ? ' was' : 's were'} not run` +
        `${run.checkpoint ? '; --resume runs them when the server is back' : ''}\n`,
    );
    return EXIT.input;
  }
  run.checkpoint?.remove();
  const judgedNothing = nothingScored(questions, 'judged');
  if (judgedNothing) {
    err.write(`${pc.red('error')}: ${judgedNothing}\n`);
    return EXIT.input;
  }
  return 0;
}
