/**
 * The comparison panel's words and bar, as plain text and markup (no vscode import: tested with node:test): its
 * title, what was compared with what, and the bar that carries the files compared for the page to keep.
 */
import type { CompareReportsResult } from '../../shared/protocol';
import { escapeText } from '../reportPage';

type Compared = Pick<CompareReportsResult, 'labels' | 'compared' | 'questions' | 'incomplete'>;

export function comparisonTitle(labels: readonly string[]): string {
  return `Compare: ${labels.join(' vs ')}`;
}

/** Which run is the baseline, and how many questions count (a question skipped in any run counts in none). */
export function comparisonStatusLine(result: Compared): string {
  const [baseline, ...others] = result.labels;
  const questions =
    result.compared === result.questions
      ? `${result.questions} questions compared`
      : `${result.compared} of ${result.questions} questions compared (skipped in a run: left out)`;
  return `${others.join(', ')} against ${baseline} (the baseline) · ${questions}`;
}

/** The files an Explorer multi-selection gives to compare (two or more JSON files), else none: ask. */
export function selectedReports(clicked: string | undefined, selected: readonly string[] | undefined): string[] | undefined {
  const files = (selected?.length ? selected : clicked ? [clicked] : []).filter((file) => file.toLowerCase().endsWith('.json'));
  return files.length >= 2 ? files : undefined;
}

/**
 * One report chosen where a comparison needs two (issue 30: "Other files…" took one, then said "choose at least
 * two"): the workspace's other eval reports to pick from, or what is missing, in words naming the file.
 */
export function secondReport(chosen: string, workspaceReports: readonly string[]): { offer: string[] } | { missing: string } {
  const offer = workspaceReports.filter((file) => file !== chosen);
  if (offer.length) return { offer };
  return {
    missing:
      `comparing needs a second eval report of the same question file: only ${chosen} was chosen, and the workspace holds no other. ` +
      'Write one with the Report panel\'s "JSON report" or `ves-lens eval --json`, or choose it with "Other files..."',
  };
}

/**
 * The bar put first in the page: what is compared, Save as HTML, another comparison; the files for the page to
 * keep. A report of an interrupted run gets a banner of its own there: "incomplete run: N of M questions".
 */
export function comparisonBar(result: Compared, files: readonly string[]): string {
  const banners = (result.incomplete ?? []).map(
    (text) => `<span class="vl-partial vl-incomplete" role="status">\u26a0 ${escapeText(text)}</span>`,
  );
  return (
    `<div class="vl-bar" data-files="${escapeText(JSON.stringify(files))}">` +
    banners.join('') +
    `<span class="vl-status">${escapeText(comparisonStatusLine(result))}</span>` +
    '<button type="button" data-action="save">Save as HTML</button>' +
    '<button type="button" class="secondary" data-action="pick">Compare Other Reports...</button></div>'
  );
}
