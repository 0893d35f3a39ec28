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
