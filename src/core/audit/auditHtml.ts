import { auditCounts, INDEX_GAIN_FACTOR, isFlaggedIndexGain, NOT_AUDITED_LABELS, notAuditedText } from './auditFindings';
import { CrossDialectCheck, crossDialectText, goldNames, isCrossDialectFinding } from './crossDialect';
import type { GoldAudit, GoldAuditEntry } from './goldAudit';
import { CORRECTNESS_KINDS, CORRECTNESS_LABELS, CorrectnessFinding, correctnessSummaryText } from './correctness/kinds';
import { barChart, escapeHtml, logScatter } from '../report/htmlCharts';
import { htmlPage, pagePath, sortableTh, tableControls } from '../report/htmlPage';
import { compactNumber } from '../report/planText';
import { optimizeSectionHtml } from './auditOptimize';

const fmt = (n: number) => (n >= 10 ? n.toFixed(0) : n.toFixed(2));

function kindsOf(entry: GoldAuditEntry): string[] {
  const kinds: string[] = [];
  if (entry.status === 'skipped') kinds.push('not_audited');
  if (entry.status === 'gold_error') kinds.push('gold_error');
  kinds.push(...new Set((entry.correctness ?? []).map((f) => f.kind)));
  if (isCrossDialectFinding(entry.cross_dialect)) kinds.push('cross_dialect');
  // A hint rule of the correctness kind whose rewrite returns other rows: not one of the --correctness findings above.
  if (entry.rewrites.some((r) => r.kind === 'correctness' && r.status === 'changes-results')) kinds.push('rewrite_changes_results');
  if (entry.rewrites.some((r) => r.kind === 'speed' && r.status === 'faster')) kinds.push('faster_rewrite');
  if (entry.indexes.some((i) => isFlaggedIndexGain(i.gain))) kinds.push('index');
  if ((entry.faster_predictions?.files ?? 0) > 0) kinds.push('faster_prediction');
  if ((entry.growth?.exponent ?? 0) >= 1.5) kinds.push('grows');
  return kinds;
}

/** Both golds' SQL and first rows, under a cross-dialect check that is not a plain `same`. */
function crossDialectEvidence(check: CrossDialectCheck | undefined): string {
  if (!check || (check.status === 'same' && !check.precision_only)) return '';
  const { gold, compared } = check.evidence;
  const names = goldNames(gold.engine, compared?.engine ?? gold.engine);
  // The audited gold's SQL is in the row already; the compared gold's is shown here.
  const side = (name: string, result: typeof gold | null, withSql: boolean) =>
    result
      ? `<div class="small"><strong>${escapeHtml(name)}</strong>: ${escapeHtml(result.error ?? `${result.rows} row${result.rows === 1 ? '' : 's'}, first ${JSON.stringify(result.first_rows)}`)}</div>` +
        (withSql ? `<div class="sql">${escapeHtml(result.sql)}</div>` : '')
      : '';
  const finding = isCrossDialectFinding(check);
  const summary = finding ? 'both golds’ results' : `cross-dialect: ${check.precision_only ? 'same past rounding' : 'not compared'}`;
  return `<details><summary>${escapeHtml(summary)}</summary>${finding ? '' : `<div class="small muted">${escapeHtml(check.detail)}</div>`}${side(names.gold, gold, false)}${side(names.compared, compared, true)}</details>`;
}

