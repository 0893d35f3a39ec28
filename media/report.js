// The evaluation report: the per-difficulty table, then every question: filtered (outcome, database,
// difficulty, text), sorted (any column, failures first when asked), each with the reason for its score; a
// row opens its Score panel, its file icon jumps to the entry in the prediction file; export as CSV or JSON.
// Results stream in while the file is scored; a cancelled run keeps what it scored and says so.
// Messages: ReportPanelMessage / ReportPanelRequest in src/shared/webviewMessages.ts.

const COLUMNS = [
  ['question_id', 'question', 'num'], ['db_id', 'database'], ['difficulty', 'difficulty'], ['outcome', 'outcome'], ['reason', 'reason'],
  ['ex', 'EX', 'num'], ['f1', 'Soft-F1', 'num'], ['ves', 'VES', 'num'], ['rves', 'R-VES', 'num'], ['time_ratio', 'ratio', 'num'],
  ['gold_ms', 'gold ms', 'num'], ['pred_ms', 'pred ms', 'num'],
];
const METRIC_LABELS = { ex: 'EX', f1: 'Soft-F1', ves: 'VES', rves: 'R-VES' };
const OUTCOME_LABELS = { correct: 'correct', mismatch: 'mismatch', prediction_error: 'prediction error', gold_error: 'gold error', timeout: 'timeout', refused: 'refused', skipped: 'skipped' };
/** Failures first: the order "failures first" sorts outcomes in. */
const FAILURE_RANK = { gold_error: 0, prediction_error: 1, timeout: 2, refused: 3, mismatch: 4, correct: 5, skipped: 6 };

let report = { file: '', rows: [], result: null, running: false, progress: '' };
let view = { text: '', outcome: 'all', database: 'all', difficulty: 'all', failuresFirst: false, sort: { key: 'question_id', descending: false } };

// ---- the judge column: the latest judgement of each question (made in the editor), when there is any --------
let judgements = {}; // question id → JudgeFlag (src/shared/webviewMessages.ts)
/** A row's judgement: the verdict counts only for the same prediction; the Refuter's flags are the question's. */
function judgementOf(row) {
  const flag = judgements[String(row.question_id)];
  if (!flag) return null;
  return { ...flag, sameSql: flag.predictedSql.trim() === String(row.predicted_sql ?? '').trim() };
}
function judgeCell(row) {
  const j = judgementOf(row);
  if (!j) return h('td', { className: 'muted' }, '');
  const flags = [j.goldFlagged ? 'gold flagged' : null, j.ambiguity].filter(Boolean);
  const verdict = !j.sameSql ? '' : j.score === null ? 'no verdict' : String(j.score);
  const title = [j.sameSql ? `judge (${j.model}): ${j.error ?? (j.score === 1 ? 'answers the question' : 'does not answer the question')}` : 'judged for another prediction of this question', j.judgement ? `Refuter: ${j.judgement}` : ''].filter(Boolean).join('\n');
  return h('td', { className: 'judge-cell', title }, verdict, flags.length ? [verdict ? ' · ' : '', icon('warning'), ` ${flags.join(', ')}`] : '');
}
const judgeColumns = () => (report.rows.some((row) => judgementOf(row)) ? [['judge', 'judge']] : []);

const outcomeText = (o) => OUTCOME_LABELS[o] ?? String(o).replace('_', ' ');
const msText = (n) => (n === null || n === undefined ? '–' : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3));

function summaryTable(summary) {
  const groups = summary.groups;
  const total = groups[groups.length - 1];
  const metrics = Object.keys(total.scores);
  return h('div', { className: 'scroll-box' }, h('table', { className: 'summary' },
    h('thead', {}, h('tr', {}, h('th', {}, ''), groups.map((g) => h('th', { className: 'num' }, g.group)))),
    h('tbody', {},
      h('tr', {}, h('td', {}, 'count'), groups.map((g) => h('td', { className: 'num' }, String(g.count)))),
      metrics.map((m) => h('tr', {}, h('td', {}, METRIC_LABELS[m] ?? m), groups.map((g) => h('td', { className: 'num' }, fmt(g.scores[m]))))),
      Object.keys(total.outcomes).filter((o) => total.outcomes[o] > 0).map((o) =>
        h('tr', {}, h('td', { className: 'muted' }, outcomeText(o)), groups.map((g) => h('td', { className: 'num muted' }, String(g.outcomes[o]))))),
    )));
}

function matches(row) {
  if (view.outcome === 'failures' && row.outcome === 'correct') return false;
  if (view.outcome !== 'all' && view.outcome !== 'failures' && row.outcome !== view.outcome) return false;
  if (view.database !== 'all' && row.db_id !== view.database) return false;
  if (view.difficulty !== 'all' && row.difficulty !== view.difficulty) return false;
  if (view.text) {
    const haystack = `${row.question_id} ${row.db_id} ${row.difficulty} ${outcomeText(row.outcome)} ${row.reason} ${row.predicted_sql}`.toLowerCase();
    if (!view.text.toLowerCase().split(/\s+/).filter(Boolean).every((word) => haystack.includes(word))) return false;
  }
  return true;
}

