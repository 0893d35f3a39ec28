// The Score panel's partial credit: SQLMorph's techniques (ScoreResult.techniques). The score table (technique ×
// EX/EXP/EXR/F1, errors as such), then one technique's details (picked): which predicted column matched which
// gold column, and how each row fared (exact, partial, none).
import type { RowMatch, RowMatchKind, TechniqueName, TechniqueScore } from '../../core/results/sqlmorph/types';
import { plainText } from '../../core/text/terminalText';
import type { ScoreResult, TechniqueRowsView, TechniquesView, TechniqueTableView, TechniqueView } from '../../shared/protocol';
import { Child, h, icon, nodes, selectedValue } from '../common/dom';
import { valueCell } from '../common/elements';
import { counted, fixed } from '../common/format';
import { sideBySide } from './scoreSections';
import { channel } from './scoreState';

const TECHNIQUE_TEXT: Record<TechniqueName, string> = {
  execution_accuracy: "the same set of rows (BIRD's EX)",
  exact_column_and_exact_cell: 'columns matched by exact name; a row counts when all its matched cells are equal',
  exact_column_and_partial_cell: 'columns matched by exact name; rows left over pair greedily, each worth its share of equal cells',
  semantic_column_and_exact_cell:
    'columns matched by meaning (embeddings, similarity above 0.7); a row counts when all its matched cells are equal',
  semantic_column_and_partial_cell: 'columns matched by meaning (embeddings); rows left over pair greedily by equal cells',
  no_column_and_partial_cell: 'column names ignored: each row a set of cell values, rows paired by Jaccard similarity',
  unified_column_and_semantic_row:
    'each row one text over the union of column names, rows paired by the cosine similarity of their embeddings',
};
/** Whose details a new result shows first: the most telling technique that scored. */
const DETAIL_PREFERENCE: readonly TechniqueName[] = [
  'semantic_column_and_partial_cell',
  'exact_column_and_partial_cell',
  'unified_column_and_semantic_row',
  'no_column_and_partial_cell',
  'semantic_column_and_exact_cell',
  'exact_column_and_exact_cell',
  'execution_accuracy',
];
const FATE: Record<RowMatchKind, { icon: string; label: string }> = {
  exact: { icon: 'pass', label: 'exact' },
  partial: { icon: 'circle-large-outline', label: 'partial' },
  none: { icon: 'circle-slash', label: 'none' },
};
const SCORE_KEYS = ['EX', 'EXP', 'EXR', 'F1'] as const;
type ScoreKey = (typeof SCORE_KEYS)[number];
const TECHNIQUE_COLUMN_TEXT: Record<ScoreKey, string> = {
  EX: 'the same set of rows (1) or not (0)',
  EXP: 'matched cells over predicted cells (precision)',
  EXR: 'matched cells over gold cells (recall)',
  F1: 'harmonic mean of EXP and EXR',
};

/** The technique whose details the person picked: kept across results while it is there. */
let techniqueShown: TechniqueName | null = null;

/** A technique that could not score says why instead of its scores. */
const failed = (score: TechniqueScore): score is { error: string } => 'error' in score;

function techniqueScoreRow(t: TechniqueView): HTMLTableRowElement {
  const name = h('th', { scope: 'row', title: TECHNIQUE_TEXT[t.name] ?? '' }, h('code', {}, t.name));
  const score = t.score;
  if (failed(score)) {
    return h(
      'tr',
      { className: 'technique-error' },
      name,
      h('td', { colspan: 4, className: 'error' }, icon('error'), ` ${plainText(score.error)}`),
    );
  }
  const values = score as Partial<Record<ScoreKey, number>>;
  const value = (key: ScoreKey) =>
    values[key] === undefined
      ? h('td', { className: 'num muted' }, '–')
      : h('td', { className: `num ${key === 'F1' ? 'f1' : ''}` }, key === 'EX' ? String(values.EX) : fixed(values[key], 3));
  return h('tr', {}, name, SCORE_KEYS.map(value));
}

/**
 * The semantic techniques that did not score for want of embeddings, when setting them up is what is missing:
 * an optional feature, said once in a quiet line (techniqueSetup), not as a red error row per technique.
 */
function awaitingEmbeddings(view: TechniquesView): TechniqueView[] {
  const awaiting = view.setup?.techniques ?? [];
  return view.techniques.filter((t) => awaiting.includes(t.name));
}

function techniqueScoreTable(view: TechniquesView): HTMLDivElement {
  const optional = new Set(awaitingEmbeddings(view));
  const head = SCORE_KEYS.map((k) => h('th', { scope: 'col', className: 'num', title: TECHNIQUE_COLUMN_TEXT[k] }, k));
  return h(
    'div',
    { className: 'scroll-box' },
    h(
      'table',
      { className: 'techniques', 'aria-label': 'SQLMorph technique scores' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'technique'), head)),
      h('tbody', {}, view.techniques.filter((t) => !optional.has(t)).map(techniqueScoreRow)),
    ),
  );
}