/** Each correctness finding's evidence: what was run, the rows as written and the rows of the check. */
function correctnessEvidence(findings: readonly CorrectnessFinding[] | undefined): string {
  const rows = (r: unknown[][] | undefined) => (r ? escapeHtml(JSON.stringify(r)) : '-');
  return (findings ?? [])
    .map(({ kind, evidence }) => {
      const sql = evidence.sql ? `<div class="sql">${escapeHtml(evidence.sql)}</div>` : '';
      const calls = evidence.calls ? `<div class="small">calls: ${escapeHtml(evidence.calls.join(', '))}</div>` : '';
      const shown =
        evidence.rows_as_written || evidence.rows_of_check
          ? `<div class="small">as written: ${rows(evidence.rows_as_written)}</div><div class="small">${escapeHtml(evidence.check)}: ${rows(evidence.rows_of_check)}</div>`
          : '';
      return `<details><summary>evidence: ${escapeHtml(CORRECTNESS_LABELS[kind])}</summary><div class="small muted">${escapeHtml(evidence.check)}</div>${shown}${calls}${sql}</details>`;
    })
    .join('');
}

/** Where a rule found its pattern, as the gold's own words (a rule can fire at two places of one gold). */
function placeOf(gold: string, at: { start: number; end: number } | undefined): string {
  if (!at) return '';
  const text = gold.slice(at.start, at.end).replace(/\s+/g, ' ');
  return ` <span class="small muted">at “${escapeHtml(text.length > 40 ? `${text.slice(0, 40)}…` : text)}”</span>`;
}

function row(entry: GoldAuditEntry, rank: number | null): string {
  const kinds = kindsOf(entry);
  const rewrites = entry.rewrites
    .map(
      (r) =>
        `<div><strong>${escapeHtml(r.rule)}</strong>${placeOf(entry.gold_sql, r.at)} <span class="${r.status === 'faster' ? 'up' : r.status === 'changes-results' ? 'down' : 'muted'}">${escapeHtml(r.status.replace(/-/g, ' '))}${r.gain ? ` ${fmt(r.gain.ratio)}× [${fmt(r.gain.low)}–${fmt(r.gain.high)}]` : ''}</span><details><summary>rewrite</summary><div class="sql">${escapeHtml(r.sql)}</div><div class="small muted">${escapeHtml(r.message)}</div></details></div>`,
    )
    .join('');
  const indexes = entry.indexes
    .map((i) => {
      const flagged = isFlaggedIndexGain(i.gain);
      const verdict = i.gain && escapeHtml(i.gain.verdict.replace(/-/g, ' '));
      const measured = i.gain && `${verdict} ${fmt(i.gain.ratio)}× [${fmt(i.gain.low)}–${fmt(i.gain.high)}]`;
      const small = i.gain?.verdict === 'faster' && !flagged ? `, under the ${INDEX_GAIN_FACTOR}× flag` : '';
      const said = measured ? `${measured}${small}` : 'planner uses it (not measured)';
      return `<div><code>${escapeHtml(i.create_sql)}</code> <span class="${flagged ? 'up' : 'muted'}">${said}</span></div>`;
    })
    .join('');
  const fp = entry.faster_predictions;
  // A gold that was not run (its database missing) says so: "nothing found" would read as a clean gold.
  const unrun = entry.status === 'skipped';
  const notAudited = unrun ? `not audited: ${entry.not_audited ? NOT_AUDITED_LABELS[entry.not_audited] : 'not run'}` : '';
  const why = unrun
    ? `<span class="down">${escapeHtml(notAudited)}</span>${entry.error ? `<div class="small muted">${escapeHtml(entry.error)}</div>` : ''}`
    : entry.reasons.length
      ? `<ul class="changes">${entry.reasons.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>`
      : '<span class="muted">nothing found</span>';
  const evidence = unrun ? '' : correctnessEvidence(entry.correctness) + crossDialectEvidence(entry.cross_dialect);
  const score = unrun ? '<td class="num" data-v="">-</td>' : `<td class="num" data-v="${entry.score}">${entry.score.toFixed(1)}</td>`;
  const search = [entry.question_id, entry.db_id, entry.difficulty, entry.gold_sql, notAudited, ...entry.reasons].join(' ').toLowerCase();
  return `<tr id="q-${entry.index}" data-kind="${kinds.join(' ')}" data-difficulty="${escapeHtml(entry.difficulty)}" data-db="${escapeHtml(entry.db_id)}" data-search="${escapeHtml(search)}">
<td class="num" data-v="${rank ?? ''}">${rank ?? '-'}</td>${score}<td>${escapeHtml(entry.question_id)}</td>
<td>${escapeHtml(entry.db_id)}</td><td>${escapeHtml(entry.difficulty)}</td>
<td class="wide why">${why}${evidence}<details><summary>gold SQL</summary><div class="sql">${escapeHtml(entry.gold_sql)}</div></details></td>
<td class="num" data-v="${entry.plan?.work ?? ''}" title="rule cost · row-aware estimate">${entry.plan ? `${entry.plan.rule} · ~${compactNumber(entry.plan.work)}` : '-'}</td>
<td class="wide">${rewrites || '<span class="muted">-</span>'}</td><td class="wide">${indexes || '<span class="muted">-</span>'}</td>
<td class="wide">${entry.growth ? escapeHtml(entry.growth.verdict) : '<span class="muted">-</span>'}</td>
<td class="num" data-v="${fp?.files ?? ''}">${fp ? `${fp.files} / ${fp.of}${fp.best ? ` (best ${fmt(fp.best)}×)` : ''}` : '-'}</td></tr>`;
}

