// A query plan drawn from the typed tree the server sends (core's costed plan; see PlanView in
// src/shared/protocol.ts): one card per step with its operator, table and alias, index, estimated rows and its
// share of the cost as a bar; the costliest step marked; steps collapsible; a tooltip per step that says what
// the operator does and why it costs what it costs. Two plans side by side, aligned step by step, differences
// marked. Never terminal text.

const OPERATOR = {
  scan: 'SCAN', search: 'SEARCH', 'scan-subquery': 'SCAN SUBQUERY', 'constant-row': 'CONSTANT ROW', 'temp-btree': 'TEMP B-TREE',
  subquery: 'SUBQUERY', materialize: 'MATERIALIZE', 'co-routine': 'CO-ROUTINE', compound: 'COMPOUND', 'bloom-filter': 'BLOOM FILTER',
  'multi-index-or': 'MULTI-INDEX OR', 'in-operator': 'IN LOOKUP', recursive: 'RECURSIVE', 'right-join': 'RIGHT JOIN', unknown: 'STEP',
};

function operatorName(node) {
  if (node.kind === 'search' && node.automatic) return 'SEARCH · AUTOMATIC INDEX';
  if (node.kind === 'subquery') return `${node.correlated ? 'CORRELATED ' : ''}${node.subqueryType ?? ''} SUBQUERY`.trim();
  return OPERATOR[node.kind] ?? String(node.kind).toUpperCase();
}

/** The step's subject: the table (and the alias it goes by), the subquery, or what a temp B-tree is for. */
function subjectText(node) {
  if (node.table) {
    const real = node.realTable && node.realTable.toLowerCase() !== node.table.toLowerCase() ? `${node.realTable} AS ${node.table}` : node.table;
    return node.alias && node.alias !== node.table ? `${real} AS ${node.alias}` : real;
  }
  if (node.purpose) return `for ${node.purpose}`;
  if (node.subquery) return `subquery ${node.subquery}`;
  if (node.operator) return node.operator;
  return '';
}

function indexText(node) {
  if (!node.index) return '';
  const kind = node.automatic ? 'automatic index' : node.index === 'INTEGER PRIMARY KEY' || node.index === 'PRIMARY KEY' ? node.index.toLowerCase() : `${node.covering ? 'covering ' : ''}index ${node.index}`;
  return `${kind}${node.constraint ? ` (${node.constraint})` : ''}`;
}

const times = (n) => (n > 1 ? `${compact(n)} times` : 'once');

