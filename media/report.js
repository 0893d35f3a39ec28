// The evaluation report: the per-difficulty table, then every question, sortable, each opening its Score panel.
const COLUMNS = [
  ['question_id', 'question', true], ['db_id', 'database'], ['difficulty', 'difficulty'], ['outcome', 'outcome'],
  ['ex', 'EX', true], ['f1', 'Soft-F1', true], ['time_ratio', 'time ratio', true], ['error', 'error'],
];
const METRIC_LABELS = { ex: 'EX', f1: 'Soft-F1', ves: 'VES', rves: 'R-VES' };
let rows = [];
let sort = { key: 'question_id', descending: false };

function summaryTable(summary) {
  const groups = summary.groups;
  const metrics = Object.keys(groups[groups.length - 1].scores);
  return h('table', {},
    h('thead', {}, h('tr', {}, h('th', {}, ''), groups.map((g) => h('th', { className: 'num' }, g.group)))),
    h('tbody', {},
      h('tr', {}, h('td', {}, 'count'), groups.map((g) => h('td', { className: 'num' }, String(g.count)))),
      metrics.map((m) => h('tr', {}, h('td', {}, METRIC_LABELS[m] ?? m), groups.map((g) => h('td', { className: 'num' }, fmt(g.scores[m]))))),
      Object.keys(groups[groups.length - 1].outcomes).filter((o) => groups[groups.length - 1].outcomes[o] > 0).map((o) =>
        h('tr', {}, h('td', { className: 'muted' }, o.replace('_', ' ')), groups.map((g) => h('td', { className: 'num muted' }, String(g.outcomes[o]))))),
    ));
}

function questionTable() {
  const sorted = [...rows].sort((a, b) => {
    const x = a[sort.key] ?? -Infinity;
    const y = b[sort.key] ?? -Infinity;
    return (x < y ? -1 : x > y ? 1 : 0) * (sort.descending ? -1 : 1);
  });
  const header = COLUMNS.map(([key, label, numeric]) => h('th', { className: numeric ? 'num' : '', 'aria-sort': sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none' },
    h('button', { onclick: () => { sort = { key, descending: sort.key === key ? !sort.descending : false }; draw(); } }, label, sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : '')));
  const open = (q) => vscodeApi.postMessage({ type: 'open', questionId: q.question_id, sql: q.predicted_sql });
  return h('table', {}, h('thead', {}, h('tr', {}, header)), h('tbody', {}, sorted.map((q) =>
    h('tr', { className: 'clickable', tabindex: 0, onclick: () => open(q), onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') open(q); } },
      h('td', { className: 'num' }, String(q.question_id)), h('td', {}, q.db_id), h('td', {}, q.difficulty),
      h('td', { className: `outcome-${q.outcome}` }, q.outcome.replace('_', ' ')), h('td', { className: 'num' }, String(q.ex)),
      h('td', { className: 'num' }, fmt(q.f1, 3)), h('td', { className: 'num' }, q.time_ratio === null ? '–' : `${fmt(q.time_ratio)}×`),
      h('td', { className: 'muted' }, q.error ?? '')))));
}

let header = [];
function draw() {
  render(...header, h('h2', {}, 'Questions (click or press Enter to open the Score panel)'), questionTable());
}

window.addEventListener('message', ({ data }) => {
  if (data.type !== 'report') return;
  rows = data.result.questions.filter((q) => q.outcome !== 'skipped');
  const skipped = data.result.questions.length - rows.length;
  header = [
    h('h1', {}, 'Evaluation report'),
    h('p', { className: 'muted' }, `${data.file} · SQLite ${data.result.sqlite}${skipped ? ` · ${skipped} questions skipped (database missing)` : ''}`),
    summaryTable(data.result.summary),
    data.result.problems.length ? [h('h2', {}, 'Input problems'), h('ul', {}, data.result.problems.map((p) => h('li', {}, p)))] : null,
  ];
  draw();
});
