import Table from 'cli-table3';
import pc from 'picocolors';
import type { AgreementStats } from '../core/judge/agreement';
import type { AgreementReport } from '../core/judge/agreementFiles';
import { agreeRun } from '../app/agreeRun';
import { TABLE_STYLE } from '../core/text/tableStyle';
import { checkOutputFile, UsageError } from './common';
import { quoted } from '../core/text/problemText';
import { emitJson, JsonDestination } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';

export interface AgreeCommandOptions extends JsonDestination {
  labels: string;
  verdicts: string;
  /** Which verdict of a judge report: its judge score (default) or its EX. */
  use?: string;
}

const KIND_LABELS = { judge: "the judge's verdicts", rose: "ROSE's scores", ex: 'EX' } as const;
const pct = (x: number | null) => (x === null ? 'undefined' : (x * 100).toFixed(2));

function statsTable(stats: AgreementStats): string {
  const table = new Table({ head: ['', 'judged correct', 'judged wrong'], style: TABLE_STYLE, colAligns: ['left', 'right', 'right'] });
  table.push(['label correct', `TP ${stats.tp}`, `FN ${stats.fn}`], ['label wrong', `FP ${stats.fp}`, `TN ${stats.tn}`]);
  const metrics = new Table({
    head: ['N', "Cohen's κ", 'accuracy', 'MCC', 'F1'],
    style: TABLE_STYLE,
    colAligns: ['right', 'right', 'right', 'right', 'right'],
  });
  metrics.push([String(stats.n), pct(stats.kappa), pct(stats.accuracy), pct(stats.mcc), pct(stats.f1)]);
  return `${table.toString()}\n${metrics.toString()}`;
}

function mismatchLines(report: AgreementReport, limit = 8): string[] {
  const m = report.mismatches;
  const lines: string[] = [];
  const some = (ids: readonly string[]) =>
    ids.length <= limit ? ids.join(', ') : `${ids.slice(0, limit).join(', ')} and ${ids.length - limit} more`;
  if (m.labels_without_verdict.length)
    lines.push(`${m.labels_without_verdict.length} labelled pairs have no verdict (left out): question ${some(m.labels_without_verdict)}`);
  if (m.verdicts_without_label.length)
    lines.push(`${m.verdicts_without_label.length} verdicts have no label (left out): question ${some(m.verdicts_without_label)}`);
  if (m.sql_differs.length)
    lines.push(
      `${m.sql_differs.length} verdicts are for another SQL than the labelled one (left out): question ${some(m.sql_differs.map((d) => d.question_id))}`,
    );
  if (m.no_verdict.length)
    lines.push(
      `${m.no_verdict.length} pairs have no verdict (left out): ${m.no_verdict
        .slice(0, limit)
        .map((d) => `${d.question_id} (${d.why.slice(0, 80)})`)
        .join(', ')}${m.no_verdict.length > limit ? ' ...' : ''}`,
    );
  if (m.repeated_verdicts.length)
    lines.push(`${m.repeated_verdicts.length} verdicts repeat an earlier one (the first is used): question ${some(m.repeated_verdicts)}`);
  if (m.unusable_labels.length) lines.push(`${m.unusable_labels.length} labels are unusable (left out): ${some(m.unusable_labels)}`);
  if (report.matched_by_id_only)
    lines.push(`${report.matched_by_id_only} pairs matched by question_id alone: the verdict file carries no SQL`);
  return lines;
}

export async function runAgree(options: AgreeCommandOptions): Promise<number> {
  if (options.use !== undefined && options.use !== 'judge' && options.use !== 'ex')
    throw new UsageError(`--use: expected judge or ex, got ${quoted(options.use)}`);
  if (options.json) checkOutputFile('--json', options.json, [options.labels, options.verdicts]);
  const report = agreeRun({ labels: options.labels, verdicts: options.verdicts, use: options.use as 'judge' | 'ex' | undefined });
  if (options.json || options.jsonStdout)
    emitJson(options, { labels: options.labels, verdicts: options.verdicts, ...report }, JSON_SHAPES.agree);
  if (options.jsonStdout) return 0;
  const out = process.stdout;
  out.write(
    `${pc.bold('agreement')} of ${KIND_LABELS[report.kind]} (${options.verdicts}) with the labels of ${options.labels}: ${report.stats.n} pairs (positive: the label says correct)\n`,
  );
  out.write(statsTable(report.stats) + '\n');
  const branches = Object.entries(report.by_branch);
  if (branches.length > 1) {
    const table = new Table({
      head: ['branch', 'pairs', 'agree', 'TP', 'TN', 'FP', 'FN'],
      style: TABLE_STYLE,
      colAligns: ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    });
    for (const [branch, s] of branches)
      table.push([branch, String(s.n), String(s.tp + s.tn), String(s.tp), String(s.tn), String(s.fp), String(s.fn)]);
    out.write(table.toString() + '\n');
  }
  for (const line of mismatchLines(report)) out.write(`${pc.yellow('!')} ${line}\n`);
  return 0;
}
