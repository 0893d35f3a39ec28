import { LoadedReport } from './reportFile';

/**
 * A report written by an interrupted run (`"complete": false`: Ctrl-C or SIGTERM, cli/resumableRun.ts): it
 * holds only the questions finished before the signal, and must never be shown as a whole run.
 */
export interface IncompleteRun {
  file: string;
  label: string;
  /** Questions the report holds. */
  held: number;
  /** Questions the whole run has (`expected_questions`); null in a report that does not say. */
  expected: number | null;
}

/** The reports among `runs` that an interrupted run wrote. */
export function incompleteRuns(runs: readonly LoadedReport[]): IncompleteRun[] {
  return runs.flatMap(({ file, label, report }) => {
    if (report.complete !== false) return [];
    const expected = typeof report.expected_questions === 'number' ? report.expected_questions : null;
    return [{ file, label, held: report.questions.length, expected }];
  });
}

/** "incomplete run: N of M questions", one wording wherever a partial report is shown. */
export function incompleteRunText(run: IncompleteRun): string {
  const of = run.expected !== null ? `${run.held} of ${run.expected} questions` : `${run.held} questions, of more`;
  return `${run.label}: incomplete run: ${of} (interrupted; the same command with --resume finishes it)`;
}
