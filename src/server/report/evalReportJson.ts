/**
 * The editor's evaluation as the report `ves-lens eval --json` writes (core's evalReport, `complete` beside `tool`):
 * what the Report panel's Export JSON saves, so that Compare in the editor and `ves-lens compare` read it back,
 * and what the editor recognises as a report, never as a prediction file.
 */
import packageJson from '../../../package.json';
import type { EvalInputs } from '../../core/eval/reportJson';
import { finishedEvalReport } from '../../app/evalReport';
import type { FinishedEvalRun, PreparedEvalRun } from '../../app/evalRun';
import type { EvalReportDocument } from '../../shared/protocol';
import { ServerContext } from '../context';

export function editorEvalReport(
  context: ServerContext,
  run: { predictionsFile: string; prepared: PreparedEvalRun; finished: FinishedEvalRun },
): EvalReportDocument {
  const { state } = context;
  const { predictionsFile, prepared, finished } = run;
  const dataset = state.dataset!;
  const settings = prepared.settings;
  // The engine as the CLI's report names it (never a password): without the status bar's one-line wording.
  const { line: _line, ...engine } = state.engine ?? { line: '' };
  const onSqlite = settings.source.engine.name === 'sqlite';
  const inputs: Omit<EvalInputs, 'gold_cache'> = {
    questions: dataset.questionsFile,
    predictions: predictionsFile,
    prediction_format: prepared.predictionFile.format,
    pairing: prepared.predictionFile.pairing,
    gold: dataset.goldFile ?? null,
    gold_from: dataset.goldFile ? 'gold-file' : 'questions',
    db_root: onSqlite ? dataset.dbRoot : null,
    ...(state.engine ? { engine: engine as EvalInputs['engine'] } : {}),
    metrics: settings.metrics,
    timing: settings.timing,
    efficiency: 'timed',
    timeout_s: settings.timeoutMs / 1000,
    max_rows: settings.maxRows,
  };
  const tool = { name: 'ves-lens', version: packageJson.version, sqlite: state.sqlite };
  return finishedEvalReport(tool, inputs, finished, prepared.tasks.length) as unknown as EvalReportDocument;
}
