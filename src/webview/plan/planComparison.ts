// Two plans side by side (the Score panel: gold and prediction), aligned step by step, differences marked.
import { plainText } from '../../core/text/terminalText';
import type { AlignedPlanRow, PlanComparison, PlanNodeView, PlanView } from '../../shared/protocol';
import { h, icon } from '../common/dom';
import { planTotals, stepCard, toggle } from './planTree';

/** The step at a path of child indexes from the root list down. */
function nodeAt(plan: PlanView, path: readonly number[] | undefined): PlanNodeView | undefined {
  if (!path) return undefined;
  let nodes: readonly PlanNodeView[] | undefined = plan.nodes;
  let node: PlanNodeView | undefined;
  for (const i of path) {
    node = nodes?.[i];
    nodes = node?.children;
  }
  return node;
}

type Mark = AlignedPlanRow['mark'];
const MARK_TEXT: Record<Mark, string> = {
  same: 'same step',
  changed: 'read another way',
  'gold-only': 'only in gold',
  'pred-only': 'only in the prediction',
};
const MARK_ICON: Record<Mark, string> = { same: 'check', changed: 'arrow-swap', 'gold-only': 'remove', 'pred-only': 'add' };

export function planComparison(goldPlan: PlanView, predPlan: PlanView, comparison: PlanComparison): HTMLDivElement {
  const rows = comparison.rows.map((row) => ({ ...row, gold: nodeAt(goldPlan, row.gold), pred: nodeAt(predPlan, row.pred) }));
  const heading = (title: string, plan: PlanView) =>
    h(
      'div',
      { role: 'columnheader' },
      h('strong', {}, title),
      ' ',
      h('span', { className: 'muted' }, plan.error ? 'no plan' : planTotals(plan)),
    );
  const grid = h(
    'div',
    { className: 'plan-compare', role: 'table', 'aria-label': 'gold and predicted plans, step by step' },
    h(
      'div',
      { className: 'compare-row compare-head', role: 'row' },
      heading('gold', goldPlan),
      h('div', { role: 'columnheader', className: 'compare-mark' }),
      heading('prediction', predPlan),
    ),
  );
  const elements: HTMLDivElement[] = [];
  rows.forEach((row, i) => {
    const hasChildren = (row.gold?.children.length ?? 0) + (row.pred?.children.length ?? 0) > 0;
    const side = (node: PlanNodeView | undefined, which: 'gold' | 'pred') => {
      const cell = h('div', { role: 'cell', className: `compare-cell ${which}` });
      if (node) {
        const indent = h(
          'div',
          { className: 'compare-indent' },
          stepCard(node, row.mark, (which === 'gold' ? goldPlan : predPlan).totalCost),
        );
        indent.style.paddingLeft = `${row.depth * 18}px`;
        cell.append(indent);
      } else
        cell.append(h('div', { className: 'compare-gap' }, which === 'gold' ? 'no step here in gold' : 'no step here in the prediction'));
      return cell;
    };
    const flip = (event: MouseEvent) => {
      const element = elements[i];
      const collapsed = element.classList.toggle('collapsed');
      // Hide (or show) the rows below this one that are deeper, up to the next row at its depth or above.
      for (let j = i + 1; j < rows.length && rows[j].depth > row.depth; j++) elements[j].classList.toggle('hidden-by-parent', collapsed);
      (event.currentTarget as HTMLElement).replaceWith(toggle(!collapsed, flip, collapsed ? 'expand' : 'collapse'));
    };
    elements.push(
      h(
        'div',
        { className: `compare-row mark-${row.mark}`, role: 'row' },
        side(row.gold, 'gold'),
        h(
          'div',
          { role: 'cell', className: 'compare-mark', title: MARK_TEXT[row.mark] },
          hasChildren ? toggle(true, flip, 'collapse') : null,
          icon(MARK_ICON[row.mark]),
          h('span', { className: 'sr-only' }, MARK_TEXT[row.mark]),
        ),
        side(row.pred, 'pred'),
      ),
    );
  });
  grid.append(...elements);
  const errors = [
    goldPlan.error ? `gold: no plan: ${plainText(goldPlan.error)}` : null,
    predPlan.error ? `prediction: no plan: ${plainText(predPlan.error)}` : null,
  ].filter(Boolean);
  const allSame = comparison.rows.every((r) => r.mark === 'same') && !errors.length;
  const differenceIcon = (direction: number) => icon(direction > 0 ? 'arrow-up' : direction < 0 ? 'arrow-down' : 'circle-small');
  const differenceClass = (direction: number) => (direction > 0 ? 'diff-good' : direction < 0 ? 'diff-bad' : '');
  return h(
    'div',
    { className: 'plans' },
    h('p', { className: `plan-summary ${allSame ? 'diff-good' : ''}` }, plainText(comparison.summary)),
    errors.map((e) => h('p', { className: 'error' }, e)),
    comparison.differences.length
      ? h(
          'ul',
          { className: 'plan-differences' },
          comparison.differences.map((d) =>
            h('li', { className: differenceClass(d.direction) }, differenceIcon(d.direction), ' ', plainText(d.message)),
          ),
        )
      : null,
    h('div', { className: 'scroll-box' }, grid),
  );
}
