/**
 * The compare use case (`ves-lens compare`, cli/compareCommand.ts; the editor's Compare does the same steps): eval
 * reports read and named by their file names (made unique), then set side by side with an interval on every
 * difference (the editor's also says which reports an interrupted run wrote). Returns the typed comparison; its
 * renderers below draw it as terminal text, the JSON report and the HTML page.
 */
import { LoadedReport, loadEvalReport, uniqueLabels } from '../core/eval/reportFile';
import { incompleteRuns, incompleteRunText } from '../core/eval/runCompleteness';
import { CompareOptions, compareRuns, comparisonJson, RunComparison } from '../core/report/compareRuns';
import { comparisonText } from '../core/report/compareText';
import { compareHtml } from '../core/report/htmlReports';

export interface ComparedReports {
  /** The reports in the order given (the first the baseline), each with its label. */
  runs: LoadedReport[];
  comparison: RunComparison;
}

/** Reads the eval reports (a file that is not one is an InputFileError naming it), each labelled. */
function labelledReports(files: readonly string[]): LoadedReport[] {
  const labels = uniqueLabels(files);
  return files.map((file, i) => ({ ...loadEvalReport(file), label: labels[i] }));
}

/** Reads the eval reports (a file that is not one is an InputFileError naming it) and compares them. */
export function compareReportFiles(files: readonly string[], settings: CompareOptions = {}): ComparedReports {
  const runs = labelledReports(files);
  return { runs, comparison: compareRuns(runs, settings) };
}

export interface ComparedWholeRuns extends ComparedReports {
  /** The reports an interrupted run wrote (only part of its questions), each said ("label: incomplete run: …"). */
  incomplete: string[];
}

/**
 * The editor's Compare: as compareReportFiles, with the reports of interrupted runs said first: in the result, or
 * before the reason in the error's message when the reports cannot be compared (an Error naming the file and why).
 */
export function compareReportsSayingIncomplete(files: readonly string[]): ComparedWholeRuns {
  let incomplete: string[] = [];
  try {
    const runs = labelledReports(files);
    incomplete = incompleteRuns(runs).map(incompleteRunText);
    return { runs, comparison: compareRuns(runs), incomplete };
  } catch (error) {
    throw new Error([...incomplete, (error as Error).message].join('; '), { cause: error });
  }
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
