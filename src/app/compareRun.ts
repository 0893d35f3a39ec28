/**
 * The compare use case (`ves-lens compare`, cli/compareCommand.ts; the editor's Compare does the same steps): eval
 * reports read and named by their file names (made unique), then set side by side with an interval on every
 * difference. Returns the typed comparison; its renderers below draw it as terminal text, the JSON report and the
 * HTML page.
 */
import { LoadedReport, loadEvalReport, uniqueLabels } from '../core/eval/reportFile';
import { CompareOptions, compareRuns, comparisonJson, RunComparison } from '../core/report/compareRuns';
import { comparisonText } from '../core/report/compareText';
import { compareHtml } from '../core/report/htmlReports';

export interface ComparedReports {
  /** The reports in the order given (the first the baseline), each with its label. */
  runs: LoadedReport[];
  comparison: RunComparison;
}

/** Reads the eval reports (a file that is not one is an InputFileError naming it) and compares them. */
export function compareReportFiles(files: readonly string[], settings: CompareOptions = {}): ComparedReports {
  const labels = uniqueLabels(files);
  const runs = files.map((file, i) => ({ ...loadEvalReport(file), label: labels[i] }));
  return { runs, comparison: compareRuns(runs, settings) };
}

/** The comparison as the terminal shows it. */
export const comparedText = (compared: ComparedReports): string => comparisonText(compared.comparison);

/** The comparison's fields of the JSON report (snake_case, as written). */
export const comparedJson = (compared: ComparedReports) => comparisonJson(compared.comparison);

/** The comparison as a self-contained HTML page; `page`: where it is written (its links are relative to it). */
export const comparedHtml = (compared: ComparedReports, page?: string): string =>
  compareHtml(
    compared.runs.map((run) => ({ label: run.label, file: run.file, report: run.report })),
    compared.comparison,
    page,
  );
