/**
 * The report slice: a whole prediction file evaluated as `ves-lens eval` does, its rows streamed to the Report
 * panel as they are final (a cancelled run keeps and returns what it scored), each row located in its file; and
 * eval reports compared as `ves-lens compare` does, as core's comparison page.
 */
import { formatProblem } from '../../core/text/problemText';
import type { Metric, QuestionResult } from '../../core/eval/types';
import {
  CompareReportsParams,
  CompareReportsResult,
  EvaluateFileParams,
  EvaluateFileResult,
  ReportRow,
  VesLensErrorCodes,
} from '../../shared/protocol';
import { comparedHtml, compareReportsSayingIncomplete } from '../../app/compareRun';
import { PreparedEvalRun, predictionLines, prepareEvalRun, runDefaults, runEvalRun } from '../../app/evalRun';
import { otherDialectText, pairedQueries } from '../../app/scoringInputs';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { UserError } from '../errors';
import { reportRow } from '../../app/scoreExplanations';
import { editorEvalReport } from './evalReportJson';

/**
 * Lanes of an evaluation in the editor: libuv's pool has 4 threads (the server starts before it could be widened),
 * and the editor's own queries (plans, Score, schema reads) queue behind the lanes' in it: one is always left free.
 */
const EDITOR_MAX_JOBS = 3;

/**
 * Rows are sent at most this often (a 1500-question file must not send 1500 messages), and never held back longer;
 * the first row goes out at once (the Report panel shows nothing but its heading until it comes).
 */
const ROW_BATCH_MS = 250;

export class ReportProvider {
  constructor(private readonly context: ServerContext) {}

  async evaluateFile(
    params: EvaluateFileParams,
    signal?: AbortSignal,
    onRows?: (rows: ReportRow[], done: number, total: number) => void,
  ): Promise<EvaluateFileResult> {
    this.context.requireTrust();
    this.context.requireQuestions('evaluating a prediction file');
    const state = this.context.state;
    const source = state.source;
    if (!source) throw new UserError(`cannot evaluate: ${state.engineFailure}`, VesLensErrorCodes.noDatabase);
    const metrics = (params.metrics ?? ['ex', 'f1', 'ves', 'rves']) as Metric[];
    // The eval use case, as `ves-lens eval` runs it (src/app/evalRun.ts), on the dataset the editor holds.
    let run: PreparedEvalRun;
    try {
      run = await prepareEvalRun(
        {
          kind: 'dataset',
          questions: state.questions,
          goldSql: (question) => state.goldSql(question),
          predictions: params.predictionsFile,
        },
        {
          source,
          metrics,
          ...this.context.timing,
          ...(params.timing ? { timing: params.timing } : {}),
          ...this.context.limits,
          // Correctness on the cores (lanes, parallelEval.ts); timing still runs alone after it. Typing stays smooth:
          // the lanes' SQL runs on libuv's threads, this thread only compares rows (bench/editor.ts measures it).
          jobs: Math.min(runDefaults().jobs, EDITOR_MAX_JOBS),
          // Gold results kept between runs, as `ves-lens eval` keeps them (SQLite; VES_LENS_NO_GOLD_CACHE=1 turns it off).
          goldCache: true,
        },
      );
    } catch (error) {
      throw new UserError(editorText((error as Error).message), VesLensErrorCodes.badInput);
    }
    const { tasks, predictionFile: predictions, problems } = run;
    // The dataset's gold or this file in another dialect than the engine would fail or differ, each pair scored 0.
    const mismatch = otherDialectText(
      source.engine.name,
      pairedQueries(tasks, "the dataset's gold", params.predictionsFile),
      (read, engineName) =>
        `set vesLens.engine to ${read}${read === 'postgres' ? ' (a server in vesLens.postgres.url, or the embedded one)' : ''}, or attach the ${engineName} gold and predictions`,
    );
    if (mismatch) throw new UserError(mismatch, VesLensErrorCodes.badInput);
    const sqlByIndex = new Map(tasks.map((task) => [task.question.index, task.predictedSql ?? '']));
    const lines = predictionLines(params.predictionsFile, predictions, state.questions);
    const toRow = (result: QuestionResult) => {
      const line = lines.get(result.index);
      return reportRow(result, sqlByIndex.get(result.index) ?? '', line === undefined ? undefined : { line, character: 0 }, editorText);
    };
    this.context.log(`evaluating ${params.predictionsFile}: ${tasks.length} questions`);
    // Rows go out in batches; a cancelled run still returns what it scored (runEvalRun keeps it).
    let done = 0;
    let batch: ReportRow[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (batch.length) onRows?.(batch, done, tasks.length);
      batch = [];
    };
    const finished = await runEvalRun(run, {
      signal,
      onNote: (note) => this.context.log(note),
      onResult: (result) => {
        done++;
        batch.push(toRow(result));
        if (done === 1) flush();
        else timer ??= setTimeout(flush, ROW_BATCH_MS);
      },
    }).finally(flush);
    const { results, summary, goldCacheLine, interrupted } = finished;
    this.context.log(
      `evaluated ${params.predictionsFile}: ${results.length} of ${tasks.length} questions${interrupted ? ' (cancelled)' : ''}` +
        (goldCacheLine ? `; ${goldCacheLine}` : ''),
    );
    return {
      summary,
      questions: results.map(toRow),
      problems: problems.map((p) => editorText(formatProblem(p))),
      sqlite: state.sqlite,
      engine: state.engineLine,
      partial: interrupted,
      total: tasks.length,
      metrics,
      report: editorEvalReport(this.context, { predictionsFile: params.predictionsFile, prepared: run, finished }),
    };
  }

  /** Eval reports compared (the first the baseline), refused with the file named when one is not a report of the same questions. */
  compareReports(params: CompareReportsParams): CompareReportsResult {
    const files = params.files;
    if (files.length < 2) throw new UserError('choose at least two eval JSON reports to compare', VesLensErrorCodes.badInput);
    const repeated = files.find((file, i) => files.indexOf(file) !== i);
    if (repeated) throw new UserError(`${repeated} is chosen twice: compare different reports`, VesLensErrorCodes.badInput);
    try {
      const compared = compareReportsSayingIncomplete(files);
      const { comparison, incomplete } = compared;
      const labels = compared.runs.map((run) => run.label);
      this.context.log(`compared ${labels.join(' vs ')}: ${comparison.compared} of ${comparison.questions} questions`);
      const html = comparedHtml(compared);
      return { html, labels, compared: comparison.compared, questions: comparison.questions, ...(incomplete.length ? { incomplete } : {}) };
    } catch (error) {
      // Not a report, a question or prediction file, reports of other questions: app/ names the file and why (and
      // which reports an interrupted run wrote, said first).
      throw new UserError(editorText((error as Error).message), VesLensErrorCodes.badInput);
    }
  }
}
