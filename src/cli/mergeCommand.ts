import pc from 'picocolors';
import { formatProblem } from '../core/bird/problems';
import { mergeShardReports, UNUSABLE_DATABASE } from '../core/eval/shardMerge';
import { summarize } from '../core/eval/evalSummary';
import { Metric, METRICS, QuestionResult } from '../core/eval/types';
import { loadEvalReport } from '../core/eval/reportFile';
import { evalHtml } from '../core/report/htmlReports';
import { outcomeTable, scoreTable } from '../core/report/terminal';
import { checkOutputFile, UsageError, writeOutputFile } from './common';
import { emitJson, JsonDestination } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';
import { unusableDatabases } from '../app/evalRun';
import { completeness } from './resumableRun';
import { sqliteFolder } from '../core/db/source';

export interface MergeCommandOptions extends JsonDestination {
  html?: string;
}

/** `ves-lens merge shard-1.json ... shard-n.json --json all.json`: the shards of `eval --shard i/n` as one run's report. */
export async function runMerge(files: string[], options: MergeCommandOptions): Promise<number> {
  if (files.length === 0) throw new UsageError('merge: give the shard reports written by `ves-lens eval --shard i/n --json ...`');
  if (!options.json && !options.jsonStdout && !options.html)
    throw new UsageError(
      'merge: say where to write the merged report: --json <file> (or --json alone: standard output) and/or --html <file>',
    );
  if (options.json) checkOutputFile('--json', options.json, files);
  if (options.html) checkOutputFile('--html', options.html, [...files, options.json]);
  const shards = files.map((file) => loadEvalReport(file, 'eval shard report'));
  const partial = shards.find((shard) => shard.report.complete === false);
  if (partial)
    throw new UsageError(
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
  const summary = summarize(report.questions as QuestionResult[], metrics);
  // With the report on standard output, the tables go to standard error.
  const out = options.jsonStdout ? process.stderr : process.stdout;
  out.write(`${scoreTable(summary, metrics)}\n${outcomeTable(summary)}\n`);
  for (const p of report.headline_problems ?? []) out.write(`${pc.yellow('problem')}: ${p}\n`);
  for (const note of notes) process.stderr.write(`${pc.yellow('note')}: ${note}\n`);
  process.stderr.write(`merged ${files.length} shards: ${report.questions.length} questions\n`);
  emitJson(options, report, JSON_SHAPES.merge);
  if (options.html) {
    writeOutputFile(
      '--html',
      options.html,
      evalHtml(
        {
          label: String(report.inputs?.predictions ?? files[0])
            .split(/[\\/]/)
            .pop()!,
          report,
        },
        options.html,
      ),
    );
    process.stderr.write(`wrote ${options.html}\n`);
  }
  return 0;
}
