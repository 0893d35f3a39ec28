import pc from 'picocolors';
import { mergedHtml, mergedTables, mergeShardFiles } from '../app/mergeRun';
import { checkOutputFile, UsageError } from './common';
import { writeOutputFile } from '../app/runOutputs';
import { emitJson, JsonDestination } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';

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
  const merged = mergeShardFiles(files);
  const { report, notes } = merged;
  // With the report on standard output, the tables go to standard error.
  const out = options.jsonStdout ? process.stderr : process.stdout;
  out.write(`${mergedTables(merged)}\n`);
  for (const p of report.headline_problems ?? []) out.write(`${pc.yellow('problem')}: ${p}\n`);
  for (const note of notes) process.stderr.write(`${pc.yellow('note')}: ${note}\n`);
  process.stderr.write(`merged ${files.length} shards: ${report.questions.length} questions\n`);
  emitJson(options, report, JSON_SHAPES.merge);
  if (options.html) {
    writeOutputFile('--html', options.html, mergedHtml(merged, files[0], options.html));
    process.stderr.write(`wrote ${options.html}\n`);
  }
  return 0;
}
