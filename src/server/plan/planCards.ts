/**
 * The plan cards' data, as the Plan and Score panels draw them: core's costed plan tree with each step's share of
 * the work and the costliest step marked (planView), and two plans aligned step by step (comparePlanViews).
 */
import { comparePlans } from '../../core/plan/comparePlans';
import { CostedNode, costliestStep, selfWork } from '../../core/plan/cost';
import { ExplainedPlan, walkPlan } from '../../core/plan/explain';
import { plannerCostText } from '../../core/report/planText';
import { AlignedPlanRow, PlanComparison, PlanNodeView, PlanView } from '../../shared/protocol';
import { editorText } from '../editorText';

/** With EXPLAIN ANALYZE: the step that took the most time of its own. */
function slowestStep(nodes: readonly CostedNode[]): CostedNode | undefined {
  let slowest: CostedNode | undefined;
  for (const node of walkPlan(nodes))
    if (node.measured && node.measured.selfMs > 0 && (!slowest || node.measured.selfMs > slowest.measured!.selfMs)) slowest = node;
  return slowest;
}

/**
 * Core's costed plan tree as the webviews draw it: typed fields, each step's share of the cost, the costliest
 * step marked (by row visits on SQLite, by its own planner cost on PostgreSQL); with EXPLAIN ANALYZE, what each
 * step measured and the slowest step.
 */
export function planView(plan: ExplainedPlan): PlanView {
  const costs = {
    rule: plan.cost.rule,
    work: plan.cost.work,
    ...(plan.cost.totalCost !== undefined ? { totalCost: plan.cost.totalCost } : {}),
  };
  if (plan.error) return { error: editorText(plan.error), ...costs, nodes: [] };
  // A planner's costs are small numbers (a cheap plan costs under 1): only row visits are floored at one.
  const total = plan.cost.totalCost !== undefined ? Math.max(plan.cost.work, 1e-9) : Math.max(1, plan.cost.work);
  const costliest = costliestStep(plan.nodes);
  const slowest = slowestStep(plan.nodes);
  const view = (node: CostedNode, path: number[]): PlanNodeView => {
    const out: PlanNodeView = {
      path,
      kind: node.kind,
      detail: node.detail,
      table: node.table,
      alias: node.alias,
      realTable: node.realTable,
      rowCount: node.rowCount,
      index: node.index,
      covering: node.covering,
      automatic: node.automatic,
      constraint: node.constraint,
      purpose: node.purpose,
      subqueryType: node.subqueryType,
      correlated: node.correlated,
      subquery: node.subquery,
      operator: node.operator,
      nodeType: node.nodeType,
      estimatedRows: node.estimatedRows,
      startupCost: node.startupCost,
      totalCost: node.totalCost,
      filter: node.filter,
      rowsRemovedByFilter: node.rowsRemovedByFilter,
      ruleCost: node.ruleCost,
      rowsOut: node.rowsOut,
      loops: node.loops,
      measured: node.measured,
      work: node.work,
      share: Math.min(1, node.work / total),
      selfWork: selfWork(node),
      costliest: node === costliest,
      ...(slowest ? { slowest: node === slowest } : {}),
      children: [],
    };
    out.children = node.children.map((child, i) => view(child, [...path, i]));
    return out;
  };
  const nodes = plan.nodes.map((node, i) => view(node, [i]));
  return { ...costs, ...(plan.measured ? { measured: plan.measured } : {}), nodes };
}

interface Flat {
  node: CostedNode;
  path: number[];
  depth: number;
}

function flatten(nodes: readonly CostedNode[], path: number[] = [], depth = 0, out: Flat[] = []): Flat[] {
  nodes.forEach((node, i) => {
    out.push({ node, path: [...path, i], depth });
    flatten(node.children, [...path, i], depth + 1, out);
  });
  return out;
}

/** PostgreSQL's operators that correspond whatever their method: a join is a join, an aggregate an aggregate. */
const PLANNED_SUBJECTS: Record<string, string> = {
  'Nested Loop': 'join',
  'Hash Join': 'join',
  'Merge Join': 'join',
  Aggregate: 'aggregate',
  GroupAggregate: 'aggregate',
  HashAggregate: 'aggregate',
  MixedAggregate: 'aggregate',
  Sort: 'sort',
  'Incremental Sort': 'sort',
};

