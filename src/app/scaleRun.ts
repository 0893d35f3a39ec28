/**
 * The scale use case (`ves-lens scale`, cli/scaleCommand.ts): a SQLite database copied with n times its rows, the
 * keys of each replica shifted alike (BIRD's tables file adds the keys its databases do not declare).
 * `prepareScaleRun` checks the output against the inputs before any work; a refused path or database is a
 * RunRefused with core's message.
 * Returns the typed report and its JSON form; the face renders it.
 */
import { checkOutputAgainstInputs, OutputClash } from '../core/io/outputPaths';
import { ScaleError, scaleDatabase, ScaleReport } from '../core/scale/scaleDatabase';
import { scaleReportJson } from '../core/scale/scaleReportJson';
import { RunRefused } from './runRefused';

export interface ScaleRunSettings {
  /** The SQLite database to copy. */
  source: string;
  factor: number;
  /** The copy's path (never the source, nor an input; an existing file only with `overwrite`). */
  out: string;
  /** BIRD's tables file: the keys it names are shifted too. */
  schemaFile?: string;
  /** The database's entry in the tables file (default: the file's name). */
  dbId?: string;
  overwrite?: boolean;
}

export interface ScaledCopy {
  report: ScaleReport;
  /** The report as `scale --json` writes it. */
  json: ReturnType<typeof scaleReportJson>;
}

/** Checks the copy's path against the inputs before any work (--out by real path; scaleDatabase refuses the source itself). */
export function prepareScaleRun(settings: ScaleRunSettings): void {
  try {
    checkOutputAgainstInputs('--out', settings.out, [{ label: '--schema', file: settings.schemaFile }]);
  } catch (error) {
    throw error instanceof OutputClash ? new RunRefused('--out', error.message, error.message) : error;
  }
}

/** Writes the scaled copy; `onProgress` hears each step (0 of total first). */
export async function scaleRun(
  settings: ScaleRunSettings,
  onProgress?: (done: number, total: number, label: string) => void,
): Promise<ScaledCopy> {
  const { source, factor, out, schemaFile, dbId, overwrite } = settings;
  try {
    const report = await scaleDatabase(source, factor, out, { schemaFile, dbId, overwrite, onProgress });
    return { report, json: scaleReportJson(report) };
  } catch (error) {
    throw error instanceof ScaleError ? new RunRefused('scale', error.message, error.message) : error;
  }
}
