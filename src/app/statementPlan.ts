/**
 * A statement's plan for the editor: explained on its database, or explained and timed alone (the Plan panel), as
 * plan cards (core's costed plan tree with each step's share of the work and the costliest step marked: planView)
 * and two plans aligned step by step (comparePlanViews, the Score panel). Messages pass through `word`, the face's
 * wording of core's text.
 */
import type { OpenDatabase } from '../core/db/connectionCache';
import { QueryCancelled } from '../core/db/database';
import type { PlanNode } from '../core/db/planTree';
import { comparePlans, type PlanDifference } from '../core/plan/comparePlans';
import { costliestStep, selfWork, type CostedNode, type PlanCost } from '../core/plan/cost';
import { explainQuery, walkPlan, type ExplainedPlan } from '../core/plan/explain';
import { adviseIndexes, type IndexVerdict } from '../core/plan/indexAdvice';
import { plannerCostText } from '../core/report/planText';
import { timeAlone, type QueryPreview, type TimedAlone } from './queryRuns';

/** How a face words core's messages for its reader (the editor: terminal codes dropped). */
export type Wording = (text: string) => string;
const asIs: Wording = (text) => text;

/** One step of a query plan, as core's costed plan tree has it (kind, table, index, both costs), for a view to draw. */
export interface PlanNodeView
  extends
    Pick<
      PlanNode,
      | 'kind'
      | 'detail'
      | 'table'
      | 'alias'
      | 'index'
      | 'covering'
      | 'automatic'
      | 'constraint'
      | 'purpose'
      | 'subqueryType'
      | 'correlated'
      | 'subquery'
      | 'operator'
      | 'nodeType'
      | 'estimatedRows'
      | 'startupCost'
      | 'totalCost'
      | 'filter'
      | 'rowsRemovedByFilter'
    >,
    Pick<CostedNode, 'realTable' | 'rowCount' | 'ruleCost' | 'rowsOut' | 'loops' | 'measured'> {
  /** Position in the tree: indexes from the root list down (`[0, 2]`: the first root's third child). */
  path: number[];
  /** Estimated row visits of this step with its children (PostgreSQL: its planner's Total Cost), and its share of the plan's total (0..1). */
  work: number;
  share: number;
  /** Row visits of this step alone, without its children (PostgreSQL: its own cost, pev2's exclusive cost). */
  selfWork: number;
  /** The step with the most row visits (PostgreSQL: cost) of its own in the plan. */
  costliest: boolean;
  /** EXPLAIN ANALYZE: the step that took the most time of its own. */
  slowest?: boolean;
  children: PlanNodeView[];
}

/** A plan's cards: its steps, and its costs as core's PlanCost names them (`rule`, `work`; PostgreSQL's `totalCost`). */
export interface PlanView extends PlanCost {
  /** Why there is no plan: the engine's compile error, or a refusal. */
  error?: string;
  /** EXPLAIN ANALYZE (PostgreSQL): the query ran; milliseconds planning and executing it. */
  measured?: ExplainedPlan['measured'];
  nodes: PlanNodeView[];
}

/** What differs between two plans, as core's comparePlans says it (its message worded for the editor). */
export type PlanDifferenceView = PlanDifference;

/** One row of two plans laid side by side: a gold step, a predicted step, or both when they correspond. */
export interface AlignedPlanRow {
  gold?: number[];
  pred?: number[];
  depth: number;
  /** same: identical step; changed: the same place read another way; gold-only / pred-only: a step the other plan lacks. */
  mark: 'same' | 'changed' | 'gold-only' | 'pred-only';
}

