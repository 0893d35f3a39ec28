import { sampleRankCorrelation } from 'simple-statistics';
import { EvalTask } from '../bird/tasks';
import { METRIC_LABELS as LABEL_OF_METRIC, QUANTITY_LABELS } from '../text/evalLabels';
import { OUTCOMES } from '../eval/types';
import { EvalReportJson, questionKeys, ReportQuestion, reportMetrics } from '../eval/reportFile';
import { CHANGE_KINDS, ChangeKind, changeKindsOf, comparableRatio, hasTiming, RunComparison } from './compareRuns';
import { CHANGE_LABELS, formatDelta, formatP, formatValue } from './compareText';
import { barChart, escapeHtml, logScatter, ratioBinsText, ratioHistogram, ScatterSeries } from './htmlCharts';
import { allRowsRatio, firstRowRatio, RatioWithInterval } from './ratios';
import { HtmlSection, htmlPage, pagePath, sortableTh, tableControls } from './htmlPage';
import { EngineDescription } from '../db/source';
import { engineLine } from '../text/engineText';
import { robustnessSection } from './htmlRobustness';

/** One run as the report shows it: a label, its report, and (from `eval --html`) each question's SQL by index. */
export interface HtmlRun {
  label: string;
  file?: string;
  report: EvalReportJson;
  sql?: Map<number, { gold?: string; pred?: string }>;
}

/** Metric names as a report file may hold them (any string): the known ones have a label. */
const METRIC_LABELS: Readonly<Record<string, string>> = LABEL_OF_METRIC;

type GroupSummary = { count?: number; outcomes?: Record<string, number> } & Record<string, unknown>;

