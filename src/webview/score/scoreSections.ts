// The Score panel's plainer sections: the question, why the scores are what they are, both SQLs, both results'
// first rows, and the rows one result has and the other lacks.
import { plainText } from '../../core/text/terminalText';
import type { QuestionInfo, ScoreResult } from '../../shared/protocol';
import { Child, h, icon } from '../common/dom';
import { previewTable, sqlBlock, valueCell } from '../common/elements';

/** The question a panel shows: its id, database and difficulty, its text and evidence (a score and a judgement alike). */
export function questionHeader(q: QuestionInfo): Child[] {
  return [
    h('h1', {}, `Question ${q.questionId} `, h('span', { className: 'muted' }, `${q.dbId} · ${q.difficulty || 'no difficulty'}`)),
    h('p', {}, plainText(q.question)),
    q.evidence ? h('p', { className: 'muted' }, `Evidence: ${plainText(q.evidence)}`) : null,
  ];
}

/** Why the scores are what they are (column counts, Soft-F1 below 1 for a correct result...). */
export function explanationSection(result: ScoreResult): HTMLDivElement | null {
  if (!result.explanations?.length) return null;
  return h(
    'div',
    { className: 'explanations', role: 'note' },
    result.explanations.map((text) => h('p', {}, icon('info'), ' ', plainText(text))),
  );
}

export function sideBySide(left: Child, right: Child): HTMLDivElement {
  return h('div', { className: 'side-by-side' }, left, right);
}

export function sqlSection(sqls: { goldSql: string; predSql: string }): Child[] {
  return [
    h('h2', {}, 'SQL'),
    sideBySide(
      h('div', {}, h('h3', {}, 'gold'), sqlBlock(sqls.goldSql, 'gold SQL')),
      h('div', {}, h('h3', {}, 'prediction'), sqlBlock(sqls.predSql, 'predicted SQL')),
    ),
  ];
}

export function resultSection(result: ScoreResult): Child[] | null {
  if (!result.goldPreview || !result.predPreview) return null;
  return [h('h2', {}, 'Results'), sideBySide(previewTable(result.goldPreview, 'gold'), previewTable(result.predPreview, 'prediction'))];
}

function rowsTable(rows: readonly unknown[]): HTMLDivElement {
  const cells = (row: unknown) => (Array.isArray(row) ? row : [row]).map(valueCell);
  return h(
    'div',
    { className: 'scroll-box' },
    h(
      'table',
      { className: 'rows' },
      h(
        'tbody',
        {},
        rows.map((row) => h('tr', {}, cells(row))),
      ),
    ),
  );
}

export function differenceSection(difference: NonNullable<ScoreResult['difference']>): Child[] {
  const rows = (title: string, list: readonly unknown[]) => (list.length ? [h('h3', {}, title), rowsTable(list)] : []);
  return [
    h('h2', {}, 'Result difference'),
    h('p', {}, `prediction returned ${difference.pred_rows} rows, gold ${difference.gold_rows}`),
    ...rows('gold rows the prediction lacks (first 5)', difference.missing),
    ...rows('predicted rows gold lacks (first 5)', difference.extra),
  ];
}