export interface PlanComparison {
  rows: AlignedPlanRow[];
  differences: PlanDifferenceView[];
  /** One sentence: "the two plans take the same steps", "the prediction has no plan: ...", or what differs. */
  summary: string;
}

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
export function planView(plan: ExplainedPlan, word: Wording = asIs): PlanView {
  const costs = {
    rule: plan.cost.rule,
    work: plan.cost.work,
    ...(plan.cost.totalCost !== undefined ? { totalCost: plan.cost.totalCost } : {}),
  };
  if (plan.error) return { error: word(plan.error), ...costs, nodes: [] };
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
export function comparePlanViews(gold: ExplainedPlan, pred: ExplainedPlan, word: Wording = asIs): PlanComparison {
  if (gold.error || pred.error) {
    const which =
      gold.error && pred.error
        ? 'neither query has a plan'
        : gold.error
          ? `the gold has no plan: ${word(gold.error)}`
          : `the prediction has no plan: ${word(pred.error!)}`;
    return { rows: alignPlans(gold.error ? [] : gold.nodes, pred.error ? [] : pred.nodes), differences: [], summary: which };
  }
  const rows = alignPlans(gold.nodes, pred.nodes);
  const differences = comparePlans(gold, pred).map((d) => ({ direction: d.direction, message: word(d.message) }));
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

/** One statement's plan cards; with `analyze`, run and measured step by step (PostgreSQL) within `timeoutMs`, stopped by `signal`. */
export async function explainStatement(
  database: OpenDatabase,
  sql: string,
  options: { analyze?: boolean; timeoutMs: number; signal?: AbortSignal },
  word: Wording = asIs,
): Promise<PlanView> {
  const analyze = options.analyze
    ? { deadline: performance.now() + options.timeoutMs, budgetMs: options.timeoutMs, signal: options.signal }
    : undefined;
  return planView(await explainQuery(database.db, sql, database.schema, { analyze }), word);
}

/** A statement timed alone: its first rows and its times, or why it was not timed (its preview's error, the run's); or stopped. */
export type StatementTiming = { preview: QueryPreview; timed: TimedAlone } | { preview: QueryPreview; error: string } | { cancelled: true };

const NO_PREVIEW: QueryPreview = { columns: [], rows: [], rowCount: null, truncated: false };

/**
 * One statement run (its preview, from `preview`, which a face may keep) and, when it ran, timed alone on fresh
 * connections (queryRuns.ts's timeAlone) within `timeoutMs`. `signal` interrupts the statement running.
 */
export async function timeStatement(
  database: OpenDatabase,
  sql: string,
  options: { timeoutMs: number; signal?: AbortSignal },
  steps: { preview(): Promise<QueryPreview>; progress?(message: string): void },
): Promise<StatementTiming> {
  const { signal } = options;
  const interrupt = () => database.db.interrupt();
  signal?.addEventListener('abort', interrupt);
  try {
    steps.progress?.('running the query');
    const preview = await steps.preview();
    if (preview.error) return { preview, error: preview.error };
    steps.progress?.('timing the query (fresh connection per run)');
    return { preview, timed: await timeAlone(database.path, sql, { timeoutMs: options.timeoutMs, signal }) };
  } catch (error) {
    if (error instanceof QueryCancelled || signal?.aborted) return { cancelled: true };
    return { preview: NO_PREVIEW, error: (error as Error).message };
  } finally {
    signal?.removeEventListener('abort', interrupt);
  }
}

/** One index proposed, as core's IndexVerdict judges it (plan and timing reduced to what a page shows). */
export interface IndexVerdictView {
  table: string;
  columns: string[];
  name: string;
  createSql: string;
  /** The clause it serves. */
  reason: string;
  /** SQLite's planner would use it (checked on a schema-only copy). */
  used: boolean;
  /** Worth creating: used, and measured faster when measured. */
  recommended: boolean;
  /** Measured: t_without / t_with with its repeat interval, and milliseconds per run without and with it. */
  measured?: { ratio: number; low: number; high: number; withoutMs: number; withMs: number; runs: number };
  speed?: 'faster' | 'slower' | 'no-difference';
  /** Why it could not be timed. */
  unmeasured?: string;
}

/** A statement's index advice: each candidate's verdict, or why there is none, or the candidates left unchecked and why. */
export interface StatementIndexAdvice {
  measured: boolean;
  verdicts: IndexVerdictView[];
  error?: string;
  unchecked?: { createSql: string[]; reason: string };
  method?: string;
}

/** The indexes that would speed the statement (never created on its database), measured when asked, within `timeoutMs`. */
export async function statementIndexAdvice(
  database: OpenDatabase,
  sql: string,
  options: { measure: boolean; timeoutMs: number },
  word: Wording = asIs,
): Promise<StatementIndexAdvice> {
  const advice = await adviseIndexes(database.db, sql, database.schema, options);
  return {
    measured: options.measure,
    verdicts: advice.verdicts.map((verdict) => verdictView(verdict, word)),
    ...(advice.error ? { error: word(advice.error) } : {}),
    ...(advice.unchecked
      ? { unchecked: { createSql: advice.unchecked.candidates.map((c) => c.createSql), reason: word(advice.unchecked.reason) } }
      : {}),
    ...(advice.method ? { method: advice.method } : {}),
  };
}

function verdictView(v: IndexVerdict, word: Wording): IndexVerdictView {
  const { candidate, measured } = v;
  return {
    table: candidate.table,
    columns: candidate.columns,
    name: candidate.name,
    createSql: candidate.createSql,
    reason: candidate.reason,
    used: v.used,
    recommended: v.recommended,
    ...(measured
      ? {
          measured: {
            ratio: measured.ratio,
            low: measured.low,
            high: measured.high,
            withoutMs: measured.goldMs,
            withMs: measured.predMs,
            runs: measured.runs,
          },
        }
      : {}),
    ...(v.speed ? { speed: v.speed } : {}),
    ...(v.unmeasured ? { unmeasured: word(v.unmeasured) } : {}),
  };
}