function visibleRows() {
  const { key, descending } = view.sort;
  const value = (row) => (key === 'outcome' ? FAILURE_RANK[row.outcome] ?? 9 : key === 'judge' ? (judgementOf(row)?.sameSql ? judgementOf(row).score : undefined) : row[key]);
  return report.rows.filter(matches).sort((a, b) => {
    if (view.failuresFirst) {
      const rank = (FAILURE_RANK[a.outcome] ?? 9) - (FAILURE_RANK[b.outcome] ?? 9);
      if (rank) return rank;
    }
    const x = value(a) ?? -Infinity;
    const y = value(b) ?? -Infinity;
    const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y), undefined, { numeric: true }) : x < y ? -1 : x > y ? 1 : 0;
    return (order || a.index - b.index) * (descending ? -1 : 1);
  });
}

const openRow = (row) => vscodeApi.postMessage({ type: 'open', questionId: row.question_id, sql: row.predicted_sql });
const jumpTo = (row) => row.location && vscodeApi.postMessage({ type: 'jump', file: report.file, line: row.location.line, character: row.location.character });

function cellOf(row, key) {
  switch (key) {
    case 'outcome': return h('td', { className: `outcome-${row.outcome}` }, outcomeText(row.outcome));
    case 'f1': return h('td', { className: 'num' }, fmt(row.f1, 3));
    case 'ves': case 'rves': return h('td', { className: 'num' }, fmt(row[key], 3));
    case 'time_ratio': return h('td', { className: 'num' }, row.time_ratio === null ? '–' : `${fmt(row.time_ratio)}×`);
    case 'gold_ms': case 'pred_ms': return h('td', { className: 'num', title: row.same_program ? 'same program as gold: not timed' : undefined }, row.same_program ? '–' : msText(row[key]));
    case 'reason': return h('td', { className: 'reason' }, plain(row.reason));
    case 'ex': return h('td', { className: 'num' }, String(row.ex));
    case 'judge': return judgeCell(row);
    default: return h('td', { className: COLUMNS.find(([k]) => k === key)?.[2] === 'num' ? 'num' : '' }, plain(row[key]));
  }
}

function questionTable(rows) {
  const columns = [...COLUMNS, ...judgeColumns()];
  const header = columns.map(([key, label, kind]) => h('th', { className: kind === 'num' ? 'num' : '', scope: 'col', 'aria-sort': view.sort.key === key ? (view.sort.descending ? 'descending' : 'ascending') : 'none' },
    h('button', { onclick: () => { view.sort = { key, descending: view.sort.key === key ? !view.sort.descending : false }; drawTable(); } }, label, view.sort.key === key ? (view.sort.descending ? ' ▼' : ' ▲') : '')));
  return h('table', { className: 'questions' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { className: 'sr-only' }, 'entry')), header)),
    h('tbody', {}, rows.map((row) =>
      h('tr', { className: 'clickable', tabindex: 0, 'data-question': String(row.question_id), title: 'open its Score panel (Enter)', onclick: () => openRow(row), onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); openRow(row); } } },
        h('td', {}, row.location
          ? h('button', { className: 'icon-button jump', title: `go to the entry in the prediction file (line ${row.location.line + 1})`, 'aria-label': `go to question ${row.question_id} in the prediction file`, onclick: (e) => { e.stopPropagation(); jumpTo(row); } }, icon('go-to-file'))
          : null),
        columns.map(([key]) => cellOf(row, key))))));
}

function option(value, label, selected) {
  return h('option', { value, selected: selected || undefined }, label);
}

