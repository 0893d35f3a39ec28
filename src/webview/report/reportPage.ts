// The Report panel's page: the per-difficulty table, then every question: filtered (outcome, database,
// difficulty, text), sorted (any column, failures first when asked), each with the reason for its score; a row
// opens its Score panel, its file icon jumps to the entry in the prediction file; export the rows shown as CSV, or
// the run as the eval report `ves-lens eval --json` writes (Compare reads it back).
// Results stream in while the file is scored; a cancelled run keeps what it scored and says so.
// Messages: ReportPanelMessage / ReportPanelRequest in src/shared/webviewMessages.ts.
import type { EvalSummary } from '../../core/eval/evalSummary';
import { METRIC_LABELS, OUTCOME_LABELS } from '../../core/text/evalLabels';
import type { Metric, Outcome } from '../../core/eval/types';
import { plainText } from '../../core/text/terminalText';
import type { EvaluateFileResult, ReportRow } from '../../shared/protocol';
import type { JudgeFlag, ReportPanelMessage, ReportPanelRequest } from '../../shared/webviewMessages';
import { Child, h, icon, render } from '../common/dom';
import { counted, fixed, milliseconds } from '../common/format';
import { panelPage, RememberedMessage } from '../common/vscodeApi';
import { COLUMNS, Column, ColumnKey, INITIAL_VIEW, JUDGE_COLUMN, judgementOf, outcomeText, ReportView, visibleRows } from './reportRows';

/** The report as the page holds it: rows streamed in so far, the final result once there, whether it runs. */
interface ReportState {
  file: string;
  rows: ReportRow[];
  result: EvaluateFileResult | null;
  running: boolean;
  progress: string;
}

/** What a restored page draws again: the report, the filters and the judgements (the page's own message). */
type RestoredReport = { type: 'restored'; report: ReportState; view: ReportView; judgements: Record<string, JudgeFlag> };
type ReportPageMessage = ReportPanelMessage | RestoredReport;

const page = panelPage<ReportPageMessage, ReportPanelRequest, RememberedMessage<ReportPageMessage>>((data) => handle(data));

let report: ReportState = { file: '', rows: [], result: null, running: false, progress: '' };
let view: ReportView = INITIAL_VIEW;
/** Question id → the judge's latest verdict of it (made in the editor): a judge column shows when any row has one. */
let judgements: Record<string, JudgeFlag> = {};

