import * as path from 'node:path';
import { escapeHtml } from './htmlCharts';

// One self-contained HTML file: styles and the small table script inline, charts as inline SVG, no external
// resource of any kind. The content security policy forbids every fetch, so the file stays offline even if a
// future edit slipped a URL in.

const CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --panel: #f6f8fa; --hover: #eef2f6;
  --good: #1a7f37; --bad: #cf222e; --warn: #9a6700; --s0: #0969da; --s1: #bc4c00; --s2: #8250df; --s3: #1a7f37; --s4: #cf222e; --s5: #57606a; --gold: #8c959f; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --panel: #151b23; --hover: #1c2430;
    --good: #3fb950; --bad: #f85149; --warn: #d29922; --s0: #4493f8; --s1: #f0883e; --s2: #ab7df8; --s3: #3fb950; --s4: #f85149; --s5: #9198a1; --gold: #7d8590; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
header, main { max-width: 1280px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; border-bottom: 1px solid var(--border); }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--border); }
h3 { font-size: 14px; margin: 16px 0 6px; }
nav#toc { display: flex; gap: 4px 14px; flex-wrap: wrap; padding: 8px 0 10px; }
nav#toc .toc-label { color: var(--muted); font-weight: 600; }
a { color: var(--s0); }
.muted { color: var(--muted); }
.small { font-size: 12px; }
code, .sql { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.sql { white-space: pre-wrap; word-break: break-word; background: var(--panel); border: 1px solid var(--border); padding: 6px 8px; border-radius: 4px; margin: 4px 0; }
table { border-collapse: collapse; margin: 6px 0 10px; }
th, td { border-bottom: 1px solid var(--border); padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
table[data-filterable] th { position: sticky; top: 0; z-index: 1; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
tbody tr:hover { background: var(--hover); }
.up { color: var(--good); font-weight: 600; }
.down { color: var(--bad); font-weight: 600; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px; border: 1px solid var(--border); white-space: nowrap; }
.badge.correct { color: var(--good); border-color: var(--good); }
.badge.mismatch, .badge.prediction_error, .badge.refused, .badge.timeout { color: var(--bad); border-color: var(--bad); }
.badge.gold_error { color: var(--warn); border-color: var(--warn); }
.badge.skipped { color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 12px 24px; }
figure.chart { margin: 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: 2px; }
figure.chart svg { width: 100%; height: auto; display: block; }
svg .grid { stroke: var(--border); stroke-width: 1; }
svg .axis { stroke: var(--muted); stroke-width: 1; }
svg .tick, svg .label { fill: var(--muted); font-size: 11px; font-family: system-ui, sans-serif; }
svg .bar:hover, svg .dot:hover { opacity: 0.75; }
svg .dot { fill-opacity: 0.7; stroke: var(--bg); stroke-width: 0.5; }
.legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 12px; color: var(--muted); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; background: currentColor; }
.s0 { fill: var(--s0); color: var(--s0); } .s1 { fill: var(--s1); color: var(--s1); } .s2 { fill: var(--s2); color: var(--s2); }
.s3 { fill: var(--s3); color: var(--s3); } .s4 { fill: var(--s4); color: var(--s4); } .s5 { fill: var(--s5); color: var(--s5); }
.gold { fill: var(--gold); color: var(--gold); }
.controls { display: flex; gap: 10px; flex-wrap: wrap; align-items: center; margin: 8px 0; padding: 6px 0; }
/* Long words (paths, SQL without spaces) wrap inside the column instead of widening the table past the window. */
td.details { min-width: 140px; max-width: 460px; overflow-wrap: anywhere; word-break: break-word; }
details#skipped-questions { margin: 10px 0; }
details#skipped-questions summary { color: var(--muted); }
/* The audit's four prose columns share the width; "why" gets the most. */
td.wide { width: 12%; min-width: 120px; max-width: 420px; overflow-wrap: anywhere; }
td.wide.why { width: 26%; }
/* The audit's eleven columns: long names break anywhere and counts at spaces, or "why" gets the width of a word. */
#audit td:not(.num) { overflow-wrap: anywhere; }
#audit td.num { white-space: normal; }
.controls input, .controls select { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--border); border-radius: 4px; padding: 3px 6px; }
.controls input { min-width: 260px; }
.scroll { overflow-x: auto; }
th button { all: unset; cursor: pointer; }
th button:focus-visible { outline: 2px solid var(--s0); }
th[aria-sort="ascending"] button::after { content: " ▲"; }
th[aria-sort="descending"] button::after { content: " ▼"; }
details summary { cursor: pointer; color: var(--muted); }
ul.changes { margin: 4px 0 10px; padding-left: 20px; }
.notes li { color: var(--warn); }
/* Paper: light colours, the whole column used, nothing cut off at the page's edge. Wide tables wrap instead of
   scrolling (a scroll box prints only what is in view); search and filters are left out; the question table
   starts on a page of its own, so the summary and charts above it fit on the first pages. */
@page { margin: 12mm; }
@media print {
  :root { color-scheme: light; --bg: #ffffff; --fg: #000000; --muted: #444c56; --border: #c8cfd6; --panel: #f2f4f6; --hover: transparent;
    --good: #1a7f37; --bad: #cf222e; --warn: #7d5300; --s0: #0969da; --s1: #bc4c00; --s2: #8250df; --s3: #1a7f37; --s4: #cf222e; --s5: #57606a; --gold: #8c959f; }
  body { font-size: 10px; }
  header, main { max-width: none; padding: 0; }
  h1 { font-size: 16px; }
  h2 { font-size: 13px; margin: 12px 0 6px; break-after: avoid; }
  h3 { font-size: 11px; margin: 8px 0 4px; break-after: avoid; }
  a { color: inherit; text-decoration: none; }
  .controls, th button::after { display: none; }
  .scroll { overflow: visible; }
  table[data-filterable], .scroll > table { width: 100%; }
  th, td { padding: 2px 4px; }
  /* Two or three runs side by side: the question table in a smaller type, badges that may wrap. */
  table[data-filterable] { font-size: 9px; }
  table.runs td:not(.num) { overflow-wrap: anywhere; }
  table.runs th, table.runs td { padding: 2px; }
  table.runs td.details { width: auto; }
  .badge { font-size: inherit; padding: 0 3px; white-space: normal; }
  th.num, td.num { white-space: normal; }
  /* Chromium leaves buttons out of the header it repeats on each printed page: the label is printed instead. */
  th[data-sort] button { display: none; }
  th[data-sort]::before { content: attr(data-label); }
  table[data-filterable] th { position: static; }
  td.details, td.wide { min-width: 0; max-width: none; overflow-wrap: anywhere; }
  /* Auto layout would give text columns the width of their longest word and squeeze the prose into a sliver. */
  td.details { width: 22%; }
  code, .sql { font-size: 9px; }
  thead { display: table-header-group; }
  tr, figure.chart, .sql { break-inside: avoid; }
  .charts { grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 4px 18px; }
  svg .tick, svg .label { font-size: 10px; }
  #questions-section, #ranked { break-before: page; }
}
/* A narrow window (an editor panel beside the code): each row becomes a card of labelled lines, nothing off-screen. */
@media screen and (max-width: 720px) {
  header, main { padding: 0 12px; }
  .charts { grid-template-columns: minmax(0, 1fr); }
  .controls input { min-width: 0; flex: 1 1 100%; }
  table[data-filterable] { display: block; }
  table[data-filterable] thead tr { display: flex; flex-wrap: wrap; gap: 2px 12px; }
  table[data-filterable] thead th { position: static; display: block; background: none; border: none; padding: 2px 0; }
  table[data-filterable] thead th:not([data-sort]) { display: none; }
  table[data-filterable] tbody, table[data-filterable] tbody tr { display: block; }
  table[data-filterable] tbody tr { border: 1px solid var(--border); border-radius: 6px; margin: 8px 0; padding: 4px 10px; }
  table[data-filterable] tbody tr[hidden] { display: none; }
  table[data-filterable] tbody td { display: block; border: none; padding: 2px 0; min-width: 0; max-width: none; text-align: left;
    white-space: normal; overflow-wrap: anywhere; }
  table[data-filterable] tbody td.wide, table[data-filterable] tbody td.details { width: auto; }
  table[data-filterable] tbody td:empty { display: none; }
  table[data-filterable] tbody td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-weight: 600; }
}
`;

/** Filter, search and sort for tables marked `data-filterable` (and their controls). No library, no network. */
const SCRIPT = `
(function () {
  for (const table of document.querySelectorAll('table[data-filterable]')) {
    const id = table.id;
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    const search = document.querySelector('input[data-search-for="' + id + '"]');
    const selects = Array.from(document.querySelectorAll('select[data-filter-for="' + id + '"]'));
    const count = document.querySelector('[data-count-for="' + id + '"]');
    // Each cell carries its column's heading: a narrow window shows rows as cards of labelled lines.
    const headings = Array.from(table.tHead.rows[0].cells).map(function (th) { return th.textContent.trim(); });
    for (const row of rows) {
      for (const cell of row.cells) if (headings[cell.cellIndex]) cell.setAttribute('data-label', headings[cell.cellIndex]);
    }
    function apply() {
      const text = search ? search.value.trim().toLowerCase() : '';
      let shown = 0;
      for (const row of rows) {
        let ok = !text || (row.getAttribute('data-search') || '').indexOf(text) >= 0;
        for (const select of selects) {
          if (!ok || !select.value) continue;
          const values = (row.getAttribute('data-' + select.getAttribute('data-filter')) || '').split(' ');
          ok = values.indexOf(select.value) >= 0;
        }
        row.hidden = !ok;
        if (ok) shown++;
      }
      if (count) count.textContent = shown + ' of ' + rows.length + ' shown';
    }
    if (search) search.addEventListener('input', apply);
    for (const select of selects) select.addEventListener('change', apply);
    for (const th of table.tHead.querySelectorAll('th[data-sort]')) {
      const button = th.querySelector('button');
      (button || th).addEventListener('click', function () {
        const column = th.cellIndex;
        const numeric = th.getAttribute('data-sort') === 'number';
        const direction = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
        for (const other of table.tHead.querySelectorAll('th')) other.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', direction === 1 ? 'ascending' : 'descending');
        const value = function (row) {
          const cell = row.cells[column];
          const raw = cell ? (cell.getAttribute('data-v') !== null ? cell.getAttribute('data-v') : cell.textContent) : '';
          if (!numeric) return raw;
          const n = parseFloat(raw);
          return isNaN(n) ? null : n;
        };
        const sorted = rows.slice().sort(function (a, b) {
          const x = value(a), y = value(b);
          if (x === y) return 0;
          if (x === null || x === '') return 1;
          if (y === null || y === '') return -1;
          return (numeric ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true })) * direction;
        });
        for (const row of sorted) body.appendChild(row);
      });
    }
    apply();
  }
})();
`;

export interface HtmlSection {
  id: string;
  title: string;
  html: string;
}

/**
 * A local file as a page names it: relative to the folder the page is written to, so the page reads the same on
 * another machine and never shows this one's folders; a page not written to a file (the editor's panels) names
 * the file alone.
 */
export function pagePath(file: string, page?: string): string {
  if (page) return path.relative(path.dirname(path.resolve(page)), path.resolve(file)) || '.';
  return path.isAbsolute(file) ? path.basename(file) : file;
}

/** The whole document: header, a table of contents, the sections; styles and script inline; a CSP that allows no fetch. */
export function htmlPage(options: { title: string; subtitle?: string; meta?: string[]; sections: HtmlSection[] }): string {
  const csp =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
  const toc = options.sections.map((s) => `<a href="#${escapeHtml(s.id)}">${escapeHtml(s.title)}</a>`).join('');
  const meta = (options.meta ?? []).map((line) => `<div class="muted small">${escapeHtml(line)}</div>`).join('');
  const body = options.sections
    .map((s) => `<section id="${escapeHtml(s.id)}"><h2>${escapeHtml(s.title)}</h2>${s.html}</section>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(options.title)}</title>
