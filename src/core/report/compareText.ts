import Table from 'cli-table3';
import pc from 'picocolors';
import { ChangeKind, changeKindsOf, MetricRow, RunComparison } from './compareRuns';
import { PairedDelta } from './compareStats';
import { TABLE_STYLE } from '../text/tableStyle';

export const CHANGE_LABELS: Record<ChangeKind, string> = {
  now_correct: 'now correct',
  now_wrong: 'now wrong',
  much_faster: 'much faster',
  much_slower: 'much slower',
};

export function formatValue(value: number | null | undefined, unit: MetricRow['unit']): string {
  if (value === null || value === undefined) return '-';
  return unit === 'ms' ? value.toFixed(value < 10 ? 3 : 1) : value.toFixed(2);
}

const signed = (value: number, unit: MetricRow['unit']) =>
  `${value > 0 ? '+' : value < 0 ? '−' : '±'}${formatValue(Math.abs(value), unit)}`;

/** "+3.57 [+0.71, +6.43]": a delta and its 95 % interval; marked when the interval excludes 0. */
export function formatDelta(delta: PairedDelta | null, unit: MetricRow['unit'], colour = true): string {
  if (!delta) return '-';
  const text = `${signed(delta.delta, unit)} [${signed(delta.low, unit)}, ${signed(delta.high, unit)}]`;
  if (!colour || (delta.low <= 0 && delta.high >= 0)) return text;
  // Scores: higher is better; milliseconds: lower is better.
  const better = unit === 'ms' ? delta.high < 0 : delta.low > 0;
  return better ? pc.green(text) : pc.red(text);
}

/** "p = 0.0213" / "p < 0.0001". */
export function formatP(p: number): string {
  return p < 0.0001 ? 'p < 0.0001' : `p = ${p.toFixed(4)}`;
}

/** The comparison table (rows: metrics; columns: each run and each delta), then EX's test and what changed. */
export function comparisonText(comparison: RunComparison, options: { listLimit?: number } = {}): string {
  const limit = options.listLimit ?? 10;
  const labels = comparison.runs.map((run) => run.label);
  const deltaHeads = comparison.versus.map((v) => (comparison.versus.length === 1 ? 'Δ (95 % CI)' : `Δ ${v.label} (95 % CI)`));
  const table = new Table({
    head: ['', ...labels, ...deltaHeads, 'n'],
    style: TABLE_STYLE,
    colAligns: ['left', ...labels.map(() => 'right' as const), ...deltaHeads.map(() => 'right' as const), 'right'],
  });
  for (const row of comparison.rows)
    table.push([
      row.label,
      ...row.values.map((v) => formatValue(v, row.unit)),
      ...row.deltas.map((d) => formatDelta(d, row.unit, row.key !== 'gold_ms')),
      String(row.n),
    ]);
  const out: string[] = [table.toString()];
  out.push(
    pc.dim(
      `Δ: later − ${labels[0]}; 95 % paired bootstrap interval (${comparison.bootstrap.resamples} resamples, seed ${comparison.bootstrap.seed})${comparison.timed ? '; ms rows over the questions timed in every run (same-program pairs are not timed)' : ''}`,
    ),
  );
  for (const v of comparison.versus) {
    const m = v.ex_mcnemar;
    out.push(
      `EX, McNemar exact test ${labels[0]} vs ${v.label}: ${m.onlyA} correct only in ${labels[0]}, ${m.onlyB} only in ${v.label}, ${formatP(m.p)}`,
    );
  }
  for (const v of comparison.versus) {
    if (comparison.versus.length > 1) out.push('', pc.bold(`${v.label} against ${labels[0]}`));
    for (const kind of changeKindsOf(comparison)) {
      const list = v.changes[kind];
      const title =
        kind === 'much_faster' || kind === 'much_slower'
          ? `${CHANGE_LABELS[kind]} (time ratio ×${comparison.muchFactor} or more, repeat intervals apart)`
          : CHANGE_LABELS[kind];
      out.push(`${pc.bold(title)} (${list.length})`);
      for (const c of list.slice(0, limit)) {
        const detail =
          c.factor !== undefined
            ? `${c.factor >= 1 ? c.factor.toFixed(2) : `1/${(1 / c.factor).toFixed(2)}`}× (ratio ${c.ratios![0].toFixed(2)} → ${c.ratios![1].toFixed(2)})`
            : `${c.from} → ${c.to}`;
        out.push(`  question ${c.question_id} (${c.db_id}${c.difficulty ? `, ${c.difficulty}` : ''}): ${detail}`);
      }
      if (list.length > limit) out.push(pc.dim(`  and ${list.length - limit} more (all in --json)`));
    }
  }
  if (comparison.compared < comparison.questions || comparison.notes.length)
    out.push('', ...comparison.notes.map((n) => pc.yellow(`note: ${n}`)));
  return out.join('\n');
}
