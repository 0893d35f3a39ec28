// The Plan panel's page: which query (document and line, or a question's gold), on which database; the plan as a
// tree of step cards; the SQL formatted. It follows the statement as it is edited. "Time the Gold SQL" shows
// here too: the query's milliseconds alone, with an interval, its first rows and its plan.
// Messages: PlanPanelMessage in src/shared/webviewMessages.ts.
import { plainText } from '../../core/text/terminalText';
import type { ExplainResult, PlanNodeView, PlanView, QuestionInfo } from '../../shared/protocol';
import type { PlanPanelMessage, PlanPanelRequest } from '../../shared/webviewMessages';
import { app, h, icon, render } from '../common/dom';
import { card, previewTable, sqlBlock } from '../common/elements';
import { compact, counted, fixed, milliseconds } from '../common/format';
import { panelPage } from '../common/vscodeApi';
import { planTotals, planTree, ruleBreakdown, RULE_COST_TEXT } from './planTree';

const page = panelPage<PlanPanelMessage, PlanPanelRequest>(handle);

function whichQuery(data: ExplainResult): string {
  if (data.source) {
    const file = decodeURIComponent(data.source.uri.split('/').pop() ?? data.source.uri);
    return `${file}, line ${data.source.line}`;
  }
  if (data.question) return `gold SQL of question ${data.question.questionId}`;
  return 'query';
}

function questionLine(question: QuestionInfo | undefined): HTMLElement | null {
  if (!question) return null;
  return h(
    'div',
    { className: 'question-line' },
    h(
      'p',
      {},
      h('strong', {}, `Question ${question.questionId}`),
      h('span', { className: 'muted' }, ` · ${question.dbId} · ${question.difficulty || 'no difficulty'}`),
    ),
    h('p', {}, plainText(question.question)),
    question.evidence ? h('p', { className: 'muted' }, `Evidence: ${plainText(question.evidence)}`) : null,
  );
}

function countSteps(nodes: readonly PlanNodeView[]): number {
  return nodes.reduce((sum, node) => sum + 1 + countSteps(node.children), 0);
}

/** The top cards of a plan: PostgreSQL's planner cost (and with ANALYZE, the time it ran) or SQLite's row visits, the rule cost, the steps. */
function planCards(plan: PlanView): HTMLElement {
  const steps = card('steps', String(countSteps(plan.nodes)), 'hover a step: what it does');
  if (plan.totalCost === undefined)
    return h(
      'div',
      { className: 'row' },
      card('rule cost', String(plan.rule), ruleBreakdown(plan)),
      card('row visits', `~${compact(plan.work)}`, 'row-aware estimate'),
      steps,
    );
  const measured = plan.measured;
  return h(
    'div',
    { className: 'row' },
    card('planner cost', fixed(plan.totalCost), "PostgreSQL's estimate (EXPLAIN), in its cost units"),
    measured?.executionMs !== undefined
      ? card(
          'ran in',
          `${milliseconds(measured.executionMs)} ms`,
          `EXPLAIN ANALYZE, read-only${measured.planningMs !== undefined ? ` · planning ${milliseconds(measured.planningMs)} ms` : ''}`,
        )
      : null,
    card('rule cost', String(plan.rule), ruleBreakdown(plan)),
    steps,
  );
}

/** PostgreSQL's plan not measured yet: a button that runs the query once (read-only) and shows what each step took. */
function analyzeButton(plan: PlanView): HTMLElement | null {
  if (plan.error || plan.totalCost === undefined || plan.measured) return null;
  return h(
    'p',
    { className: 'analyze-row' },
    h(
      'vscode-button',
      { id: 'analyze', secondary: true, icon: 'pulse', onclick: () => page.post({ type: 'analyze' }) },
      'Run EXPLAIN ANALYZE',
    ),
    h('span', { className: 'muted small' }, ' runs the query once, read-only: actual rows, time and buffers of every step'),
  );
}