<style>${CSS}</style>
</head>
<body>
<header><h1>${escapeHtml(options.title)}</h1>${options.subtitle ? `<div>${escapeHtml(options.subtitle)}</div>` : ''}${meta}<nav id="toc" aria-label="Contents"><span class="toc-label">Contents</span>${toc}</nav></header>
<main>
${body}
<p class="muted small">Written by VES Lens. Self-contained: no network, no external files.</p>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** Controls for a filterable table: a search box, one select per filter, and the "N of M shown" counter. */
export function tableControls(
  tableId: string,
  filters: { name: string; label: string; values: string[] }[],
  placeholder = 'search question, database, SQL, error…',
): string {
  const selects = filters
    .filter((f) => f.values.length > 1)
    .map(
      (f) =>
        `<label>${escapeHtml(f.label)} <select data-filter-for="${escapeHtml(tableId)}" data-filter="${escapeHtml(f.name)}"><option value="">any</option>${f.values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(v.replace(/_/g, ' '))}</option>`).join('')}</select></label>`,
    )
    .join('');
  return `<div class="controls"><input type="search" data-search-for="${escapeHtml(tableId)}" placeholder="${escapeHtml(placeholder)}" aria-label="search">${selects}<span class="muted small" data-count-for="${escapeHtml(tableId)}"></span></div>`;
}

/** A sortable header cell. */
export function sortableTh(label: string, kind: 'number' | 'text', numeric = kind === 'number'): string {
  return `<th data-sort="${kind}" data-label="${escapeHtml(label)}"${numeric ? ' class="num"' : ''}><button type="button">${escapeHtml(label)}</button></th>`;
}