/** What a step is about, whatever way it goes: SCAN and SEARCH of one table correspond, so do two ORDER BY sorts (two joins of any method on PostgreSQL). */
function subject(node: CostedNode): string {
  if (node.nodeType && node.kind !== 'scan' && node.kind !== 'search' && node.kind !== 'subquery')
    return PLANNED_SUBJECTS[node.nodeType] ?? `op:${node.nodeType}`;
  switch (node.kind) {
    case 'scan':
    case 'search':
      return `read:${(node.realTable ?? node.table ?? '').toLowerCase()}`;
    case 'temp-btree':
      return `sort:${node.purpose}`;
    case 'subquery':
      return `subquery:${node.subqueryType}`;
    case 'materialize':
    case 'co-routine':
      return 'subquery-result';
    default:
      return node.kind;
  }
}

/** Everything that makes a step cost what it costs: two steps with the same signature do the same work. */
function signature(node: CostedNode): string {
  return [
    node.kind,
    (node.realTable ?? node.table ?? '').toLowerCase(),
    node.index,
    node.covering,
    node.automatic,
    node.constraint,
    node.purpose,
    node.correlated,
    node.subqueryType,
    node.operator,
    node.nodeType,
  ].join('|');
}

/**
 * Two plans step by step, side by side: the longest common sequence of corresponding steps (same table read,
 * same kind of sort...) in depth-first order; steps between two anchors pair up when they correspond, and
 * the rest stand alone on their side. A pair is `same` when the steps do the same work, else `changed`.
 */
export function alignPlans(gold: readonly CostedNode[], pred: readonly CostedNode[]): AlignedPlanRow[] {
  const a = flatten(gold);
  const b = flatten(pred);
  // LCS table on the steps' subjects (plans have tens of steps at most).
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = subject(a[i].node) === subject(b[j].node) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const rows: AlignedPlanRow[] = [];
  const pair = (x: Flat, y: Flat) =>
    rows.push({
      gold: x.path,
      pred: y.path,
      depth: Math.max(x.depth, y.depth),
      mark: signature(x.node) === signature(y.node) ? 'same' : 'changed',
    });
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && subject(a[i].node) === subject(b[j].node)) {
      pair(a[i++], b[j++]);
    } else if (j >= b.length || (i < a.length && lcs[i + 1][j] >= lcs[i][j + 1])) {
      rows.push({ gold: a[i].path, depth: a[i].depth, mark: 'gold-only' });
      i++;
    } else {
      rows.push({ pred: b[j].path, depth: b[j].depth, mark: 'pred-only' });
      j++;
    }
  }
  return rows;
}

/** Gold against prediction: the aligned rows, what differs, and one sentence that is true in every case. */
export function comparePlanViews(gold: ExplainedPlan, pred: ExplainedPlan): PlanComparison {
  if (gold.error || pred.error) {
    const which =
      gold.error && pred.error
        ? 'neither query has a plan'
        : gold.error
          ? `the gold has no plan: ${editorText(gold.error)}`
          : `the prediction has no plan: ${editorText(pred.error!)}`;
    return { rows: alignPlans(gold.error ? [] : gold.nodes, pred.error ? [] : pred.nodes), differences: [], summary: which };
  }
  const rows = alignPlans(gold.nodes, pred.nodes);
  const differences = comparePlans(gold, pred).map((d) => ({ direction: d.direction, message: editorText(d.message) }));
  const identical =
    rows.every((row) => row.mark === 'same') && gold.cost.rule === pred.cost.rule && gold.cost.totalCost === pred.cost.totalCost;
  const planned = gold.cost.totalCost !== undefined && pred.cost.totalCost !== undefined;
  const summary = identical
    ? 'the two plans take the same steps'
    : planned
      ? `the plans differ: planner cost ${plannerCostText(gold.cost.totalCost!)} (gold) vs ${plannerCostText(pred.cost.totalCost!)} (prediction), rule cost ${gold.cost.rule} vs ${pred.cost.rule}`
      : `the plans differ: rule cost ${gold.cost.rule} (gold) vs ${pred.cost.rule} (prediction), ~${Math.round(gold.cost.work).toLocaleString('en-US')} vs ~${Math.round(pred.cost.work).toLocaleString('en-US')} row visits`;
  return { rows, differences, summary };
}
