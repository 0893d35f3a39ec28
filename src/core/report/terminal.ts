import Table from 'cli-table3';
import pc from 'picocolors';
import { formatProblem, InputProblem, orderProblems } from '../bird/problems';
import { EvalSummary } from '../eval/evalSummary';
import { Metric, Outcome, QuestionResult } from '../eval/types';
import { METRIC_LABELS, OUTCOME_LABELS, QUANTITY_LABELS } from '../text/evalLabels';
import { techniqueRows } from './techniqueRows';
import { pastLimitMetrics } from '../metrics/efficiency';
import { SqlDialect } from '../sql/statements';
import { sameWorkPhrase } from '../timing/sameProgram';
import { counted } from '../text/numberText';
import { TABLE_STYLE } from '../text/tableStyle';
import { notRunForRunFailure } from '../eval/runFailure';

/** The official per-difficulty table: counts and each metric × 100 with two decimals. */
export function scoreTable(summary: EvalSummary, metrics: readonly Metric[]): string {
  const table = new Table({
    head: ['', ...summary.groups.map((g) => g.group)],
    style: TABLE_STYLE,
    colAligns: ['left', ...summary.groups.map(() => 'right' as const)],
  });
  table.push(['count', ...summary.groups.map((g) => String(g.count))]);
  for (const metric of metrics) {
    table.push([METRIC_LABELS[metric], ...summary.groups.map((g) => formatScore(g.scores[metric]))]);
  }
  // SQLMorph's techniques, when asked (--techniques): extra rows, one per technique and measure.
  for (const row of techniqueRows(summary)) table.push(row);
  return table.toString();
}

function formatScore(score: number | null | undefined): string {
  return score === null || score === undefined ? '-' : score.toFixed(2);
}

/** How many questions ended each way, per difficulty: what the official scripts never say. */
export function outcomeTable(summary: EvalSummary): string {
  const table = new Table({
    head: ['outcome', ...summary.groups.map((g) => g.group)],
    style: TABLE_STYLE,
    colAligns: ['left', ...summary.groups.map(() => 'right' as const)],
  });
  const total = summary.groups[summary.groups.length - 1];
  for (const outcome of Object.keys(OUTCOME_LABELS) as Outcome[]) {
    if (outcome === 'skipped' || total.outcomes[outcome] === 0) continue;
    table.push([OUTCOME_LABELS[outcome], ...summary.groups.map((g) => String(g.outcomes[outcome]))]);
  }
  return table.toString();
}

/** The questions that did not run cleanly, grouped by outcome, a few lines each. */
export function failureList(results: readonly QuestionResult[], limit = 8): string {
  const lines: string[] = [];
  // Questions a lost server left unrun are counted as errors in the scores (as the scripts would), but listed as
  // what they are: not a gold that fails.
  const notRun = new Set(results.filter(notRunForRunFailure));
  const groups: [string, QuestionResult[]][] = [
    [pc.yellow('not run: the database server went away; --resume runs them'), [...notRun]],
    ...(['gold_error', 'locked', 'prediction_error', 'timeout', 'refused'] as Outcome[]).map((outcome): [string, QuestionResult[]] => [
      OUTCOME_LABELS[outcome],
      results.filter((r) => r.outcome === outcome && !notRun.has(r)),
    ]),
  ];
  for (const [label, hits] of groups) {
    if (hits.length === 0) continue;
    lines.push(pc.bold(`${label} (${hits.length})`));
    for (const r of hits.slice(0, limit)) {
      lines.push(`  #${r.index} question ${r.question_id} (${r.db_id}): ${clip(r.error ?? '')}`);
    }
    if (hits.length > limit) lines.push(pc.dim(`  ... and ${hits.length - limit} more (all in --json)`));
  }
  return lines.join('\n');
}

/** Terminal lines stay readable whatever an input holds (a 10 MB query in an error message): the JSON keeps it all. */
export function clip(text: string, max = 300): string {
  const line = text.replace(/\r?\n/g, ' ↵ ');
  return line.length <= max ? line : `${line.slice(0, max)}… (${(line.length - max).toLocaleString('en-US')} more characters)`;
}