function judgeCell(row: ReportRow): HTMLTableCellElement {
  const j = judgementOf(row, judgements);
  if (!j) return h('td', { className: 'muted' }, '');
  const flags = [j.goldFlagged ? 'gold flagged' : null, j.ambiguity].filter(Boolean);
  const verdict = !j.sameSql ? '' : j.score === null ? 'no verdict' : String(j.score);
  const said = j.error ?? (j.score === 1 ? 'answers the question' : 'does not answer the question');
  const title = [
    j.sameSql ? `judge (${j.model}): ${said}` : 'judged for another prediction of this question',
    j.judgement ? `Refuter: ${j.judgement}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return h(
    'td',
    { className: 'judge-cell', title },
    verdict,
    flags.length ? [verdict ? ' · ' : '', icon('warning'), ` ${flags.join(', ')}`] : '',
  );
}
const judgeColumns = (): Column[] => (report.rows.some((row) => judgementOf(row, judgements)) ? [JUDGE_COLUMN] : []);

function summaryTable(summary: EvalSummary): HTMLDivElement {
  const groups = summary.groups;
  const total = groups[groups.length - 1];
  const metrics = Object.keys(total.scores) as Metric[];
  const outcomes = (Object.keys(total.outcomes) as Outcome[]).filter((o) => total.outcomes[o] > 0);
  return h(
    'div',
    { className: 'scroll-box' },
    h(
      'table',
      { className: 'summary' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, ''),
          groups.map((g) => h('th', { className: 'num' }, g.group)),
        ),
      ),
      h(
        'tbody',
        {},
        h(
          'tr',
          {},
          h('td', {}, 'count'),
          groups.map((g) => h('td', { className: 'num' }, String(g.count))),
        ),
        metrics.map((m) =>
          h(
            'tr',
            {},
            h('td', {}, METRIC_LABELS[m] ?? m),
            groups.map((g) => h('td', { className: 'num' }, fixed(g.scores[m]))),
          ),
        ),
        outcomes.map((o) =>
          h(
            'tr',
            {},
            h('td', { className: 'muted' }, outcomeText(o)),
            groups.map((g) => h('td', { className: 'num muted' }, String(g.outcomes[o]))),
          ),
        ),
      ),
    ),
  );
}

const openRow = (row: ReportRow) => page.post({ type: 'open', questionId: row.question_id, sql: row.predicted_sql });
const jumpTo = (row: ReportRow) =>
  row.location && page.post({ type: 'jump', file: report.file, line: row.location.line, character: row.location.character });

function cellOf(row: ReportRow, key: ColumnKey): HTMLTableCellElement {
  switch (key) {
    case 'outcome':
      return h('td', { className: `outcome-${row.outcome}` }, outcomeText(row.outcome));
    case 'f1':
    case 'ves':
    case 'rves':
      return h('td', { className: 'num' }, fixed(row[key], 3));
    case 'rves_reward':
      return h('td', { className: 'num' }, row.rves_reward === null ? '–' : String(row.rves_reward));
    case 'first_row_ratio':
    case 'all_rows_ratio': {
      const timed = row[key];
      const title = timed
        ? `repeat interval ${fixed(timed.low)}–${fixed(timed.high)}×${row.same_program ? '; same program, not timed' : ''}`
        : undefined;
      return h('td', { className: 'num', title }, timed ? `${fixed(timed.ratio)}×` : '–');
    }
    case 'gold_ms':
    case 'pred_ms':
      return h(
        'td',
        { className: 'num', title: row.same_program ? 'same program as gold: not timed' : undefined },
        row.same_program ? '–' : milliseconds(row[key]),
      );
    case 'reason':
      return h('td', { className: 'reason' }, plainText(row.reason));
    case 'ex':
      return h('td', { className: 'num' }, String(row.ex));
    case 'judge':
      return judgeCell(row);
    default:
      return h('td', { className: COLUMNS.find(([k]) => k === key)?.[2] === 'num' ? 'num' : '' }, plainText(row[key as keyof ReportRow]));
  }
}

function questionTable(rows: readonly ReportRow[]): HTMLTableElement {
  const columns = [...COLUMNS, ...judgeColumns()];
  const sortBy = (key: ColumnKey) => {
    view = { ...view, sort: { key, descending: view.sort.key === key ? !view.sort.descending : false } };
    drawTable();
  };
  const header = columns.map(([key, label, kind, title]) => {
    const sorted = view.sort.key === key;
    const ariaSort = sorted ? (view.sort.descending ? 'descending' : 'ascending') : 'none';
    return h(
      'th',
      { className: kind === 'num' ? 'num' : '', scope: 'col', 'aria-sort': ariaSort, title },
      h('button', { onclick: () => sortBy(key) }, label, sorted ? (view.sort.descending ? ' ▼' : ' ▲') : ''),
    );
  });
  const jump = (row: ReportRow) =>
    h(
      'button',
      {
        className: 'icon-button jump',
        title: `go to the entry in the prediction file (line ${row.location!.line + 1})`,
        'aria-label': `go to question ${row.question_id} in the prediction file`,
        onclick: (event) => {
          event.stopPropagation();
          jumpTo(row);
        },
      },
      icon('go-to-file'),
    );
  const onKey = (row: ReportRow) => (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      openRow(row);
    }
  };
  return h(
    'table',
    { className: 'questions' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { className: 'sr-only' }, 'entry')), header)),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {
            className: 'clickable',
            tabindex: 0,
            'data-question': String(row.question_id),
            title: 'open its Score panel (Enter)',
            onclick: () => openRow(row),
            onkeydown: onKey(row),
          },
          h('td', {}, row.location ? jump(row) : null),
          columns.map(([key]) => cellOf(row, key)),
        ),
      ),
    ),
  );
}

function toolbar(): HTMLDivElement {
  const distinct = (key: 'db_id' | 'difficulty') => [...new Set(report.rows.map((r) => r[key]).filter(Boolean))].sort();
  const outcomes = (Object.keys(OUTCOME_LABELS) as Outcome[]).filter((o) => report.rows.some((r) => r.outcome === o));
  const option = (value: string, label: string, selected: boolean) => h('option', { value, selected: selected || undefined }, label);
  const select = (
    id: string,
    label: string,
    values: readonly (readonly [string, string])[],
    current: string,
    onChange: (value: string) => void,
  ) =>
    h(
      'label',
      { className: 'filter' },
      h('span', {}, label),
      h(
        'select',
        { id, onchange: (event) => onChange((event.target as HTMLSelectElement).value) },
        values.map(([value, text]) => option(value, text, value === current)),
      ),
    );
  const refilter = (change: Partial<ReportView>) => {
    view = { ...view, ...change };
    drawTable();
  };
  const search = h('input', {
    id: 'search',
    type: 'search',
    placeholder: 'search: id, database, reason, SQL',
    value: view.text,
    'aria-label': 'search the questions',
    oninput: (event) => refilter({ text: (event.target as HTMLInputElement).value }),
  });
  const failuresFirst = h('input', {
    id: 'failures-first',
    type: 'checkbox',
    checked: view.failuresFirst || undefined,
    onchange: (event) => refilter({ failuresFirst: (event.target as HTMLInputElement).checked }),
  });
  return h(
    'div',
    { className: 'toolbar', role: 'search' },
    h('label', { className: 'filter search' }, icon('search'), search),
    select(
      'outcome',
      'outcome',
      [['all', 'all'], ['failures', 'failures (not correct)'], ...outcomes.map((o) => [o, outcomeText(o)] as const)],
      view.outcome,
      (outcome) => refilter({ outcome }),
    ),
    select('database', 'database', [['all', 'all'], ...distinct('db_id').map((d) => [d, d] as const)], view.database, (database) =>
      refilter({ database }),
    ),
    select(
      'difficulty',
      'difficulty',
      [['all', 'all'], ...distinct('difficulty').map((d) => [d, d] as const)],
      view.difficulty,
      (difficulty) => refilter({ difficulty }),
    ),
    h('label', { className: 'filter check' }, failuresFirst, h('span', {}, 'failures first')),
    h('span', { className: 'spacer' }),
    h(
      'vscode-button',
      { id: 'export-csv', secondary: true, icon: 'export', title: 'the questions shown, as a table', onclick: exportRows },
      'CSV',
    ),
    // The whole run as `ves-lens eval --json` writes it (Compare reads it back): there once the run has ended.
    h(
      'vscode-button',
      {
        id: 'export-json',
        secondary: true,
        icon: 'json',
        disabled: !report.result?.report,
        title: 'the eval report of every question (ves-lens eval --json): Compare and ves-lens compare read it',
        onclick: exportReport,
      },
      'JSON report',
    ),
  );
}

function exportRows(): void {
  page.post({ type: 'export', file: report.file, format: 'csv', rows: visibleRows(report.rows, view, judgements) });
}

function exportReport(): void {
  const evalReport = report.result?.report;
  if (evalReport) page.post({ type: 'exportReport', file: report.file, report: evalReport });
}

function drawTable(): void {
  const slot = document.getElementById('questions');
  if (!slot) return;
  const rows = visibleRows(report.rows, view, judgements);
  document.getElementById('shown')!.textContent =
    `${rows.length} of ${counted(report.rows.length, 'question')} shown${rows.length < report.rows.length ? ' (filtered)' : ''}`;
  slot.replaceChildren(
    rows.length
      ? questionTable(rows)
      : h('p', { className: 'muted' }, report.rows.length ? 'no question matches the filters' : 'no question scored yet'),
  );
  page.remember({ type: 'restored', report, view, judgements });
}

function statusLine(): Child {
  if (report.running) {
    return h(
      'div',
      { className: 'actions', role: 'status' },
      h('vscode-progress-ring', { className: 'ring' }),
      h('span', { className: 'status' }, `scoring… ${plainText(report.progress)}`),
      h('vscode-button', { secondary: true, icon: 'debug-stop', onclick: () => page.post({ type: 'cancel' }) }, 'Cancel'),
    );
  }
  const result = report.result;
  if (result?.partial) {
    const total = result.total ?? report.rows.length;
    return h(
      'p',
      { className: 'partial', role: 'status' },
      icon('warning'),
      report.rows.length < total
        ? ` cancelled: ${report.rows.length} of ${total} questions were scored before the run stopped; the tables show those only.`
        : ` cancelled while timing: all ${total} questions have EX and Soft-F1;` +
            ' pairs not yet timed score VES and R-VES 0 (their reason says so).',
    );
  }
  return null;
}

function draw(): void {
  const result = report.result;
  const skipped = report.rows.filter((r) => r.outcome === 'skipped').length;
  render(
    h('h1', {}, 'Evaluation report'),
    h(
      'p',
      { className: 'muted' },
      [report.file, result ? result.engine : '', skipped ? `${counted(skipped, 'question')} skipped (database missing; listed last)` : '']
        .filter(Boolean)
        .join(' · '),
    ),
    statusLine(),
    result ? summaryTable(result.summary) : null,
    result?.problems.length
      ? [
          h('h2', {}, 'Input problems'),
          h(
            'ul',
            { className: 'problems' },
            result.problems.map((p) => h('li', {}, plainText(p))),
          ),
        ]
      : null,
    h('h2', {}, 'Questions ', h('span', { className: 'muted small' }, '(a row opens its Score panel; its file icon goes to the entry)')),
    toolbar(),
    h('p', { id: 'shown', className: 'muted small', 'aria-live': 'polite' }),
    h('div', { id: 'questions', className: 'scroll-box' }),
  );
  drawTable();
}

let pendingDraw = 0;
function drawSoon(): void {
  cancelAnimationFrame(pendingDraw);
  pendingDraw = requestAnimationFrame(draw);
}

function handle(data: ReportPageMessage): void {
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
    render(
      h('h1', {}, 'Evaluation report'),
      h('p', { className: 'muted' }, data.file),
      h('p', { className: 'error' }, plainText(data.message)),
      report.rows.length
        ? h(
            'p',
            { className: 'muted' },
            `${counted(report.rows.length, 'question')} ${report.rows.length === 1 ? 'was' : 'were'} scored before it stopped.`,
          )
        : null,
    );
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

page.restore();