/** What the embeddings, the penalty and the setup say, under the table. */
function techniqueSettingsLine(view: TechniquesView): HTMLParagraphElement {
  const e = view.embeddings;
  const embeddings = e
    ? e.provider === 'local'
      ? 'embeddings: the local model'
      : `embeddings: ${plainText(e.model)} at ${plainText(e.url)}`
    : null;
  const penalty = view.penalizeExtraColumns
    ? 'predicted cells count every predicted column'
    : 'predicted cells count only the matched columns';
  return h('p', { className: 'muted small' }, [penalty, embeddings].filter(Boolean).join(' · '));
}

function techniqueSetup(view: TechniquesView): HTMLDivElement | null {
  const setup = view.setup;
  if (!setup) return null;
  const waiting = awaitingEmbeddings(view);
  const button =
    setup.action === 'key'
      ? h(
          'vscode-button',
          { secondary: true, icon: 'key', onclick: () => channel.post({ type: 'setUpEmbeddings', action: 'key' }) },
          'Set Embeddings API Key',
        )
      : h(
          'vscode-button',
          { secondary: true, icon: 'settings-gear', onclick: () => channel.post({ type: 'setUpEmbeddings', action: 'settings' }) },
          'Embeddings Settings',
        );
  const names = waiting.map((t) => h('code', { title: plainText((t.score as { error: string }).error) }, t.name));
  const list = names.flatMap((name, i) => (i ? [', ', name] : [name]));
  return h(
    'div',
    { className: 'muted small technique-setup', role: 'note' },
    h('p', {}, icon('info'), waiting.length ? [` Not scored (optional, needs embeddings): `, ...list, '. '] : ' ', plainText(setup.hint)),
    h('div', { className: 'actions' }, button),
  );
}

const columnName = (table: TechniqueTableView | null, i: number) =>
  table && table.columns[i] !== undefined ? plainText(table.columns[i]) : `column ${i + 1}`;