export function skippedLine(summary: EvalSummary): string {
  const { count, databases } = summary.skipped;
  if (count === 0) return '';
  const list = Object.entries(databases)
    .map(([db, n]) => `${db || 'no db_id'} (${n})`)
    .join(', ');
  return `${pc.yellow('skipped')} ${count} question${count === 1 ? '' : 's'} whose database is missing or cannot be opened (not scored): ${list}`;
}

/**
 * The problems that explain many results at once (mis-paired files, missing predictions, another gold): every
 * one of them, never cut off. Printed before scoring starts and again under the tables.
 */
export function headlineProblems(problems: readonly InputProblem[]): string {
  const headline = problems.filter((p) => p.headline);
  if (headline.length === 0) return '';
  return [
    pc.bold(pc.yellow(`input problems that affect the scores (${headline.length})`)),
    ...headline.map((p) => `  ${pc.yellow('!')} ${clip(formatProblem(p), 2000)}`),
  ].join('\n');
}

/** Every input problem: the headline ones in full, then the entries' own, a few of them (all in --json). */
export function problemList(problems: readonly InputProblem[], limit = 12): string {
  if (problems.length === 0) return '';
  const ordered = orderProblems(problems);
  const headline = ordered.filter((p) => p.headline);
  const entries = ordered.filter((p) => !p.headline);
  const lines = [headlineProblems(headline)].filter(Boolean);
  if (entries.length) {
    lines.push(pc.bold(`input problems in single entries (${entries.length})`));
    for (const p of entries.slice(0, limit)) lines.push(`  ${clip(formatProblem(p))}`);
    if (entries.length > limit) lines.push(pc.dim(`  ... and ${entries.length - limit} more (all in --json)`));
  }
  return lines.join('\n');
}

/**
 * What stands behind the efficiency numbers: pairs not timed because they are the same program, rewards a
 * repeat run could change, pairs whose timing did not settle, and, with --scales, how each pair grows.
 */
export function efficiencyNotes(results: readonly QuestionResult[], dialect: SqlDialect, limit = 8): string {
  const timed = results.filter((r) => r.time_ratio !== null);
  if (timed.length === 0) return '';
  const same = timed.filter((r) => r.same_program);
  const uncertain = timed.filter((r) => r.rves_uncertain);
  const cutOff = timed.filter((r) => r.past_official_limit);
  const lines = [pc.bold(`efficiency (${timed.length} correct pairs timed)`)];
  if (same.length)
    lines.push(
      `  ${same.length} ${sameWorkPhrase(dialect)} as their gold: ratio 1 by construction, not timed (${same.map((r) => r.question_id).join(', ')})`,
    );
  if (cutOff.length)
    lines.push(
      `  ${cutOff.length} would outlast the official timing loop's limit (100 iterations): scored 0 as the official scripts score them (${cutOff.map((r) => `${r.question_id}: ${pastLimitMetrics(r.past_official_limit!)}`).join(', ')})`,
    );
  if (uncertain.length) {
    const why = 'a repeat run may land in a neighbouring bucket; R-VES counts the expected term, √reward';
    lines.push(`  ${counted(uncertain.length, 'R-VES reward')} not settled (${why}):`);
    for (const r of uncertain.slice(0, limit)) {
      const p = Object.entries(r.rves_bucket_probabilities ?? {})
        .sort((a, b) => Number(b[0]) - Number(a[0]))
        .map(([reward, prob]) => `${reward}: ${Math.round(prob * 100)} %`)
        .join(' · ');
      const interval = r.rves_time_ratio_interval?.map((x) => x.toFixed(2)).join('–');
      lines.push(
        `    question ${r.question_id}: ${QUANTITY_LABELS.allRowsRatio} ${r.rves_time_ratio?.toFixed(2)} (${interval})${p ? ` → ${p}` : ''}`,
      );
    }
    if (uncertain.length > limit) lines.push(pc.dim(`    ... and ${uncertain.length - limit} more (all in --json)`));
  }
  const grown = timed.filter((r) => r.growth && !/grow alike|not enough/.test(r.growth));
  for (const r of grown.slice(0, limit)) lines.push(`  question ${r.question_id}: ${r.growth}`);
  if (grown.length > limit) lines.push(pc.dim(`  ... and ${grown.length - limit} more growth verdicts (all in --json)`));
  return lines.join('\n');
}
