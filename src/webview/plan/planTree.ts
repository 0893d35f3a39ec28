// A query plan drawn from the typed tree the server sends (core's costed plan; PlanView in the shared protocol):
// one card per step with its operator, table and alias, index, estimated rows and its share of the cost as a bar;
// the costliest step marked; steps collapsible; a tooltip per step that says what the operator does and why it
// costs what it costs. Never terminal text. The Plan panel draws one tree; the Score panel two, aligned
// (planComparison.ts).
import { plainText } from '../../core/text/terminalText';
import type { AlignedPlanRow, PlanNodeView, PlanView } from '../../shared/protocol';
import { h, icon } from '../common/dom';
import { compact, compactCounted, counted, fixed, milliseconds } from '../common/format';
import { explainPlannedStep, explainStep, indexText, measuredText, operatorName, plannedSubject, subjectText } from './planStepText';
import { hideTip, showTip } from './planTip';

function costBar(share: number): HTMLSpanElement {
  const fill = h('span', { className: 'cost-fill' });
  fill.style.width = `${Math.max(share > 0 ? 1 : 0, Math.min(100, share * 100))}%`; // through the CSSOM: the CSP forbids style attributes
  return h('span', { className: 'cost-bar', 'aria-hidden': 'true' }, fill);
}

/** The tooltip's handlers and the card's accessible name, for any step's card. */
function cardEvents(name: string, lines: string[]) {
  return {
    tabindex: 0,
    role: 'group',
    'aria-label': `${name}: ${lines.join(' ')}`,
    onmouseenter: (event: MouseEvent) => showTip(event.currentTarget as HTMLElement, lines),
    onmouseleave: hideTip,
    onfocus: (event: FocusEvent) => showTip(event.currentTarget as HTMLElement, lines),
    onblur: hideTip,
  };
}

/**
 * A step of PostgreSQL's plan as a card (pev2's reading): its operator and table or key, its index, the
 * planner's rows and cost with its own share of the plan, its filter; with EXPLAIN ANALYZE what it measured,
 * its own time, shared buffers, and a misestimate of rows flagged as core flags it (StepMeasurement.misestimated).
 */
