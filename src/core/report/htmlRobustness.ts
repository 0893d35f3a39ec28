import type { EvalReportJson } from '../eval/reportFile';
import { robustnessLines, RobustnessSummary } from '../eval/robustnessSummary';
import type { HtmlSection } from './htmlPage';
import { escapeHtml } from './htmlCharts';

const cell = (rows: unknown[][]) => escapeHtml(rows.map((row) => JSON.stringify(row)).join('\n') || '(no rows)');

/**
 * The HTML report's "Can EX be trusted here?" section (eval --counterexamples): the counts, then each
 * counterexample (how it was made, the file, both results side by side) and each EX-fragile mismatch.
 */
export function robustnessSection(report: EvalReportJson): HtmlSection[] {
  const summary = (report.summary as { robustness?: RobustnessSummary } | undefined)?.robustness;
  if (!summary) return [];
  const lines = robustnessLines(summary).map((line) => `<li>${escapeHtml(line)}</li>`);
  const witnesses = report.questions
    .filter((q) => q.counterexample)
    .map((q) => {
      const c = q.counterexample!;
      return `<tr><td class="num">${escapeHtml(String(q.question_id))}</td><td>${escapeHtml(q.db_id)}</td><td>${escapeHtml(c.how)}<br><code class="small">${escapeHtml(c.database)}</code></td><td><pre>${cell(c.gold_rows)}</pre></td><td><pre>${cell(c.prediction_rows)}</pre></td></tr>`;
    });
  const fragile = report.questions
    .filter((q) => q.ex_fragile)
    .map(
      (q) =>
        `<tr><td class="num">${escapeHtml(String(q.question_id))}</td><td>${escapeHtml(q.db_id)}</td><td>${escapeHtml(q.ex_fragile!.kind.replace(/_/g, ' '))}</td><td>${escapeHtml(q.ex_fragile!.detail)}</td></tr>`,
    );
  const html = [
    `<ul id="robustness-counts">${lines.join('')}</ul>`,
    witnesses.length
      ? `<table id="counterexamples"><thead><tr><th>question</th><th>database</th><th>how it was made</th><th>gold on it</th><th>prediction on it</th></tr></thead><tbody>${witnesses.join('')}</tbody></table>`
      : '',
    fragile.length
      ? `<table id="ex-fragile"><thead><tr><th>question</th><th>database</th><th>kind</th><th>why</th></tr></thead><tbody>${fragile.join('')}</tbody></table>`
      : '',
    '<p class="muted small">Each counterexample database was re-run after it was written: both queries on it, compared as EX compares (sets of rows). It keeps the original CREATE TABLE statements (keys, UNIQUE, NOT NULL) of the tables the two queries read.</p>',
  ];
  return [{ id: 'robustness', title: 'Can EX be trusted here?', html: html.join('') }];
}
