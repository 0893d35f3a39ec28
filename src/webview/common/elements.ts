// The pieces every panel draws alike: a card, a block of SQL, a cell of a result, a result's first rows.
import { plainText } from '../../core/text/terminalText';
import type { ResultPreview } from '../../shared/protocol';
import { Child, h } from './dom';
import { counted } from './format';

/** A headline number with its label and, under it, what it means. */
export function card(label: string, value: string, detail?: Child, className?: string): HTMLDivElement {
  return h(
    'div',
    { className: 'card' },
    h('div', { className: 'label' }, label),
    h('div', { className: `value ${className ?? ''}` }, value),
    detail ? h('div', { className: 'detail' }, detail) : null,
  );
}

/** SQL, highlighted (highlight.js's SQL grammar, coloured by the theme in panel.css), in its own scrolling box. */
export function sqlBlock(sql: string, label?: string): HTMLPreElement {
  const code = h('code', { className: 'language-sql hljs' });
  const text = plainText(sql);
  if (window.hljs)
    code.innerHTML = window.hljs.highlight(text, { language: 'sql', ignoreIllegals: true }).value; // hljs escapes the text
  else code.textContent = text;
  return h('pre', { className: 'sql', tabindex: 0, 'aria-label': label ?? 'SQL' }, code);
}

/** A cell of a result: NULL and numbers as a person reads them. */
export function valueCell(value: unknown): HTMLTableCellElement {
  if (value === null || value === undefined) return h('td', { className: 'muted' }, 'NULL');
  return h('td', { className: typeof value === 'number' ? 'num' : '' }, plainText(value));
}

/** The first rows of a result with its column names, in a box that scrolls on its own. */
export function previewTable(preview: ResultPreview, title: string): HTMLDivElement {
  const count = preview.rowCount === null || preview.rowCount === undefined ? '' : counted(preview.rowCount, 'row');
  const shown = preview.truncated ? `first ${preview.rows.length} shown` : '';
  const caption = [title, counted(preview.columns.length, 'column'), count, shown].filter(Boolean).join(' · ');
  const emptyRow = h('tr', {}, h('td', { className: 'muted', colspan: Math.max(1, preview.columns.length) }, 'no rows'));
  const body = preview.error
    ? h('p', { className: 'error' }, plainText(preview.error))
    : h(
        'div',
        { className: 'scroll-box' },
        h(
          'table',
          { className: 'rows preview' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              preview.columns.map((column) => h('th', { scope: 'col' }, plainText(column))),
            ),
          ),
          h('tbody', {}, preview.rows.length ? preview.rows.map((row) => h('tr', {}, row.map(valueCell))) : emptyRow),
        ),
      );
  return h('div', { className: 'preview-block' }, h('div', { className: 'caption' }, caption), body);
}
