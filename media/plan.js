// The plan panel: the annotated EXPLAIN QUERY PLAN tree of one query.
window.addEventListener('message', ({ data }) => {
  if (data.type !== 'plan') return;
  const p = data.plan;
  render(
    h('h1', {}, 'Query plan'),
    h('p', { className: 'muted' }, `SQLite ${p.sqlite} · ${p.dbPath}`),
    h('div', { className: 'row' }, card('rule cost', String(p.rule), 'SCAN +100, temp B-tree +50'), card('row visits', `~${Math.round(p.work).toLocaleString()}`, 'row-aware estimate')),
    h('h2', {}, 'Tree'),
    h('pre', { tabindex: 0 }, p.error ? `no plan: ${p.error}` : p.lines.join('\n')),
    h('h2', {}, 'SQL'),
    h('pre', {}, data.sql),
  );
});
