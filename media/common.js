// Helpers shared by the panels' scripts (no framework: the pages are small).
const vscodeApi = acquireVsCodeApi();
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else if (key === 'className') element.className = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) element.append(child instanceof Node ? child : String(child));
  return element;
}
function icon(name) {
  return h('span', { className: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}
function card(label, value, detail, className) {
  return h('div', { className: 'card' }, h('div', { className: 'label' }, label), h('div', { className: `value ${className ?? ''}` }, value), detail ? h('div', { className: 'detail' }, detail) : null);
}
function fmt(n, digits = 2) {
  return n === null || n === undefined ? '–' : Number(n).toFixed(digits);
}
function render(...nodes) {
  const app = document.getElementById('app');
  app.replaceChildren(...nodes.flat().filter(Boolean));
}

/** Text from the server as it should read: never a terminal colour code. */
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-_]?/g;
const plain = (text) => String(text ?? '').replace(ESCAPES, '');

/** 1234567 → "1.2M": estimates are orders of magnitude, not counts. */
function compact(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

/** SQL, highlighted (highlight.js's SQL grammar, coloured by the theme in panel.css), in its own scrolling box. */
function sqlBlock(sql, label) {
  const code = h('code', { className: 'language-sql hljs' });
  const text = plain(sql);
  if (window.hljs) code.innerHTML = window.hljs.highlight(text, { language: 'sql', ignoreIllegals: true }).value; // hljs escapes the text
  else code.textContent = text;
  return h('pre', { className: 'sql', tabindex: 0, 'aria-label': label ?? 'SQL' }, code);
}

/** A cell of a result: NULL and numbers as a person reads them. */
function valueCell(value) {
  if (value === null || value === undefined) return h('td', { className: 'muted' }, 'NULL');
  return h('td', { className: typeof value === 'number' ? 'num' : '' }, plain(value));
}

/** The first rows of a result with its column names, in a box that scrolls on its own. */
function previewTable(preview, title) {
  const count = preview.rowCount === null || preview.rowCount === undefined ? '' : `${preview.rowCount.toLocaleString('en-US')} row${preview.rowCount === 1 ? '' : 's'}`;
  const caption = [title, `${preview.columns.length} column${preview.columns.length === 1 ? '' : 's'}`, count, preview.truncated ? `first ${preview.rows.length} shown` : ''].filter(Boolean).join(' · ');
  const body = preview.error
    ? h('p', { className: 'error' }, plain(preview.error))
    : h('div', { className: 'scroll-box' }, h('table', { className: 'rows preview' },
      h('thead', {}, h('tr', {}, preview.columns.map((c) => h('th', { scope: 'col' }, plain(c))))),
      h('tbody', {}, preview.rows.length ? preview.rows.map((row) => h('tr', {}, row.map(valueCell))) : h('tr', {}, h('td', { className: 'muted', colspan: Math.max(1, preview.columns.length) }, 'no rows')))));
  return h('div', { className: 'preview-block' }, h('div', { className: 'caption' }, caption), body);
}

/**
 * Panels restore after a reload: each page keeps the last message it drew in its webview state, and draws it
 * again when VS Code restores the panel (the extension's WebviewPanelSerializer gives it the same page).
 */
function remember(message) {
  vscodeApi.setState({ ...(vscodeApi.getState() ?? {}), message });
}
function restore(handle) {
  const saved = vscodeApi.getState()?.message;
  if (saved) handle(saved, true);
}

// The extension holds its messages until the page can hear them: say so once every script has run (deferred
// page scripts run before DOMContentLoaded), or a message posted right after the panel opened would be lost.
document.addEventListener('DOMContentLoaded', () => vscodeApi.postMessage({ type: 'ready' }));