function toolbar() {
  const distinct = (key) => [...new Set(report.rows.map((r) => r[key]).filter(Boolean))].sort();
  const outcomes = Object.keys(OUTCOME_LABELS).filter((o) => report.rows.some((r) => r.outcome === o));
  const select = (id, label, values, current, onChange) => h('label', { className: 'filter' }, h('span', {}, label),
    h('select', { id, onchange: (e) => onChange(e.target.value) }, values.map(([value, text]) => option(value, text, value === current))));
  return h('div', { className: 'toolbar', role: 'search' },
    h('label', { className: 'filter search' }, icon('search'), h('input', { id: 'search', type: 'search', placeholder: 'search: id, database, reason, SQL', value: view.text, 'aria-label': 'search the questions', oninput: (e) => { view.text = e.target.value; drawTable(); } })),
    select('outcome', 'outcome', [['all', 'all'], ['failures', 'failures (not correct)'], ...outcomes.map((o) => [o, outcomeText(o)])], view.outcome, (v) => { view.outcome = v; drawTable(); }),
    select('database', 'database', [['all', 'all'], ...distinct('db_id').map((d) => [d, d])], view.database, (v) => { view.database = v; drawTable(); }),
    select('difficulty', 'difficulty', [['all', 'all'], ...distinct('difficulty').map((d) => [d, d])], view.difficulty, (v) => { view.difficulty = v; drawTable(); }),
    h('label', { className: 'filter check' }, h('input', { id: 'failures-first', type: 'checkbox', checked: view.failuresFirst || undefined, onchange: (e) => { view.failuresFirst = e.target.checked; drawTable(); } }), h('span', {}, 'failures first')),
    h('span', { className: 'spacer' }),
    h('vscode-button', { id: 'export-csv', secondary: true, icon: 'export', onclick: () => exportRows('csv') }, 'CSV'),
    h('vscode-button', { id: 'export-json', secondary: true, icon: 'json', onclick: () => exportRows('json') }, 'JSON'));
}

function exportRows(format) {
  vscodeApi.postMessage({ type: 'export', file: report.file, format, rows: visibleRows() });
}

function drawTable() {
  const slot = document.getElementById('questions');
  if (!slot) return;
  const rows = visibleRows();
  document.getElementById('shown').textContent = `${rows.length} of ${report.rows.length} questions shown${rows.length < report.rows.length ? ' (filtered)' : ''}`;
  slot.replaceChildren(rows.length ? questionTable(rows) : h('p', { className: 'muted' }, report.rows.length ? 'no question matches the filters' : 'no question scored yet'));
  remember({ type: 'restored', report, view, judgements });
}

function statusLine() {
  if (report.running) {
    return h('div', { className: 'actions', role: 'status' }, h('vscode-progress-ring', { className: 'ring' }), h('span', { className: 'status' }, `scoring… ${plain(report.progress)}`),
      h('vscode-button', { secondary: true, icon: 'debug-stop', onclick: () => vscodeApi.postMessage({ type: 'cancel' }) }, 'Cancel'));
  }
  const result = report.result;
  if (result?.partial) {
    const total = result.total ?? report.rows.length;
    return h('p', { className: 'partial', role: 'status' }, icon('warning'), report.rows.length < total
      ? ` cancelled: ${report.rows.length} of ${total} questions were scored before the run stopped; the tables show those only.`
      : ` cancelled while timing: all ${total} questions have EX and Soft-F1; pairs not yet timed score VES and R-VES 0 (their reason says so).`);
  }
  return null;
}

function draw() {
  const result = report.result;
  const skipped = report.rows.filter((r) => r.outcome === 'skipped').length;
  render(
    h('h1', {}, 'Evaluation report'),
    h('p', { className: 'muted' }, `${report.file}${result ? ` · SQLite ${result.sqlite}` : ''}${skipped ? ` · ${skipped} questions skipped (database missing)` : ''}`),
    statusLine(),
    result ? summaryTable(result.summary) : null,
    result?.problems.length ? [h('h2', {}, 'Input problems'), h('ul', { className: 'problems' }, result.problems.map((p) => h('li', {}, plain(p))))] : null,
    h('h2', {}, 'Questions ', h('span', { className: 'muted small' }, '(a row opens its Score panel; its file icon goes to the entry)')),
    toolbar(),
    h('p', { id: 'shown', className: 'muted small', 'aria-live': 'polite' }),
    h('div', { id: 'questions', className: 'scroll-box' }),
  );
  drawTable();
}

let pendingDraw = 0;
function drawSoon() {
  cancelAnimationFrame(pendingDraw);
  pendingDraw = requestAnimationFrame(draw);
}

function handle(data) {
  if (data.type === 'start') {
    report = { file: data.file, rows: [], result: null, running: true, progress: '' };
    draw();
  } else if (data.type === 'rows') {
    report.rows.push(...data.rows);
    report.progress = data.message;
    drawSoon();
  } else if (data.type === 'report') {
    report = { file: data.file, rows: data.result.questions, result: data.result, running: false, progress: '' };
    cancelAnimationFrame(pendingDraw);
    draw();
  } else if (data.type === 'failed') {
    report.running = false;
    render(h('h1', {}, 'Evaluation report'), h('p', { className: 'muted' }, data.file), h('p', { className: 'error' }, plain(data.message)),
      report.rows.length ? h('p', { className: 'muted' }, `${report.rows.length} questions were scored before it stopped.`) : null);
  } else if (data.type === 'judgements') {
    judgements = data.byQuestion ?? {};
    drawTable();
  } else if (data.type === 'restored') {
    report = { ...data.report, running: false };
    view = data.view;
    judgements = data.judgements ?? {};
    draw();
  }
}

window.addEventListener('message', ({ data }) => handle(data));
restore(handle);
