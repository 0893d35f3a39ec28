/**
 * The merge use case (`ves-lens merge`, cli/mergeCommand.ts): the shard reports of `eval --shard i/n` read and
 * merged into the report one unsharded run writes, with the database check eval runs over all its questions (a
 * shard sees only its part) and the summary computed again from them. Returns the typed result; its renderers
 * below draw the terminal tables and the HTML page.
 */
import { formatProblem } from '../core/bird/problems';
import { sqliteFolder } from '../core/db/source';
import { EvalSummary, summarize } from '../core/eval/evalSummary';
import { EvalReportJson, loadEvalReport } from '../core/eval/reportFile';
import { completeness } from '../core/eval/reportJson';
import { mergeShardReports, UNUSABLE_DATABASE } from '../core/eval/shardMerge';
import { Metric, METRICS, QuestionResult } from '../core/eval/types';
import { evalHtml } from '../core/report/htmlReports';
import { outcomeTable, scoreTable } from '../core/report/terminal';
import { unusableDatabases } from './evalRun';
import { RunRefused } from './runRefused';

export interface MergedRun {
  /** The merged report, complete (a partial shard is refused), as `eval --json` writes it. */
  report: EvalReportJson & { complete: boolean };
  /** Things worth saying that did not stop the merge (different tool versions, top-level keys dropped). */
  notes: string[];
  summary: EvalSummary;
  /** The metrics the shards were scored with. */
  metrics: Metric[];
}

/**
 * Reads and merges the shard reports. A file that is no shard, shards of different runs, a missing or repeated
 * shard: an InputFileError naming the file; the partial report of an interrupted run: RunRefused.
 */
export function mergeShardFiles(files: readonly string[]): MergedRun {
  const shards = files.map((file) => loadEvalReport(file, 'eval shard report'));
  const partial = shards.find((shard) => shard.report.complete === false);
  if (partial)
    throw new RunRefused(
      partial.file,
      'the partial report of an interrupted run',
      `merge: ${partial.file} is the partial report of an interrupted run ("complete": false): finish it with the same eval command and --resume`,
    );
  const { report: merged, notes } = mergeShardReports(shards, (questions, inputs) => {
    // The database check `eval` runs over its results, now over all of them (a shard sees only its part).
    // As in eval, a database another problem names already is not named again.
    const stated = shards.flatMap((s) => s.report.problems ?? []).filter((p) => !UNUSABLE_DATABASE.test(p));
    return unusableDatabases(sqliteFolder(String(inputs.db_root ?? '')), questions)
      .filter((p) => !stated.some((text) => text.startsWith(`${p.file}:`) || text.startsWith(`${p.file} (`)))
      .map(formatProblem);
  });
  // Every shard was complete (a partial one is refused above): so is the merged report.
  const report = completeness(merged, true);
  const metrics = ((report.inputs?.metrics as string[] | undefined) ?? METRICS).filter((m): m is Metric => METRICS.includes(m as Metric));
  return { report, notes, summary: summarize(report.questions as QuestionResult[], metrics), metrics };
}

/** The merged run's scores and outcomes as the terminal shows them (eval's two tables). */
export const mergedTables = (merged: MergedRun): string => `${scoreTable(merged.summary, merged.metrics)}\n${outcomeTable(merged.summary)}`;

/** The merged run as eval's HTML page, named by its prediction file (else the first shard); `page`: where it is written. */
export function mergedHtml(merged: MergedRun, firstFile: string, page?: string): string {
  const label = String(merged.report.inputs?.predictions ?? firstFile)
    .split(/[\\/]/)
    .pop()!;
  return evalHtml({ label, report: merged.report }, page);
}