function showPlan(message: Extract<PlanPanelMessage, { type: 'plan' }>): void {
  const e = message.explain;
  const database = e.dbId ?? e.dbPath;
  const following = message.following && h('span', { className: 'following' }, ' · ', icon('sync'), 'follows edits to the statement');
  render(
    h('h1', {}, e.plan.measured ? 'Query plan, measured ' : 'Query plan ', h('span', { className: 'muted' }, `· ${whichQuery(e)}`)),
    h('p', { className: 'muted' }, `database ${database} · ${e.engine}`, following),
    questionLine(e.question),
    // A statement the engine cannot compile has no plan: its error, not cards of zeros.
    e.plan.error
      ? h(
          'p',
          { className: 'error no-plan' },
          icon('error'),
          ` ${(e.engine || 'SQLite').split(' ')[0]} cannot plan this statement: ${plainText(e.plan.error)}`,
        )
      : [
          planCards(e.plan),
          analyzeButton(e.plan),
          h('p', { className: 'muted small rule-text' }, `The rule behind the rule cost: ${RULE_COST_TEXT}.`),
          h('h2', {}, 'Plan'),
          planTree(e.plan),
        ],
    h('h2', {}, 'SQL'),
    sqlBlock(e.formattedSql || e.sql, 'the SQL, formatted'),
  );
}

function showTiming(message: Extract<PlanPanelMessage, { type: 'timing' }>): void {
  const t = message.timing;
  const ms = milliseconds;
  render(
    h(
      'h1',
      {},
      'Timed alone ',
      h('span', { className: 'muted' }, `· ${t.question ? `gold SQL of question ${t.question.questionId}` : 'query'}`),
    ),
    h(
      'p',
      { className: 'muted' },
      `database ${t.dbId ?? ''} · ${t.engine} · every run on a fresh connection, all rows fetched (R-VES's quantity)`,
    ),
    questionLine(t.question),
    t.error
      ? h('p', { className: 'error' }, plainText(t.error))
      : h(
          'div',
          { className: 'row' },
          card('time', `${ms(t.ms)} ms`, `95 % interval of the median: ${ms(t.low)}–${ms(t.high)} ms`),
          card('runs', String(t.runs), 'after one untimed warm-up'),
          card('first row', `${ms(t.firstRowMs)} ms`, "prepare and first step (VES's quantity)"),
          card(
            'rows',
            t.preview.rowCount === null ? '–' : t.preview.rowCount.toLocaleString('en-US'),
            counted(t.preview.columns.length, 'column'),
          ),
        ),
    t.error ? null : [h('h2', {}, 'Result'), previewTable(t.preview, 'result')],
    h('h2', {}, 'Plan'),
    h('p', { className: 'muted' }, planTotals(t.plan)),
    planTree(t.plan),
    h('h2', {}, 'SQL'),
    sqlBlock(t.formattedSql || t.sql, 'the SQL, formatted'),
  );
}

function handle(data: PlanPanelMessage, restored: boolean): void {
  if (data.type === 'plan') showPlan(data);
  else if (data.type === 'timing') showTiming(data);
  else if (data.type === 'running')
    render(
      h('h1', {}, data.what.startsWith('timing') ? 'Timing…' : 'Running…'),
      h('p', { className: 'muted' }, plainText(data.what)),
      h('vscode-progress-ring'),
    );
  else if (data.type === 'error') {
    // While following edits, the last plan stays and the error is said above it.
    const main = app();
    main.querySelector('.follow-error')?.remove();
    if (main.querySelector('.plan-box, .no-plan'))
      main.prepend(h('p', { className: 'error follow-error' }, `the statement as it is now has no plan: ${plainText(data.message)}`));
    else render(h('h1', {}, 'No plan'), h('p', { className: 'error' }, plainText(data.message)));
    return;
  }
  if (!restored && (data.type === 'plan' || data.type === 'timing')) page.remember(data);
}

page.restore();
