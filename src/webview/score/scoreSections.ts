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

const FRAGILE_KINDS: Record<NonNullable<ScoreResult['ex_fragile']>['kind'], string> = {
  float_digits: 'float digits',
  row_order: 'row order',
};

/** A mismatch EX counts wrong although the results differ only in float digits or through the physical row order. */
function fragileNote(fragile: ScoreResult['ex_fragile']): HTMLParagraphElement | null {
  if (!fragile) return null;
  const kind = FRAGILE_KINDS[fragile.kind] ?? fragile.kind;
  return h(
    'p',
    { className: 'ex-fragile' },
    icon('warning'),
    ' ',
    h('strong', {}, `EX-fragile (${kind}): `),
    plainText(fragile.detail),
    h('span', { className: 'muted' }, '. EX scores it 0 all the same, as the official scripts do.'),
  );
}

/** Why the scores are what they are (column counts, Soft-F1 below 1 for a correct result, an EX-fragile mismatch...). */
export function explanationSection(result: ScoreResult): HTMLDivElement | null {
  const fragile = fragileNote(result.ex_fragile);
  if (!result.explanations?.length && !fragile) return null;
  return h(
    'div',
    { className: 'explanations', role: 'note' },
    (result.explanations ?? []).map((text) => h('p', {}, icon('info'), ' ', plainText(text))),
    fragile,
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