/** What the operator does, and why this step costs what it costs (from its own numbers). */
function explainStep(node) {
  const table = node.realTable ?? node.table ?? 'the table';
  const rows = node.rowCount !== undefined ? `${compact(node.rowCount)} rows` : 'its rows';
  const visits = `~${compact(node.work)} row visits`;
  switch (node.kind) {
    case 'scan':
      return [
        node.index
          ? `SCAN reads every entry of ${table} (${rows}) through ${node.covering ? 'the covering index' : 'the index'} ${node.index}${node.covering ? ', never touching the table itself' : ', in index order'}.`
          : `SCAN reads every row of ${table} (${rows}), start to end.`,
        `It runs ${times(node.loops)} (once per row of the loops around it): ${visits}. Rule cost +100: a full pass grows with the table.`,
      ];
    case 'search':
      if (node.automatic) {
        return [
          `AUTOMATIC INDEX: no index serves ${node.constraint ? `(${node.constraint})` : 'this lookup'}, so SQLite builds a temporary index on ${table} at run time (one pass over ${rows}) and then searches it.`,
          `About ${compact(node.rowsOut)} row(s) per lookup, ${times(node.loops)}: ${visits}, the build included. A real index on these columns would save the build on every run.`,
        ];
      }
      return [
        node.constraint
          ? `SEARCH looks rows of ${table} up through ${node.index ? indexText(node) : 'an index'} instead of reading all ${rows}.`
          : `SEARCH ${table} without a constraint: the min/max optimisation, one step to the first or last entry of an index.`,
        `About ${compact(node.rowsOut)} row(s) per lookup, ${times(node.loops)}: ${visits}. Rule cost 0: a lookup grows with the log of the table.`,
      ];
    case 'temp-btree':
      return [
        `USE TEMP B-TREE FOR ${node.purpose ?? ''}: no index yields the rows in the order (or uniqueness) needed, so SQLite sorts or de-duplicates them in a temporary B-tree.`,
        `n·log n work over the rows that reach it: ${visits}. Rule cost +50. An index on the ${String(node.purpose ?? '').toLowerCase()} columns can remove it.`,
      ];
    case 'subquery':
      return node.correlated
        ? [`CORRELATED ${node.subqueryType ?? ''} SUBQUERY: it refers to the outer query, so it runs again for every outer row: ${times(node.loops)}.`, `Its steps times that: ${visits} in all. A join, or an IN over a non-correlated subquery, often does the same work once.`]
        : [`${node.subqueryType ?? ''} SUBQUERY: independent of the outer query, so it runs once and its result is reused.`, `${visits}.`];
    case 'co-routine':
      return [`CO-ROUTINE ${node.subquery ?? ''}: the subquery hands its rows over one at a time as the outer query asks for them, without a temporary table.`, `Its steps: ${visits}. The outer pass over its rows (SCAN ${node.subquery ?? ''}) costs another +100 by the rule.`];
    case 'materialize':
      return [`MATERIALIZE ${node.subquery ?? ''}: the subquery or CTE is computed once into a temporary table, which the outer query then reads.`, `Computing it: ${visits}; reading it back is a SCAN of about ${compact(node.rowsOut)} rows.`];
    case 'scan-subquery':
      return [`SCAN of subquery ${node.subquery ?? ''}'s result: every row it produced, read in turn.`, `About ${compact(node.rowsOut)} rows, ${times(node.loops)}: ${visits}. Rule cost +100.`];
    case 'constant-row':
      return ['SCAN CONSTANT ROW: a SELECT without FROM yields one row; no table is read.', `${visits}.`];
    case 'compound':
      return [`${node.operator ?? 'COMPOUND QUERY'}: the parts of a UNION / EXCEPT / INTERSECT, run in turn${node.purpose ? '; a temp B-tree removes duplicates (rule cost +50)' : ''}.`, `${visits}.`];
    case 'bloom-filter':
      return [`BLOOM FILTER on ${table}: a compact membership test checked before each lookup; rows that cannot match are skipped without touching the table.`, `${visits}.`];
    case 'multi-index-or':
      return ['MULTI-INDEX OR: each OR term is searched through its own index and the row ids are merged, instead of one full SCAN.', `${visits}.`];
    case 'in-operator':
      return ['How the list on the right of IN (...) is searched for each value on the left.', `${visits}.`];
    case 'recursive':
      return [`${node.operator ?? 'RECURSIVE'}: a part of a recursive CTE (its setup, or the step repeated until it yields no new rows).`, `${visits}.`];
    case 'right-join':
      return [`RIGHT-JOIN ${table}: a last pass that emits the rows of the right side that matched nothing.`, `${visits}.`];
    default:
      return [`A step this version of VES Lens does not recognise; SQLite says: ${node.detail}.`, `${visits}.`];
  }
}

// ---- the tooltip: one floating element, so no scrolling box clips it ----------------------------------------