/** The summary's groups (difficulties, then total), without `skipped`. */
function groupsOf(report: EvalReportJson): [string, GroupSummary][] {
  return Object.entries(report.summary ?? {}).filter(
    ([name, value]) => name !== 'skipped' && name !== 'robustness' && value && typeof value === 'object',
  ) as [string, GroupSummary][];
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function summaryTable(run: HtmlRun): string {
  const groups = groupsOf(run.report);
  const metrics = reportMetrics(run.report).filter((m) => METRIC_LABELS[m]);
  const head = `<tr><th></th>${groups.map(([g]) => `<th class="num">${escapeHtml(g)}</th>`).join('')}</tr>`;
  const rows = [`<tr><td>count</td>${groups.map(([, g]) => `<td class="num">${g.count ?? '-'}</td>`).join('')}</tr>`];
  for (const m of metrics)
    rows.push(
      `<tr><td>${METRIC_LABELS[m]}</td>${groups.map(([, g]) => `<td class="num">${formatValue(num(g[m]), 'score')}</td>`).join('')}</tr>`,
    );
  for (const outcome of OUTCOMES) {
    if (outcome === 'skipped') continue;
    const counts = groups.map(([, g]) => g.outcomes?.[outcome] ?? 0);
    if (counts.every((c) => c === 0)) continue;
    rows.push(
      `<tr class="muted"><td>${escapeHtml(outcome.replace(/_/g, ' '))}</td>${counts.map((c) => `<td class="num">${c}</td>`).join('')}</tr>`,
    );
  }
  const skipped = (run.report.summary as { skipped?: { count?: number } } | undefined)?.skipped?.count;
  return `<table class="summary" data-run="${escapeHtml(run.label)}"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>${skipped ? `<p class="muted small">${skipped} questions skipped (database not found), counted in no score.</p>` : ''}`;
}

function comparisonTable(comparison: RunComparison): string {
  const labels = comparison.runs.map((r) => r.label);
  const deltaHeads = comparison.versus.map((v) => (comparison.versus.length === 1 ? 'Δ (95 % CI)' : `Δ ${v.label} (95 % CI)`));
  const head = `<tr><th></th>${labels.map((l) => `<th class="num">${escapeHtml(l)}</th>`).join('')}${deltaHeads.map((h) => `<th class="num">${escapeHtml(h)}</th>`).join('')}<th class="num">n</th></tr>`;
  const rows = comparison.rows.map((row) => {
    const deltas = row.deltas.map((d) => {
      // Scores: higher is better; milliseconds: lower is better.
      const better = row.unit === 'ms' ? d && d.high < 0 : d && d.low > 0;
      const worse = row.unit === 'ms' ? d && d.low > 0 : d && d.high < 0;
      // The gold is the same query in every run: its change in ms is the machine's, neither a gain nor a loss.
      const cls = row.key === 'gold_ms' ? '' : better ? 'up' : worse ? 'down' : '';
      return `<td class="num ${cls}" data-key="${escapeHtml(row.key)}">${escapeHtml(formatDelta(d, row.unit, false))}</td>`;
    });
    return `<tr><td>${escapeHtml(row.label)}</td>${row.values.map((v) => `<td class="num">${formatValue(v, row.unit)}</td>`).join('')}${deltas.join('')}<td class="num">${row.n}</td></tr>`;
  });
  const tests = comparison.versus
    .map(
      (v) =>
        `<li>EX, McNemar exact test ${escapeHtml(labels[0])} vs ${escapeHtml(v.label)}: ${v.ex_mcnemar.onlyA} correct only in ${escapeHtml(labels[0])}, ${v.ex_mcnemar.onlyB} only in ${escapeHtml(v.label)}, <strong data-mcnemar>${escapeHtml(formatP(v.ex_mcnemar.p))}</strong></li>`,
    )
    .join('');
  const notes = comparison.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('');
  return `<table id="comparison"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>
<p class="muted small">Δ: each later run − ${escapeHtml(labels[0])}, with a 95 % paired bootstrap interval (${comparison.bootstrap.resamples} resamples, seed ${comparison.bootstrap.seed}); green where the interval shows an improvement (a higher score, fewer ms), red where it shows a loss. Scores ×100 over ${comparison.compared} questions${comparison.timed ? '; ms rows over the questions timed in every run' : ''}.</p>
<ul>${tests}</ul>${notes ? `<ul class="notes">${notes}</ul>` : ''}`;
}

function difficultyBars(runs: readonly HtmlRun[]): string {
  const groups = groupsOf(runs[0].report).map(([g]) => g);
  const metrics = [...new Set(runs.flatMap((r) => reportMetrics(r.report)))].filter((m) => METRIC_LABELS[m]);
  const charts = metrics.map((m) =>
    barChart({
      id: `bars-${m}`,
      title: `${METRIC_LABELS[m]} by difficulty`,
      categories: groups,
      series: runs.map((run) => {
        const byGroup = new Map(groupsOf(run.report));
        return { label: run.label, values: groups.map((g) => num(byGroup.get(g)?.[m])) };
      }),
      yLabel: METRIC_LABELS[m],
      // Every score is ×100: one 0–100 axis for all (VES and R-VES can pass 100, and the axis follows).
      yAtLeast: 100,
    }),
  );
  return `<div class="charts">${charts.join('')}</div>`;
}

function ratioSection(runs: readonly HtmlRun[]): string {
  const histograms = runs.map((run) =>
    ratioHistogram(run.report.questions.map((q) => comparableRatio(q)?.ratio ?? 0).filter((r) => r > 0)),
  );
  const timed = histograms.map((h) => h.counts.reduce((a, b) => a + b, 0));
  const chart = barChart({
    id: 'ratio-histogram',
    title: 'Time ratio t_gold / t_pred of correct predictions (log scale; right of 1: the prediction is faster)',
    categories: histograms[0].labels,
    series: runs.map((run, i) => ({ label: `${run.label} (${timed[i]} timed)`, values: histograms[i].counts })),
    yLabel: 'questions',
    format: (v) => String(Math.round(v)),
    // Whole ticks: counts are whole numbers.
    yMax: Math.max(4, Math.ceil(Math.max(0, ...histograms.flatMap((h) => h.counts)) / 4) * 4),
    xLabel: 'time ratio t_gold / t_pred (log scale)',
    slantLabels: true,
  });
  return `<div class="charts">${chart}</div><p class="muted small">Bins: ${escapeHtml(ratioBinsText())}. R-VES's ratio (every row fetched) where it was timed, else VES's (first row). Same-program pairs count as exactly 1; R-VES's reward edges are at 0.25, 0.5, 1 and 2.</p>`;
}

const rho = (xs: number[], ys: number[]) => {
  if (xs.length < 3) return null;
  const r = sampleRankCorrelation(xs, ys);
  return Number.isFinite(r) ? r : null;
};
const formatRho = (r: number | null) => (r === null ? '-' : r.toFixed(2));

function costSection(runs: readonly HtmlRun[]): string {
  const series: ScatterSeries[] = [];
  const notes: string[] = [];
  const addSeries = (label: string, className: string, questions: readonly ReportQuestion[], side: 'gold' | 'pred') => {
    const points = questions
      .map((q) => {
        const cost = q.plan_cost?.[side];
        const ms = side === 'gold' ? q.gold_ms : q.pred_ms;
        if (!cost || ms === null || ms === undefined || q.same_program || !(ms > 0)) return null;
        return {
          x: Math.max(1, cost.work),
          y: ms,
          rule: cost.rule,
          title: `question ${q.question_id} (${q.db_id}) ${side}: ~${cost.work} row visits, rule ${cost.rule}, ${ms.toFixed(3)} ms`,
          key: String(q.index),
        };
      })
      .filter((p): p is NonNullable<typeof p> => p !== null);
    if (points.length === 0) return;
    series.push({ label, className, points });
    notes.push(
      `${label}: Spearman ρ estimate ${formatRho(
        rho(
          points.map((p) => p.x),
          points.map((p) => p.y),
        ),
      )}, rule cost ${formatRho(
        rho(
          points.map((p) => p.rule),
          points.map((p) => p.y),
        ),
      )} (${points.length} queries)`,
    );
  };
  addSeries('gold', 'gold', runs[0].report.questions, 'gold');
  runs.forEach((run, i) => addSeries(runs.length === 1 ? 'prediction' : run.label, `s${i % 6}`, run.report.questions, 'pred'));
  const chart = logScatter({
    id: 'cost-scatter',
    title: 'Plan cost against measured time',
    series,
    xLabel: 'row-aware estimate (row visits, log)',
    yLabel: 'median ms (log)',
  });
  return `<div class="charts">${chart}</div><ul class="small" id="cost-rho">${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul><p class="muted small">Timed (correct) pairs only: ms is the median of the headline timing (VES's first row when VES was asked). Costs come from EXPLAIN QUERY PLAN (plan_cost in the JSON).</p>`;
}

function changeSection(comparison: RunComparison): string {
  const labels = comparison.runs.map((r) => r.label);
  return (
    comparison.versus
      .map((v) => {
        const blocks = changeKindsOf(comparison)
          .map((kind) => {
            const list = v.changes[kind];
            const items = list
              .map((c) => {
                const detail =
                  c.factor !== undefined
                    ? `${c.factor >= 1 ? c.factor.toFixed(2) : `1/${(1 / c.factor).toFixed(2)}`}× (ratio ${c.ratios![0].toFixed(2)} → ${c.ratios![1].toFixed(2)})`
                    : `${c.from.replace(/_/g, ' ')} → ${c.to.replace(/_/g, ' ')}`;
                return `<li><a href="#q-${c.index}">question ${escapeHtml(c.question_id)}</a> (${escapeHtml(c.db_id)}${c.difficulty ? `, ${escapeHtml(c.difficulty)}` : ''}): ${escapeHtml(detail)}</li>`;
              })
              .join('');
            return `<h3 data-change="${kind}">${escapeHtml(CHANGE_LABELS[kind])} (${list.length})</h3>${items ? `<ul class="changes">${items}</ul>` : '<p class="muted small">none</p>'}`;
          })
          .join('');
        return `${comparison.versus.length > 1 ? `<h3>${escapeHtml(v.label)} against ${escapeHtml(labels[0])}</h3>` : ''}${blocks}`;
      })
      .join('') +
    (comparison.timed
      ? `<p class="muted small">Much faster / slower: both correct, the time ratio changed ×${comparison.muchFactor} or more and the repeat intervals do not overlap.</p>`
      : '')
  );
}

function changeOf(comparison: RunComparison | undefined, index: number): { kinds: ChangeKind[]; text: string } {
  if (!comparison) return { kinds: [], text: '' };
  const kinds: ChangeKind[] = [];
  const parts: string[] = [];
  for (const v of comparison.versus) {
    for (const kind of CHANGE_KINDS) {
      if (v.changes[kind].some((c) => c.index === index)) {
        kinds.push(kind);
        parts.push(comparison.versus.length > 1 ? `${v.label}: ${CHANGE_LABELS[kind]}` : CHANGE_LABELS[kind]);
      }
    }
  }
  return { kinds, text: parts.join('; ') };
}

function questionTable(runs: readonly HtmlRun[], comparison?: RunComparison): string {
  const keysByRun = runs.map((run) => new Map(questionKeys(run.report.questions).map((key, i) => [key, run.report.questions[i]])));
  const allKeys = comparison ? comparison.table.map((t) => t.key) : questionKeys(runs[0].report.questions);
  // Skipped questions (no database to run on) are not scored: listed last, folded, so the scored ones come first.
  const skipped = (key: string) => keysByRun.every((m) => (m.get(key)?.outcome ?? 'skipped') === 'skipped');
  const keys = allKeys.filter((key) => !skipped(key));
  const skippedKeys = allKeys.filter(skipped);
  const multi = runs.length > 1;
  const timed = runs.every((run) => hasTiming(run.report));
  const head = [
    sortableTh('#', 'number'),
    sortableTh('question', 'text', false),
    sortableTh('database', 'text', false),
    sortableTh('difficulty', 'text', false),
    ...runs.flatMap((run) => {
      const p = multi ? `${run.label}: ` : '';
      return [
        sortableTh(`${p}outcome`, 'text', false),
        sortableTh(`${p}F1`, 'number'),
        ...(timed
          ? [
              sortableTh(`${p}${QUANTITY_LABELS.firstRowRatio}`, 'number'),
              sortableTh(`${p}${QUANTITY_LABELS.allRowsRatio}`, 'number'),
              sortableTh(`${p}pred ms`, 'number'),
            ]
          : []),
      ];
    }),
    ...(comparison ? [sortableTh('change', 'text', false)] : []),
    '<th>details</th>',
  ].join('');
  const outcomes = new Set<string>();
  const difficulties = new Set<string>();
  const databases = new Set<string>();
  const body = keys.map((key) => {
    const results = keysByRun.map((m) => m.get(key));
    const first = results[0]!;
    const change = changeOf(comparison, first.index);
    for (const r of results) if (r) outcomes.add(r.outcome);
    if (first.difficulty) difficulties.add(first.difficulty);
    databases.add(first.db_id);
    const cells = results.flatMap((r) => {
      if (!r) return Array<string>(timed ? 5 : 2).fill('<td></td>');
      const ratioCell = (ratio: RatioWithInterval | null) => {
        const untimed = r.same_program ? '; same program, not timed' : '';
        const interval = ratio ? ` title="repeat interval ${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}${untimed}"` : '';
        return `<td class="num" data-v="${ratio?.ratio ?? ''}"${interval}>${ratio ? `${ratio.ratio.toFixed(2)}×` : '-'}</td>`;
      };
      return [
        `<td data-v="${escapeHtml(r.outcome)}"><span class="badge ${escapeHtml(r.outcome)}">${escapeHtml(r.outcome.replace(/_/g, ' '))}</span></td>`,
        `<td class="num" data-v="${r.f1 ?? ''}">${r.f1 === null || r.f1 === undefined ? '-' : r.f1.toFixed(2)}</td>`,
        ...(timed
          ? [
              ratioCell(firstRowRatio(r)),
              ratioCell(allRowsRatio(r)),
              r.same_program || r.pred_ms === null || r.pred_ms === undefined
                ? `<td class="num" data-v=""${r.same_program ? ' title="same program as the gold: not timed"' : ''}>-</td>`
                : `<td class="num" data-v="${r.pred_ms}">${r.pred_ms.toFixed(3)}</td>`,
            ]
          : []),
      ];
    });
    const details: string[] = [];
    const searchParts: string[] = [String(first.question_id), first.db_id, first.difficulty, change.text];
    results.forEach((r, i) => {
      if (!r) return;
      const prefix = multi ? `${runs[i].label}: ` : '';
      if (r.error) details.push(`<div>${escapeHtml(prefix + r.error)}</div>`);
      if (r.growth) details.push(`<div class="muted">${escapeHtml(prefix + r.growth)}</div>`);
      searchParts.push(r.outcome, r.error ?? '');
      const sql = runs[i].sql?.get(r.index);
      const pred = sql?.pred ?? r.predicted_sql ?? undefined;
      const gold = i === 0 ? (sql?.gold ?? r.gold_sql ?? undefined) : undefined;
      if (gold) {
        details.push(`<details><summary>gold SQL</summary><div class="sql">${escapeHtml(gold)}</div></details>`);
        searchParts.push(gold);
      }
      if (pred) {
        details.push(`<details><summary>${escapeHtml(prefix)}predicted SQL</summary><div class="sql">${escapeHtml(pred)}</div></details>`);
        searchParts.push(pred);
      }
    });
    const attrs = [
      `id="q-${first.index}"`,
      `data-outcome="${escapeHtml([...new Set(results.filter(Boolean).map((r) => r!.outcome))].join(' '))}"`,
      `data-difficulty="${escapeHtml(first.difficulty)}"`,
      `data-db="${escapeHtml(first.db_id)}"`,
      `data-change="${change.kinds.join(' ')}"`,
      `data-search="${escapeHtml(searchParts.join(' ').toLowerCase())}"`,
    ].join(' ');
    return `<tr ${attrs}><td class="num" data-v="${first.index}">${first.index}</td><td>${escapeHtml(first.question_id)}</td><td>${escapeHtml(first.db_id)}</td><td>${escapeHtml(first.difficulty)}</td>${cells.join('')}${comparison ? `<td>${escapeHtml(change.text)}</td>` : ''}<td class="details">${details.join('')}</td></tr>`;
  });
  const filters = [
    { name: 'outcome', label: 'outcome', values: OUTCOMES.filter((o) => outcomes.has(o)) },
    { name: 'difficulty', label: 'difficulty', values: [...difficulties] },
    { name: 'db', label: 'database', values: [...databases].sort() },
    ...(comparison ? [{ name: 'change', label: 'change', values: [...changeKindsOf(comparison)] }] : []),
  ];
  return `${tableControls('questions', filters)}<div class="scroll"><table id="questions" data-filterable${multi ? ' class="runs"' : ''}><thead><tr>${head}</tr></thead><tbody>${body.join('\n')}</tbody></table></div>${skippedList(skippedKeys.map((key) => keysByRun[0].get(key)!))}`;
}

/** The skipped questions, folded under one line that says how many and on which databases (they count in no score). */
function skippedList(questions: readonly ReportQuestion[]): string {
  if (questions.length === 0) return '';
  const byDatabase = new Map<string, number>();
  for (const q of questions) byDatabase.set(q.db_id, (byDatabase.get(q.db_id) ?? 0) + 1);
  const databases = [...byDatabase].map(([db, n]) => `${db || 'no db_id'} (${n})`).join(', ');
  const rows = questions
    .map(
      (q) =>
        `<tr id="q-${q.index}"><td class="num">${q.index}</td><td>${escapeHtml(q.question_id)}</td><td>${escapeHtml(q.db_id)}</td><td>${escapeHtml(q.difficulty)}</td><td class="details">${escapeHtml(q.error ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<details id="skipped-questions"><summary>${questions.length} skipped question${questions.length === 1 ? '' : 's'}, not scored (database missing or not openable): ${escapeHtml(databases)}</summary><div class="scroll"><table><thead><tr><th class="num">#</th><th>question</th><th>database</th><th>difficulty</th><th>why</th></tr></thead><tbody>${rows}</tbody></table></div></details>`;
}

/** Which files and engine each run is of; files named from the page's folder (`page`: where it is written). */
function metaLines(runs: readonly HtmlRun[], page?: string): string[] {
  return runs.map((run) => {
    const inputs = run.report.inputs ?? {};
    const tool = run.report.tool ?? {};
    const parts = [
      inputs.predictions ? `predictions ${pagePath(inputs.predictions, page)}` : run.file ? pagePath(run.file, page) : '',
      inputs.questions ? `questions ${pagePath(inputs.questions, page)}` : '',
      inputs.timing && hasTiming(run.report) ? `timing ${inputs.timing}` : '',
      inputs.engine ? engineLine(inputs.engine as EngineDescription) : tool.sqlite ? `SQLite ${tool.sqlite}` : '',
      tool.version ? `VES Lens ${tool.version}` : '',
    ];
    return `${runs.length > 1 ? `${run.label}: ` : ''}${parts.filter(Boolean).join(' · ')}`;
  });
}

/** "No timing in this report (EX, Soft-F1 only): …", for a report whose metrics include neither VES nor R-VES. */
function noTimingLine(report: EvalReportJson): string {
  const scores = reportMetrics(report).map((m) => METRIC_LABELS[m] ?? m);
  return `No timing in this report (${scores.join(', ')} only): no time ratios, no cost against time.`;
}

/** The sections about time (ratios, cost against time): only for timed reports, every one of them timed. */
function timingSections(runs: readonly HtmlRun[], timed: boolean): HtmlSection[] {
  if (!timed) return [];
  return [
    { id: 'ratios', title: 'Time ratios', html: ratioSection(runs) },
    { id: 'costs', title: 'Cost vs time', html: costSection(runs) },
  ];
}

/**
 * `eval --html`: the official table, per-difficulty bars, the ratio distribution, cost against time, every question.
 * `page`: the file the page is written to (its folder is where the files it names are named from).
 */
export function evalHtml(run: HtmlRun, page?: string): string {
  const sections: HtmlSection[] = [
    {
      id: 'summary',
      title: 'Summary',
      html:
        summaryTable(run) +
        (hasTiming(run.report) ? '' : `<p class="muted small" id="no-timing">${escapeHtml(noTimingLine(run.report))}</p>`) +
        problemsHtml(run.report),
    },
    { id: 'difficulty', title: 'By difficulty', html: difficultyBars([run]) },
    ...timingSections([run], hasTiming(run.report)),
    ...robustnessSection(run.report),
    { id: 'questions-section', title: 'Questions', html: questionTable([run]) },
  ];
  return htmlPage({ title: `VES Lens report: ${run.label}`, meta: metaLines([run], page), sections });
}

/** `compare --html`: the comparison table with intervals, what changed, the charts per run, every question side by side. */
export function compareHtml(runs: readonly HtmlRun[], comparison: RunComparison, page?: string): string {
  const sections: HtmlSection[] = [
    {
      id: 'summary',
      title: 'Comparison',
      html: comparisonTable(comparison) + runs.map((run) => `<h3>${escapeHtml(run.label)}</h3>${summaryTable(run)}`).join(''),
    },
    { id: 'changes', title: 'What changed', html: changeSection(comparison) },
    { id: 'difficulty', title: 'By difficulty', html: difficultyBars(runs) },
    ...timingSections(runs, comparison.timed),
    { id: 'questions-section', title: 'Questions', html: questionTable(runs, comparison) },
  ];
  return htmlPage({ title: `VES Lens comparison: ${runs.map((r) => r.label).join(' vs ')}`, meta: metaLines(runs, page), sections });
}

function problemsHtml(report: EvalReportJson): string {
  const headline = report.headline_problems ?? [];
  if (headline.length === 0) return '';
  return `<h3>Problems that explain many results</h3><ul class="notes">${headline.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>`;
}

/** `eval --html`: the report `eval --json` writes, with each question's SQL from its task; `page`: where it is written. */
export function evalReportHtml(report: unknown, tasks: readonly EvalTask[], predictionsFile: string, page?: string): string {
  const sql = new Map(tasks.map((task) => [task.question.index, { gold: task.goldSql, pred: task.predictedSql }]));
  return evalHtml(
    {
      label: predictionsFile.split(/[\\/]/).pop() ?? predictionsFile,
      file: predictionsFile,
      report: report as EvalReportJson,
      sql,
    },
    page,
  );
}
