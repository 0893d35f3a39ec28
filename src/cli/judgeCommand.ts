import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import type { JudgedQuestion } from '../core/judge/judgeSummary';
import type { JudgeMethod } from '../core/judge/types';
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
import { toolInfo } from '../app/toolInfo';
import { emitJson } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';
import { checkScoringOptions, scoringInputsJson } from '../app/scoringInputs';
import {
  checkJudgeConcurrency,
  fatalModelFailure,
  judgeCacheDir,
  judgeMethod,
  judgeRunModel,
  PreparedJudgeRun,
  prepareJudgeRun,
  runJudgeRun,
} from '../app/judgeRun';
import { finishedJudgeReport, judgeHeader, judgeTerminal } from '../app/judgeReport';
import { checkCheckpointPath, fileOutput, interruptedLine, RESUME_NOTES } from './resumableRun';
import { inputFingerprint, startResumableRun } from '../app/resumableRun';
import { withoutRunFailures } from '../app/evalRun';

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

/** The option that would fix a fatal model error. */
const MODEL_FAILURE_OPTION = { key: '--api-key-env', model: '--endpoint or --model', endpoint: '--endpoint' } as const;

/** The judging's settings, checked before any work. */
function judgeSettings(options: JudgeCommandOptions) {
  const method: JudgeMethod = judgeMethod('--method', options.method);
  const endpoint = parseEndpoint(options.endpoint);
  if (!options.model.trim()) throw new UsageError('--model: give the model name the endpoint serves');
  const apiKey = apiKeyFrom(options.apiKeyEnv);
  const concurrency = positiveInteger('--concurrency', options.concurrency);
  checkJudgeConcurrency('--concurrency', concurrency);
  const timeoutMs = parseTimeoutMs('--timeout', options.timeout);
  const llmTimeoutMs = parseTimeoutMs('--llm-timeout', options.llmTimeout);
  const deadlineMs = parseTimeoutMs('--deadline', options.deadline ?? DEFAULT_JUDGE_DEADLINE_S);
  const maxRows = positiveInteger('--max-rows', options.maxRows);
  const retries = parseRetries(options.retries);
  const temperature = parseTemperature(options.temperature);
  return { method, endpoint, apiKey, concurrency, timeoutMs, llmTimeoutMs, deadlineMs, maxRows, retries, temperature };
}

/** The JSON report's inputs: the files, the engine and every setting of the judging. */
function judgeInputsJson(options: JudgeCommandOptions, parsed: ReturnType<typeof judgeSettings>, run: PreparedJudgeRun, resumed: number) {
  const { method, concurrency, timeoutMs, llmTimeoutMs, deadlineMs, maxRows, retries, temperature } = parsed;
  const { predictionFile, goldFrom, engine } = run;
  return {
    ...scoringInputsJson(options, { predictionFile, goldFrom }),
    engine,
    method,
    endpoint: run.modelUrl,
    model: options.model,
    temperature: temperature ?? null,
    concurrency,
    timeout_s: timeoutMs / 1000,
    llm_timeout_s: llmTimeoutMs / 1000,
    deadline_s: deadlineMs / 1000,
    retries,
    max_rows: maxRows,
    cache_dir: run.settings.cacheDir ?? null,
    ...(options.resume ? { resumed } : {}),
  };
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
  const cacheDir = judgeCacheDir(options.cache, options.cacheDir);
  if (options.cacheDir && !options.cache) throw new UsageError('--cache-dir and --no-cache: give one of them');

  const model = { provider: 'openai', url: endpoint, model: options.model } as const;
  // What runs the SQL, asked before any question: a server that cannot be reached stops here, naming --db-url.
  const prepared = await prepareJudgeRun(
    { ...options, goldFromOption },
    { source, method, model, timeoutMs, maxRows, concurrency, cacheDir },
  );
  const { predictionFile, goldFrom, tasks, engine } = prepared;

  const err = process.stderr;
  err.write(judgeHeader(prepared, options));

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
  withoutRunFailures(run.resumed);
  if (options.resume) err.write(`resuming: ${run.resumed.size} of ${tasks.length} questions taken from ${checkpointFile}\n`);
  bar?.start(tasks.filter((task) => !run.resumed.has(task.question.index)).length, 0, { phase: 'EX', last: '' });
  const chat = judgeRunModel(prepared, apiKey, {
    timeoutMs: llmTimeoutMs,
    maxRetries: retries,
    temperature,
    deadlineMs,
    deadlineHint: 'raise it with --deadline <seconds>',
  });
  let done = 0;
  const finished = await runJudgeRun(prepared, chat, {
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
      const failure = fatalModelFailure(error);
      if (failure)
        throw new UsageError(
          `${MODEL_FAILURE_OPTION[failure.cause]}: the model cannot be used (${options.model} at ${prepared.modelUrl}): ${failure.message}`,
        );
      throw error;
    })
    .finally(() => {
      bar?.stop();
      chat.close();
    });
  run.interrupt.dispose();
  const { questions, interrupted } = finished;
  // With the report on standard output, the table goes to standard error.
  const out = options.jsonStdout ? err : process.stdout;
  out.write(judgeTerminal(prepared, finished, source.engine.name === 'sqlite' ? 'under --db-root' : 'on the --db-url server'));

  if (options.json || options.jsonStdout) {
    const report = finishedJudgeReport(await toolInfo(), judgeInputsJson(options, parsed, prepared, run.resumed.size), finished);
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
  if (finished.nothingJudged) {
    err.write(`${pc.red('error')}: ${finished.nothingJudged}\n`);
    return EXIT.input;
  }
  return 0;
}
