/**
 * The agreement use case (`ves-lens agree`, cli/agreeCommand.ts): a file of human labels and a file of verdicts
 * (the judge's, ROSE's, or EX of an eval report) read and paired, with Cohen's κ and the confusion counts over the
 * pairs both have, and what could not be paired. Returns the typed report; the face renders it.
 */
import { agreement, AgreementReport, loadLabels, loadVerdicts } from '../core/judge/agreementFiles';

export interface AgreeRunSettings {
  /** The labels file: human verdicts on (question, SQL) pairs. */
  labels: string;
  /** The verdicts file: `judge --json`, ROSE's eval_results.json, or `eval --json`. */
  verdicts: string;
  /** Which verdict of a judge report: its judge score (the default) or its EX. */
  use?: 'judge' | 'ex';
}

/** Reads both files (one that cannot be used is an InputFileError naming it) and measures their agreement. */
export function agreeRun(settings: AgreeRunSettings): AgreementReport {
  return agreement(loadLabels(settings.labels), loadVerdicts(settings.verdicts, settings.use));
}