/** Which predicted column went with which gold column, with the similarity; the columns left out on either side. */
function alignmentTable(view: TechniquesView, t: TechniqueView): HTMLDivElement {
  const pairs = t.columns ?? [];
  const rows = pairs.map((p) =>
    h(
      'tr',
      { className: p.matched ? 'aligned' : 'unaligned' },
      h('td', {}, columnName(view.predicted, p.predicted)),
      h('td', { 'aria-hidden': 'true', className: 'muted' }, icon('arrow-right')),
      h('td', {}, columnName(view.gold, p.gold)),
      h('td', { className: 'num' }, fixed(p.similarity, 3)),
      h('td', {}, p.matched ? [icon('pass'), ' matched'] : [icon('circle-slash'), ' below 0.7: not matched']),
    ),
  );
  // Columns in no pair at all (a pair below the threshold has its own row above).
  const inPair = (side: 'predicted' | 'gold', i: number) => pairs.some((p) => p[side] === i);
  const muted = (text: string) => h('td', { className: 'muted' }, text);
  const noSimilarity = () => h('td', { className: 'num muted' }, '–');
  (view.predicted?.columns ?? []).forEach((_, i) => {
    if (!inPair('predicted', i)) {
      const why = view.penalizeExtraColumns ? ' extra: its cells count against precision' : ' extra: not counted';
      rows.push(
        h(
          'tr',
          { className: 'unaligned' },
          h('td', {}, columnName(view.predicted, i)),
          muted(''),
          muted('no gold column'),
          noSimilarity(),
          h('td', {}, icon('circle-slash'), why),
        ),
      );
    }
  });
  (view.gold?.columns ?? []).forEach((_, j) => {
    if (!inPair('gold', j)) {
      rows.push(
        h(
          'tr',
          { className: 'unaligned' },
          muted('not predicted'),
          muted(''),
          h('td', {}, columnName(view.gold, j)),
          noSimilarity(),
          h('td', {}, icon('circle-slash'), ' missed: its cells count against recall'),
        ),
      );
    }
  });
  return h(
    'div',
    { className: 'scroll-box' },
    h(
      'table',
      { className: 'alignment', 'aria-label': `column alignment of ${t.name}` },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'predicted column'),
          h('th', { scope: 'col', 'aria-label': 'matched to' }),
          h('th', { scope: 'col' }, 'gold column'),
          h('th', { scope: 'col', className: 'num' }, 'similarity'),
          h('th', { scope: 'col' }, ''),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}

/** How this technique matches columns, in words, and the alignment table where it has one. */
function alignmentSection(view: TechniquesView, t: TechniqueView): Child[] | null {
  const head = h('h3', {}, 'Column alignment');
  const say = (text: string) => [head, h('p', { className: 'muted' }, text)];
  if (view.sameRows)
    return say(
      "The two results hold the same set of rows: every technique scores 1 without matching columns or rows (SQLMorph's check_ex).",
    );
  if (t.name === 'execution_accuracy') return say('EX compares whole rows, column by column in order: no alignment.');
  if (t.name === 'no_column_and_partial_cell') return say('Column names are ignored: each row is compared as the set of its cell values.');
  if (t.name === 'unified_column_and_semantic_row') {
    const union = [...new Set([...(view.predicted?.columns ?? []), ...(view.gold?.columns ?? [])])];
    return say(
      `Each row becomes one text over the union of the column names (${union.map(plainText).join(', ')});` +
        " a column gold has and the prediction lacks lowers every row's credit.",
    );
  }
  if (!t.columns) return null;
  const note =
    t.columns.length === 0 && t.name.startsWith('exact_column')
      ? h('p', { className: 'muted' }, 'No column name in common: nothing is matched, every cell is missed.')
      : null;
  return [head, note, alignmentTable(view, t)];
}

function fateCell(fate: RowMatch, otherSide: string): HTMLTableCellElement {
  const f = FATE[fate.kind] ?? FATE.none;
  const partner = fate.partner === undefined ? '' : ` with ${otherSide} #${fate.partner + 1}`;
  const amount = fate.kind === 'partial' && fate.similarity !== undefined ? ` ${fixed(fate.similarity, 2)}` : '';
  const title = fate.kind === 'partial' ? 'share of the row matched (equal cells, Jaccard or cosine, as the technique measures it)' : '';
  return h('td', { className: `fate fate-${fate.kind}`, title }, icon(f.icon), ` ${f.label}${amount}${partner}`);
}

function countsText(counts: Record<RowMatchKind, number>): string {
  return (['exact', 'partial', 'none'] as const).map((k) => `${counts[k]} ${k}`).join(' · ');
}

/** One side of a technique's details: its rows and columns against the other side's. */
interface Side {
  title: string;
  other: string;
  table(view: TechniquesView): TechniqueTableView | null;
  otherTable(view: TechniquesView): TechniqueTableView | null;
  fates(rows: TechniqueRowsView): RowMatch[];
  counts(rows: TechniqueRowsView): Record<RowMatchKind, number>;
  /** This side's and the other side's key in a column pair. */
  mine: 'gold' | 'predicted';
  theirs: 'gold' | 'predicted';
}
const SIDES: Record<'gold' | 'predicted', Side> = {
  gold: {
    title: 'gold',
    other: 'prediction',
    table: (v) => v.gold,
    otherTable: (v) => v.predicted,
    fates: (r) => r.gold,
    counts: (r) => r.goldCounts,
    mine: 'gold',
    theirs: 'predicted',
  },
  predicted: {
    title: 'prediction',
    other: 'gold',
    table: (v) => v.predicted,
    otherTable: (v) => v.gold,
    fates: (r) => r.predicted,
    counts: (r) => r.predictedCounts,
    mine: 'predicted',
    theirs: 'gold',
  },
};

/**
 * A partly matched row of a column-aligned technique: its cells on matched columns that differ from its partner's
 * (column → the partner's value). None when the partner is past the rows listed.
 */
function differingCells(view: TechniquesView, t: TechniqueView, side: Side, row: readonly unknown[], fate: RowMatch): Map<number, unknown> {
  const partner =
    fate.kind === 'partial' && t.columns && fate.partner !== undefined ? side.otherTable(view)?.rows[fate.partner] : undefined;
  const differs = new Map<number, unknown>();
  if (!partner || !t.columns) return differs;
  for (const pair of t.columns.filter((p) => p.matched)) {
    const theirs = partner[pair[side.theirs]];
    if (JSON.stringify(row[pair[side.mine]]) !== JSON.stringify(theirs)) differs.set(pair[side.mine], theirs);
  }
  return differs;
}

/** One side's rows with their fate: the first rowLimit of them; the counts are of all rows. */
function fateTable(view: TechniquesView, t: TechniqueView, rowsView: TechniqueRowsView, side: Side): HTMLDivElement {
  const table = side.table(view);
  if (!table) return h('div', {});
  const fates = side.fates(rowsView);
  const shown = Math.min(fates.length, table.rows.length);
  const cut = table.rowCount > shown ? ` · first ${shown} of ${table.rowCount.toLocaleString('en-US')} listed` : '';
  const caption = `${side.title} · ${counted(table.rowCount, 'row')}: ${countsText(side.counts(rowsView))}${cut}`;
  // Column-aligned techniques: a column matched to none on the other side is shown as such.
  const aligned = t.columns ? new Set(t.columns.filter((p) => p.matched).map((p) => p[side.mine])) : null;
  const header = table.columns.map((c, i) =>
    aligned && !aligned.has(i)
      ? h('th', { scope: 'col', className: 'unaligned', title: `matched to no ${side.other} column by this technique` }, plainText(c))
      : h('th', { scope: 'col' }, plainText(c)),
  );
  const cells = (row: readonly unknown[], fate: RowMatch) => {
    const differs = differingCells(view, t, side, row, fate);
    return row.map((value, c) => {
      const cell = valueCell(value);
      if (differs.has(c)) {
        const theirs = differs.get(c);
        cell.classList.add('cell-differs');
        cell.title = `${side.other} #${fate.partner! + 1} has ${theirs === null ? 'NULL' : plainText(theirs)}`;
      }
      return cell;
    });
  };
  const body = shown
    ? table.rows
        .slice(0, shown)
        .map((row, i) =>
          h(
            'tr',
            { className: `fate-row fate-${fates[i].kind}` },
            h('td', { className: 'num muted' }, String(i + 1)),
            fateCell(fates[i], side.other),
            cells(row, fates[i]),
          ),
        )
    : [h('tr', {}, h('td', { className: 'muted', colspan: table.columns.length + 2 }, 'no rows'))];
  return h(
    'div',
    { className: 'preview-block' },
    h('div', { className: 'caption' }, caption),
    h(
      'div',
      { className: 'scroll-box' },
      h(
        'table',
        { className: 'rows fates', 'aria-label': `${side.title} rows and how they matched` },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', className: 'num' }, '#'), h('th', { scope: 'col' }, 'match'), header)),
        h('tbody', {}, body),
      ),
    ),
  );
}

function rowFateSection(view: TechniquesView, t: TechniqueView): Child[] | null {
  if (!t.rows) return null;
  const tables = sideBySide(fateTable(view, t, t.rows, SIDES.gold), fateTable(view, t, t.rows, SIDES.predicted));
  const legend = [
    tables.querySelector('.cell-differs')
      ? "Underlined: a cell of a partly matched row that differs from its partner's (hover for the other value)."
      : null,
    tables.querySelector('th.unaligned') ? 'Greyed column names: matched to no column of the other side.' : null,
  ].filter(Boolean);
  return [h('h3', {}, 'Rows'), tables, legend.length ? h('p', { className: 'muted small' }, legend.join(' ')) : null];
}

function techniqueDetails(view: TechniquesView): Child[] | null {
  const usable = view.techniques.filter((t) => !failed(t.score));
  if (!usable.length) return null;
  const preferred = DETAIL_PREFERENCE.map((n) => usable.find((t) => t.name === n)).find(Boolean);
  const chosen = usable.find((t) => t.name === techniqueShown) ?? preferred ?? usable[0];
  const slot = h('div', { id: 'technique-detail' });
  const draw = (t: TechniqueView) => {
    slot.replaceChildren(
      ...nodes([h('p', { className: 'muted' }, TECHNIQUE_TEXT[t.name] ?? ''), alignmentSection(view, t), rowFateSection(view, t)]),
    );
  };
  draw(chosen);
  const pick = (event: Event) => {
    const picked = usable.find((t) => t.name === selectedValue(event)) ?? chosen;
    techniqueShown = picked.name;
    draw(picked);
  };
  const picker =
    usable.length > 1
      ? h(
          'div',
          { className: 'picker' },
          h('label', { for: 'technique' }, 'details of'),
          h(
            'vscode-single-select',
            { id: 'technique', onchange: pick },
            usable.map((t) => h('vscode-option', { value: t.name, selected: t.name === chosen.name || undefined }, t.name)),
          ),
        )
      : h('p', { className: 'muted' }, `details of ${chosen.name}`);
  return [picker, slot];
}

/** The section: scores, setup hint, the query that could not be read, details, notes. */
export function techniqueSection(result: ScoreResult): HTMLElement | null {
  const view = result.techniques;
  if (!view) return null;
  return h(
    'section',
    { id: 'techniques', 'aria-label': 'partial credit (SQLMorph)' },
    h('h2', {}, 'Partial credit (SQLMorph)'),
    techniqueScoreTable(view),
    techniqueSettingsLine(view),
    techniqueSetup(view),
    view.failure
      ? h(
          'p',
          { className: 'error' },
          icon('error'),
          ` the ${view.failure.side} could not be read for the techniques: ${plainText(view.failure.message)}`,
        )
      : null,
    view.failure ? null : techniqueDetails(view),
    view.notes?.length
      ? h(
          'ul',
          { className: 'notes muted' },
          view.notes.map((n) => h('li', {}, plainText(n))),
        )
      : null,
  );
}