/**
 * The page's header lines: which files, which engine (`audit --html` and the editor's "Save as HTML" write the same
 * page). Files are named from the folder of `page`, the file the page is written to.
 */
export function auditHtmlMeta(
  inputs: { questions: string; gold?: string; dbRoot: string; comparedGold?: { file: string; engine: string } },
  tool: { sqlite: string; version: string },
  page?: string,
): string[] {
  const named = (file: string) => pagePath(file, page);
  return [
    `questions ${named(inputs.questions)}${inputs.gold ? ` · gold ${named(inputs.gold)}` : ''} · databases ${named(inputs.dbRoot)}`,
    ...(inputs.comparedGold ? [`compared gold ${named(inputs.comparedGold.file)} on ${inputs.comparedGold.engine}`] : []),
    `SQLite ${tool.sqlite} · VES Lens ${tool.version}`,
  ];
}

/**
 * The gold audit as one self-contained page: what was found, a chart of the kinds, plan cost against time, and the
 * ranked table with filter and search. `page`: the file it is written to (files are named from its folder).
 */
export function auditHtml(audit: GoldAudit, meta: string[] = [], page?: string): string {
  const rankOf = new Map(audit.ranked.map((e, i) => [e, i + 1]));
  const ordered = [...audit.ranked, ...audit.entries.filter((e) => !rankOf.has(e))];
  const foundCorrectness = CORRECTNESS_KINDS.filter((k) => audit.entries.some((e) => e.correctness?.some((f) => f.kind === k)));
  const kinds = [
    'gold_error',
    ...foundCorrectness,
    ...(audit.cross_dialect ? ['cross_dialect'] : []),
    'rewrite_changes_results',
    'faster_rewrite',
    'faster_prediction',
    'index',
    'grows',
  ];
  const labels: Record<string, string> = {
    ...CORRECTNESS_LABELS,
    gold_error: 'gold fails',
    cross_dialect: 'dialects differ',
    rewrite_changes_results: 'rewrite changes results',
    faster_rewrite: 'faster rewrite',
    faster_prediction: 'faster prediction',
    index: 'index gain',
    grows: 'grows at scale',
  };
  const counts = kinds.map((k) => audit.entries.filter((e) => kindsOf(e).includes(k)).length);
  const chart = barChart({
    id: 'audit-kinds',
    title: 'What was found',
    categories: kinds.map((k) => labels[k]),
    series: [{ label: 'gold SQL', values: counts }],
    yLabel: 'gold SQL',
    format: (v) => String(Math.round(v)),
    yMax: Math.max(4, Math.ceil(Math.max(...counts) / 4) * 4),
    // Up to a dozen kinds, some with long names: level labels would run into each other.
    slantLabels: true,
  });
  const gains = audit.entries.flatMap((e) => {
    const best = Math.max(
      0,
      ...e.rewrites.filter((r) => r.status === 'faster').map((r) => r.gain!.ratio),
      ...(e.faster_predictions?.best ? [e.faster_predictions.best] : []),
    );
    return e.plan && best > 0
      ? [
          {
            x: Math.max(1, e.plan.work),
            y: best,
            title: `question ${e.question_id}: ~${e.plan.work} row visits, ${fmt(best)}× faster available`,
            key: String(e.index),
          },
        ]
      : [];
  });
  const scatter = logScatter({
    id: 'audit-scatter',
    title: 'Gold plan cost against the best measured speed-up found',
    series: [{ label: 'gold SQL with a faster form', className: 's0', points: gains }],
    xLabel: 'row-aware estimate of the gold (log)',
    yLabel: 'speed-up (log)',
  });
  const auditedCounts = auditCounts(audit.entries);
  const notAudited = notAuditedText(auditedCounts);
  const audited = `${audit.entries.length} gold SQL${notAudited ? `: ${auditedCounts.audited} audited and ${escapeHtml(notAudited)}` : ''}`;
  const threshold =
    ` An index is flagged when its whole repeat interval says it makes the gold at least ${INDEX_GAIN_FACTOR}× as fast;` +
    ' smaller gains stay in the indexes column.';
  const measuredNote = audit.measured ? threshold : ' Rewrites and indexes were not measured (--no-measure).';
  const files = audit.prediction_files.length
    ? ` Prediction files: ${audit.prediction_files.map((file) => escapeHtml(pagePath(file, page))).join(', ')}.`
    : '';
  const crossDialect = audit.cross_dialect ? `<p>${escapeHtml(crossDialectText(audit.cross_dialect))}.</p>` : '';
  const correctness = audit.correctness
    ? `<p>${escapeHtml(correctnessSummaryText(audit.correctness))}.${audit.correctness.notes.map((n) => ` ${escapeHtml(n)}.`).join('')}</p>`
    : '';
  const summary =
    `<p>${audited}; ${audit.ranked.length} worth another look.${measuredNote}${files}</p>${correctness}${crossDialect}` +
    `<div class="charts">${chart}${scatter}</div>`;
  const head =
    ['#', 'score'].map((h) => sortableTh(h, 'number')).join('') +
    ['question', 'database', 'difficulty'].map((h) => sortableTh(h, 'text', false)).join('') +
    '<th>why</th>' +
    sortableTh('plan cost', 'number') +
    '<th>rewrites</th><th>indexes</th><th>at scale</th>' +
    sortableTh('faster predictions', 'number');
  const filters = [
    { name: 'kind', label: 'found', values: audit.entries.some((e) => e.status === 'skipped') ? [...kinds, 'not_audited'] : kinds },
    { name: 'difficulty', label: 'difficulty', values: [...new Set(audit.entries.map((e) => e.difficulty).filter(Boolean))] },
    { name: 'db', label: 'database', values: [...new Set(audit.entries.map((e) => e.db_id))].sort() },
  ];
  const table = `${tableControls('audit', filters, 'search question, database, gold SQL, reason…')}<div class="scroll"><table id="audit" data-filterable><thead><tr>${head}</tr></thead><tbody>${ordered.map((e) => row(e, rankOf.get(e) ?? null)).join('\n')}</tbody></table></div>`;
  return htmlPage({
    title: 'VES Lens gold audit',
    meta,
    sections: [
      { id: 'summary', title: 'Summary', html: summary },
      { id: 'ranked', title: 'Gold SQL, worth another look first', html: table },
      ...(audit.optimize
        ? [{ id: 'optimize', title: 'Time the gold could save: verified rewrites', html: optimizeSectionHtml(audit) }]
        : []),
    ],
  });
}
