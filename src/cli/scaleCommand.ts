import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import pc from 'picocolors';
import { TABLE_STYLE } from '../core/text/tableStyle';
import type { KeyDomainReport, ScaleReport } from '../core/scale/scaleDatabase';
import { prepareScaleRun, ScaledCopy, ScaleRunSettings, scaleRun } from '../app/scaleRun';
import { checkOutputFile, UsageError } from './common';
import { TOOL_NAME, TOOL_VERSION, toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';

export interface ScaleCommandOptions extends JsonDestination {
  factor: string;
  out: string;
  schema?: string;
  dbId?: string;
  overwrite?: boolean;
  progress: boolean;
  engine?: string;
}

function parseFactor(text: string): number {
  const factor = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(factor) || factor < 1)
    throw new UsageError(`--factor: expected an integer of at least 1, got "${text}"`);
  return factor;
}

function howShifted(domain: KeyDomainReport): string {
  const ways = [];
  if (domain.width !== null) ways.push(`numbers + ${BigInt(domain.width).toLocaleString('en-US')} × replica`);
  if (domain.separator !== null) ways.push(`text + '${domain.separator}<replica>'`);
  return ways.length ? ways.join(', ') : 'no values';
}

function summary(report: ScaleReport): string {
  const table = new Table({
    head: ['table', 'rows', `rows ×${report.factor}`, 'shifted key columns'],
    style: TABLE_STYLE,
    colAligns: ['left', 'right', 'right', 'left'],
  });
  for (const t of report.tables) {
    table.push([
      t.name,
      t.rowsBefore.toLocaleString('en-US'),
      t.rowsAfter.toLocaleString('en-US'),
      t.keyColumns.map((k) => k.column).join(', '),
    ]);
  }
  const lines = [table.toString()];
  if (report.domains.length) {
    lines.push(pc.bold('keys shifted alike in each replica (replica 0 keeps the original values):'));
    for (const d of report.domains) lines.push(`  ${d.columns.join(', ')}: ${pc.dim(howShifted(d))}`);
  }
  for (const note of report.notes) lines.push(pc.yellow(`note: ${note}`));
  lines.push(`wrote ${report.output} (${(report.outputBytes / 2 ** 20).toFixed(1)} MiB) in ${report.seconds.toFixed(1)} s`);
  return lines.join('\n') + '\n';
}

export async function runScale(db: string, options: ScaleCommandOptions): Promise<number> {
  if (options.engine !== undefined && options.engine !== 'sqlite')
    throw new UsageError(
      `--engine ${options.engine}: scale writes SQLite files only; to time at scale on PostgreSQL, scale the SQLite file and load the copy (ves-lens load --from <folder of the copy> --to <url>)`,
    );
  const factor = parseFactor(options.factor);
  const err = process.stderr;
  if (options.json) checkOutputFile('--json', options.json, [db, options.schema, options.out]);
  const settings: ScaleRunSettings = {
    source: db,
    factor,
    out: options.out,
    schemaFile: options.schema,
    dbId: options.dbId,
    overwrite: options.overwrite,
  };
  prepareScaleRun(settings);
  if (!options.jsonStdout) err.write(`${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · ${db} ×${factor} → ${options.out}\n`);
  const bar =
    options.progress && err.isTTY ? new SingleBar({ format: ' {bar} {percentage}% · {label}', hideCursor: true, stream: err }) : undefined;
  let copy: ScaledCopy;
  try {
    copy = await scaleRun(settings, (done, total, label) => (done === 0 ? bar?.start(total, 0, { label }) : bar?.update(done, { label })));
  } finally {
    bar?.stop();
  }
  if (!options.jsonStdout) process.stdout.write(summary(copy.report));
  if (options.json || options.jsonStdout) emitJson(options, { tool: await toolInfo(), ...copy.json });
  return 0;
}