function plannedCard(node: PlanNodeView, planCost: number, mark?: AlignedPlanRow['mark']): HTMLDivElement {
  const m = node.measured;
  const misestimated = m?.misestimated === true;
  const lines = explainPlannedStep(node, planCost);
  const className =
    `plan-node planned kind-${node.kind}` +
    (node.costliest ? ' costliest' : '') +
    (node.correlated ? ' costly-kind' : '') +
    (mark ? ` mark-${mark}` : '');
  const badges = [
    node.costliest
      ? h('span', { className: 'badge costliest-badge', title: 'the step with the highest cost of its own' }, icon('flame'), ' costliest')
      : null,
    node.slowest
      ? h('span', { className: 'badge slowest-badge', title: 'the step that took the most time of its own' }, icon('watch'), ' slowest')
      : null,
    misestimated
      ? h(
          'span',
          { className: 'badge misestimate-badge', title: `the planner ${m.direction}estimated its rows ${fixed(m.misestimate, 1)}×` },
          icon('warning'),
          ` rows ${fixed(m.misestimate, 0)}× ${m.direction}`,
        )
      : null,
  ];
  const estimate = node.estimatedRows !== undefined ? `est. ${compactCounted(node.estimatedRows, 'row')}` : null;
  const meta = [
    node.rowCount !== undefined ? `${compactCounted(node.rowCount, 'row')} in table` : null,
    estimate,
    node.ruleCost ? `rule +${node.ruleCost}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const index = indexText(node);
  const filter = node.filter
    ? `filter ${node.filter}${node.rowsRemovedByFilter ? ` · ${compactCounted(node.rowsRemovedByFilter, 'row')} removed` : ''}`
    : '';
  const buffers =
    m && (m.hitBlocks !== undefined || m.readBlocks !== undefined)
      ? ` · buffers ${compact(m.hitBlocks ?? 0)} hit, ${compact(m.readBlocks ?? 0)} read`
      : '';
  return h(
    'div',
    { className, ...cardEvents(`${operatorName(node)} ${plannedSubject(node)}`, lines) },
    h(
      'div',
      { className: 'plan-head' },
      h('span', { className: 'op' }, operatorName(node)),
      h('span', { className: 'subject' }, plannedSubject(node)),
      badges,
    ),
    index ? h('div', { className: 'plan-index' }, icon('key'), ' ', index) : null,
    meta ? h('div', { className: 'plan-meta' }, meta) : null,
    filter ? h('div', { className: 'plan-meta plan-filter' }, filter) : null,
    h(
      'div',
      { className: 'plan-cost' },
      costBar(node.share),
      h(
        'span',
        { className: 'cost-text' },
        `cost ${fixed(node.totalCost ?? node.work)} · self ${fixed(node.selfWork)} · ${Math.round(node.share * 100)} %`,
      ),
    ),
    m ? h('div', { className: `plan-measured${misestimated ? ' misestimated' : ''}` }, `${measuredText(m)}${buffers}`) : null,
    h('div', { className: 'plan-detail', title: "PostgreSQL's own words" }, plainText(node.detail)),
  );
}

/**
 * One step as a card; `mark` says how it compares with the other plan's step beside it. `plannerCost`: the
 * plan's Total Cost when its engine's planner costed it (PostgreSQL), which draws every step as a planned one.
 */
export function stepCard(node: PlanNodeView, mark?: AlignedPlanRow['mark'], plannerCost?: number): HTMLDivElement {
  if (plannerCost !== undefined) return plannedCard(node, plannerCost, mark);
  const loops = node.loops > 1 ? ` × ${compact(node.loops)} loops` : '';
  const rowsOut = `~${compact(node.rowsOut)} row${node.rowsOut === 1 ? '' : 's'} out${loops}`;
  const meta = [
    node.rowCount !== undefined ? `${compactCounted(node.rowCount, 'row')} in table` : null,
    node.kind === 'scan' || node.kind === 'search' || node.kind === 'scan-subquery' ? rowsOut : null,
    node.ruleCost ? `rule +${node.ruleCost}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const index = indexText(node);
  const lines = explainStep(node);
  const costlyKind = node.correlated || node.automatic || node.kind === 'temp-btree';
  const className =
    `plan-node kind-${node.kind}` +
    (node.costliest ? ' costliest' : '') +
    (costlyKind ? ' costly-kind' : '') +
    (mark ? ` mark-${mark}` : '');
  const costliest = node.costliest
    ? h('span', { className: 'badge costliest-badge', title: 'the step with the most row visits of its own' }, icon('flame'), ' costliest')
    : null;
  return h(
    'div',
    { className, ...cardEvents(`${operatorName(node)} ${subjectText(node)}`, lines) },
    h(
      'div',
      { className: 'plan-head' },
      h('span', { className: 'op' }, operatorName(node)),
      h('span', { className: 'subject' }, subjectText(node)),
      costliest,
    ),
    index ? h('div', { className: 'plan-index' }, icon('key'), ' ', index) : null,
    meta ? h('div', { className: 'plan-meta' }, meta) : null,
    h(
      'div',
      { className: 'plan-cost' },
      costBar(node.share),
      h('span', { className: 'cost-text' }, `~${compact(node.work)} visits · ${Math.round(node.share * 100)} %`),
    ),
    h('div', { className: 'plan-detail', title: "SQLite's own words" }, plainText(node.detail)),
  );
}

/** The button that folds a step's children away or shows them again. */
export function toggle(expanded: boolean, onToggle: (event: MouseEvent) => void, label: string): HTMLButtonElement {
  return h(
    'button',
    { className: 'plan-toggle', 'aria-expanded': String(expanded), 'aria-label': label, title: label, onclick: onToggle },
    icon(expanded ? 'chevron-down' : 'chevron-right'),
  );
}

/** The rule every plan's rule cost follows (core/plan/cost.ts), said as a rule, not as any plan's breakdown. */
export const RULE_COST_TEXT = 'every full SCAN +100, every temp B-tree +50, a SEARCH 0';

/** What a step of each rule cost is: a full SCAN (+100), or a temp B-tree for ordering or DISTINCT (+50). */
const RULE_STEP: Record<number, string> = { 100: 'SCAN', 50: 'temp B-tree' };

/** This plan's own rule cost, step by step: "this plan: 2 SCANs × 100 + 1 temp B-tree × 50", or that it has none. */
export function ruleBreakdown(plan: PlanView): string {
  const costs = (nodes: readonly PlanNodeView[]): number[] =>
    nodes.flatMap((n) => [...(n.ruleCost ? [n.ruleCost] : []), ...costs(n.children)]);
  const countOf = new Map<number, number>();
  for (const cost of costs(plan.nodes)) countOf.set(cost, (countOf.get(cost) ?? 0) + 1);
  if (!countOf.size) return 'this plan: no full SCAN and no temp B-tree';
  const parts = [...countOf.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([cost, count]) => `${counted(count, RULE_STEP[cost] ?? `step of +${cost}`)} × ${cost}`);
  return `this plan: ${parts.join(' + ')}`;
}

export function planTotals(plan: PlanView): string {
  if (plan.totalCost === undefined) return `rule cost ${plan.rule} · ~${compact(plan.work)} row visits`;
  const ran = plan.measured?.executionMs !== undefined ? ` · ran in ${milliseconds(plan.measured.executionMs)} ms` : '';
  return `planner cost ${fixed(plan.totalCost)} · rule cost ${plan.rule}${ran}`;
}

/** One plan as a tree of step cards, each step with children collapsible. */
export function planTree(plan: PlanView): HTMLElement {
  if (plan.error) return h('p', { className: 'error no-plan' }, `no plan: ${plainText(plan.error)}`);
  const branch = (nodes: readonly PlanNodeView[]): HTMLUListElement =>
    h(
      'ul',
      { className: 'plan-tree', role: 'group' },
      nodes.map((node) => {
        const item = h('li', { role: 'treeitem', 'aria-expanded': node.children.length ? 'true' : undefined });
        const children = node.children.length ? branch(node.children) : null;
        const flip = (event: MouseEvent) => {
          event.stopPropagation();
          const expanded = item.classList.toggle('collapsed') === false;
          item.setAttribute('aria-expanded', String(expanded));
          (event.currentTarget as HTMLElement).replaceWith(toggle(expanded, flip, expanded ? 'collapse' : 'expand'));
        };
        const handle = node.children.length ? toggle(true, flip, 'collapse') : h('span', { className: 'plan-toggle-space' });
        item.append(h('div', { className: 'plan-row' }, handle, stepCard(node, undefined, plan.totalCost)), children ?? '');
        return item;
      }),
    );
  const tree = branch(plan.nodes);
  tree.setAttribute('role', 'tree');
  return h('div', { className: 'plan-box scroll-box' }, tree);
}
