/**
 * The report slice: a whole prediction file evaluated as `ves-lens eval` does, its rows streamed to the Report
 * panel as they are final (a cancelled run keeps and returns what it scored), each row located in its file; and
 * eval reports compared as `ves-lens compare` does, as core's comparison page.
 */
import * as fs from 'fs';
import { topLevelEntryLines } from '../../core/bird/jsonFile';
import { DIALECT_NAMES, dialectMismatch, dialectMismatchText } from '../../core/sql/dialect';
import { formatProblem } from '../../core/bird/problems';
import { defaultJobs } from '../../core/eval/parallelEval';
import { goldCacheLine } from '../../core/eval/goldResultCache';
import { loadEvalReport, uniqueLabels } from '../../core/eval/reportFile';
import { incompleteRuns, incompleteRunText } from '../../core/eval/runCompleteness';
import { Metric, QuestionResult } from '../../core/eval/types';
import { compareRuns } from '../../core/report/compareRuns';
import { compareHtml } from '../../core/report/htmlReports';
import {
  CompareReportsParams,
  CompareReportsResult,
  EvaluateFileParams,
  EvaluateFileResult,
  ReportRow,
  VesLensErrorCodes,
} from '../../shared/protocol';
import { PreparedEvalRun, prepareEvalRun, runEvalRun } from '../../app/evalRun';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { UserError } from '../errors';
import { reportRow } from '../../app/scoreExplanations';
import { editorEvalReport } from './evalReportJson';

type Predictions = PreparedEvalRun['predictionFile'];

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

  /** Where each prediction stands in its file (0-based line), by the question it answers. */
  private predictionLines(file: string, predictions: Predictions): Map<number, number> {
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
    const questions = this.context.state.questions;
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
          jobs: Math.min(defaultJobs(), EDITOR_MAX_JOBS),
          // Gold results kept between runs, as `ves-lens eval` keeps them (SQLite; VES_LENS_NO_GOLD_CACHE=1 turns it off).
          goldCache: true,
        },
      );
    } catch (error) {
      throw new UserError(editorText((error as Error).message), VesLensErrorCodes.badInput);
    }
    const { tasks, predictionFile: predictions, problems } = run;
    // The dataset's gold or this file in another dialect than the engine would fail or differ, each pair scored 0.
    const mismatch = dialectMismatch(source.engine.name, [
      { label: "the dataset's gold", queries: tasks.map((task) => task.goldSql ?? '') },
      { label: params.predictionsFile, queries: tasks.map((task) => task.predictedSql ?? '') },
    ]);
    if (mismatch)
      throw new UserError(
        dialectMismatchText(
          mismatch,
          `set vesLens.engine to ${mismatch.reading.dialect}${mismatch.reading.dialect === 'postgres' ? ' (a server in vesLens.postgres.url, or the embedded one)' : ''}, or attach the ${DIALECT_NAMES[mismatch.engine]} gold and predictions`,
        ),
        VesLensErrorCodes.badInput,
      );
    const sqlByIndex = new Map(tasks.map((task) => [task.question.index, task.predictedSql ?? '']));
    const lines = this.predictionLines(params.predictionsFile, predictions);
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
    const { results, summary, goldCache, interrupted } = finished;
    this.context.log(
      `evaluated ${params.predictionsFile}: ${results.length} of ${tasks.length} questions${interrupted ? ' (cancelled)' : ''}` +
        (goldCache ? `; ${goldCacheLine(goldCache.counts())}` : ''),
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
    const labels = uniqueLabels(files);
    // A report of an interrupted run holds part of its questions: said first, in the bar or the refusal.
    let incomplete: string[] = [];
    try {
      const runs = files.map((file, i) => ({ ...loadEvalReport(file), label: labels[i] }));
      incomplete = incompleteRuns(runs).map(incompleteRunText);
      const comparison = compareRuns(runs);
      this.context.log(`compared ${labels.join(' vs ')}: ${comparison.compared} of ${comparison.questions} questions`);
      const html = compareHtml(runs, comparison);
      return { html, labels, compared: comparison.compared, questions: comparison.questions, ...(incomplete.length ? { incomplete } : {}) };
    } catch (error) {
      // Not a report, a question or prediction file, reports of other questions: core names the file and why.
      const message = [...incomplete, (error as Error).message].join('; ');
      throw new UserError(editorText(message), VesLensErrorCodes.badInput);
    }
  }
}
