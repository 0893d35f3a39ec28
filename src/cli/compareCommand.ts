import { comparedHtml, comparedJson, comparedText, compareReportFiles } from '../app/compareRun';
import { checkOutputFile, positiveInteger, positiveNumber, UsageError } from './common';
import { quoted } from '../core/text/problemText';
import { writeOutputFile } from '../app/runOutputs';
import { toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';

export interface CompareCommandOptions extends JsonDestination {
  html?: string;
  seed?: string;
  resamples?: string;
  much?: string;
}

/** `ves-lens compare a.json b.json [...]`: eval reports of the same questions side by side, with intervals on every difference. */
export async function runCompare(files: string[], options: CompareCommandOptions): Promise<number> {
  if (files.length < 2) throw new UsageError('compare: give at least two eval JSON reports (written by `ves-lens eval --json`)');
  let seed: number | undefined;
  if (options.seed !== undefined) {
    if (!/^\d+$/.test(options.seed.trim())) throw new UsageError(`--seed: expected a whole number, got ${quoted(options.seed)}`);
    seed = Number(options.seed);
  }
  const resamples = options.resamples === undefined ? undefined : positiveInteger('--resamples', options.resamples);
  if (resamples !== undefined && resamples > 1_000_000)
    throw new UsageError(`--resamples: at most 1000000, got ${quoted(options.resamples!)}`);
  const muchFactor = options.much === undefined ? undefined : positiveNumber('--much', options.much);
  if (muchFactor !== undefined && muchFactor <= 1) throw new UsageError(`--much: a factor above 1, got ${quoted(options.much!)}`);
  if (options.json) checkOutputFile('--json', options.json, files);
  if (options.html) checkOutputFile('--html', options.html, [...files, options.json]);

  const compared = compareReportFiles(files, { seed, resamples, muchFactor });

  if (options.html) {
    writeOutputFile('--html', options.html, comparedHtml(compared, options.html));
    process.stderr.write(`wrote ${options.html}\n`);
  }
  if (!options.jsonStdout) process.stdout.write(comparedText(compared) + '\n');
  if (options.json || options.jsonStdout) emitJson(options, { tool: await toolInfo(), ...comparedJson(compared) }, JSON_SHAPES.compare);
  return 0;
}