let tip;
function showTip(anchor, lines) {
  tip ??= document.body.appendChild(h('div', { id: 'plan-tip', role: 'tooltip', className: 'plan-tip hidden' }));
  tip.replaceChildren(...lines.map((line) => h('p', {}, line)));
  tip.classList.remove('hidden');
  const box = anchor.getBoundingClientRect();
  const width = Math.min(420, window.innerWidth - 16);
  tip.style.width = `${width}px`;
  tip.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8)) + window.scrollX}px`;
  const below = box.bottom + 6 + tip.offsetHeight < window.innerHeight;
  tip.style.top = `${(below ? box.bottom + 6 : Math.max(8, box.top - tip.offsetHeight - 6)) + window.scrollY}px`;
  anchor.setAttribute('aria-describedby', 'plan-tip');
}
function hideTip() {
  tip?.classList.add('hidden');
}
window.addEventListener('scroll', hideTip, true);

// ---- one step ------------------------------------------------------------------------------------------------

function costBar(share) {
  const fill = h('span', { className: 'cost-fill' });
  fill.style.width = `${Math.max(share > 0 ? 1 : 0, Math.min(100, share * 100))}%`; // through the CSSOM: the CSP forbids style attributes
  return h('span', { className: 'cost-bar', 'aria-hidden': 'true' }, fill);
}

function stepCard(node, mark) {
  const meta = [
    node.rowCount !== undefined ? `${compact(node.rowCount)} rows in table` : null,
    node.kind === 'scan' || node.kind === 'search' || node.kind === 'scan-subquery' ? `~${compact(node.rowsOut)} row${node.rowsOut === 1 ? '' : 's'} out${node.loops > 1 ? ` × ${compact(node.loops)} loops` : ''}` : null,
    node.ruleCost ? `rule +${node.ruleCost}` : null,
  ].filter(Boolean).join(' · ');
  const index = indexText(node);
  const lines = explainStep(node);
  const card = h('div', {
    className: `plan-node kind-${node.kind}${node.costliest ? ' costliest' : ''}${node.correlated || node.automatic || node.kind === 'temp-btree' ? ' costly-kind' : ''}${mark ? ` mark-${mark}` : ''}`,
    tabindex: 0,
    role: 'group',
    'aria-label': `${operatorName(node)} ${subjectText(node)}: ${lines.join(' ')}`,
    onmouseenter: (e) => showTip(e.currentTarget, lines),
    onmouseleave: hideTip,
    onfocus: (e) => showTip(e.currentTarget, lines),
    onblur: hideTip,
  },
  h('div', { className: 'plan-head' }, h('span', { className: 'op' }, operatorName(node)), h('span', { className: 'subject' }, subjectText(node)),
    node.costliest ? h('span', { className: 'badge costliest-badge', title: 'the step with the most row visits of its own' }, icon('flame'), ' costliest') : null),
  index ? h('div', { className: 'plan-index' }, icon('key'), ' ', index) : null,
  meta ? h('div', { className: 'plan-meta' }, meta) : null,
  h('div', { className: 'plan-cost' }, costBar(node.share), h('span', { className: 'cost-text' }, `~${compact(node.work)} visits · ${Math.round(node.share * 100)} %`)),
  h('div', { className: 'plan-detail', title: 'SQLite\'s own words' }, plain(node.detail)));
  return card;
}

function toggle(expanded, onToggle, label) {
  return h('button', { className: 'plan-toggle', 'aria-expanded': String(expanded), 'aria-label': label, title: label, onclick: onToggle }, icon(expanded ? 'chevron-down' : 'chevron-right'));
}

// ---- one plan as a tree --------------------------------------------------------------------------------------

function planTotals(plan) {
  return `rule cost ${plan.rule} · ~${compact(plan.work)} row visits`;
}

function planTree(plan) {
  if (plan.error) return h('p', { className: 'error no-plan' }, `no plan: ${plain(plan.error)}`);
  const branch = (nodes) => h('ul', { className: 'plan-tree', role: 'group' }, nodes.map((node) => {
    const item = h('li', { role: 'treeitem', 'aria-expanded': node.children.length ? 'true' : undefined });
    const children = node.children.length ? branch(node.children) : null;
    const flip = (event) => {
      event.stopPropagation();
      const expanded = item.classList.toggle('collapsed') === false;
      item.setAttribute('aria-expanded', String(expanded));
      event.currentTarget.replaceWith(toggle(expanded, flip, expanded ? 'collapse' : 'expand'));
    };
    item.append(h('div', { className: 'plan-row' }, node.children.length ? toggle(true, flip, 'collapse') : h('span', { className: 'plan-toggle-space' }), stepCard(node)), children ?? '');
    return item;
  }));
  const tree = branch(plan.nodes);
  tree.setAttribute('role', 'tree');
  return h('div', { className: 'plan-box scroll-box' }, tree);
}

// ---- two plans, aligned --------------------------------------------------------------------------------------

function nodeAt(plan, path) {
  let nodes = plan.nodes;
  let node;
  for (const i of path ?? []) {
    node = nodes?.[i];
    nodes = node?.children;
  }
  return path ? node : undefined;
}

const MARK_TEXT = { same: 'same step', changed: 'read another way', 'gold-only': 'only in gold', 'pred-only': 'only in the prediction' };
const MARK_ICON = { same: 'check', changed: 'arrow-swap', 'gold-only': 'remove', 'pred-only': 'add' };

function planComparison(goldPlan, predPlan, comparison) {
  const rows = comparison.rows.map((row) => ({ ...row, gold: nodeAt(goldPlan, row.gold), pred: nodeAt(predPlan, row.pred) }));
  const grid = h('div', { className: 'plan-compare', role: 'table', 'aria-label': 'gold and predicted plans, step by step' },
    h('div', { className: 'compare-row compare-head', role: 'row' },
      h('div', { role: 'columnheader' }, h('strong', {}, 'gold'), ' ', h('span', { className: 'muted' }, goldPlan.error ? 'no plan' : planTotals(goldPlan))),
      h('div', { role: 'columnheader', className: 'compare-mark' }),
      h('div', { role: 'columnheader' }, h('strong', {}, 'prediction'), ' ', h('span', { className: 'muted' }, predPlan.error ? 'no plan' : planTotals(predPlan)))));
  const elements = [];
  rows.forEach((row, i) => {
    const hasChildren = (row.gold?.children.length ?? 0) + (row.pred?.children.length ?? 0) > 0;
    const side = (node, which) => {
      const cell = h('div', { role: 'cell', className: `compare-cell ${which}` });
      if (node) {
        const indent = h('div', { className: 'compare-indent' }, stepCard(node, row.mark));
        indent.style.paddingLeft = `${row.depth * 18}px`;
        cell.append(indent);
      } else cell.append(h('div', { className: 'compare-gap' }, which === 'gold' ? 'no step here in gold' : 'no step here in the prediction'));
      return cell;
    };
    const flip = (event) => {
      const element = elements[i];
      const collapsed = element.classList.toggle('collapsed');
      // Hide (or show) the rows below this one that are deeper, up to the next row at its depth or above.
      for (let j = i + 1; j < rows.length && rows[j].depth > row.depth; j++) elements[j].classList.toggle('hidden-by-parent', collapsed);
      event.currentTarget.replaceWith(toggle(!collapsed, flip, collapsed ? 'expand' : 'collapse'));
    };
    const element = h('div', { className: `compare-row mark-${row.mark}`, role: 'row' },
      side(row.gold, 'gold'),
      h('div', { role: 'cell', className: 'compare-mark', title: MARK_TEXT[row.mark] }, hasChildren ? toggle(true, flip, 'collapse') : null, icon(MARK_ICON[row.mark]), h('span', { className: 'sr-only' }, MARK_TEXT[row.mark])),
      side(row.pred, 'pred'));
    elements.push(element);
  });
  grid.append(...elements);
  const errors = [goldPlan.error ? `gold: no plan: ${plain(goldPlan.error)}` : null, predPlan.error ? `prediction: no plan: ${plain(predPlan.error)}` : null].filter(Boolean);
  return h('div', { className: 'plans' },
    h('p', { className: `plan-summary ${comparison.rows.every((r) => r.mark === 'same') && !errors.length ? 'diff-good' : ''}` }, plain(comparison.summary)),
    errors.map((e) => h('p', { className: 'error' }, e)),
    comparison.differences.length
      ? h('ul', { className: 'plan-differences' }, comparison.differences.map((d) => h('li', { className: d.direction > 0 ? 'diff-good' : d.direction < 0 ? 'diff-bad' : '' }, icon(d.direction > 0 ? 'arrow-up' : d.direction < 0 ? 'arrow-down' : 'circle-small'), ' ', plain(d.message))))
      : null,
    h('div', { className: 'scroll-box' }, grid));
}
