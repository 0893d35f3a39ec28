import { TableInfo } from '../db/schema';
import { PlanNode } from '../db/planTree';

/**
 * Two costs for a plan.
 * - `rule`: the BIRD efficiency study's rule of thumb: every full SCAN +100, every temp B-tree +50, SEARCH 0.
 * - `work`: a row-aware estimate of row visits: each loop step's rows × the rows of the loops around it,
 *   correlated subqueries × their outer rows, automatic indexes charged for the table pass that builds them,
 *   sorts n·log2(n). Without ANALYZE statistics the per-lookup counts follow SQLite's own defaults
 *   (about 10 rows per equality on a non-unique index, 1 on a unique one, a quarter of the table per range bound).
 */
export interface PlanCost {
  rule: number;
  /** Row visits (SQLite); on a server engine whose planner costs its plans, that estimate (its Total Cost). */
  work: number;
  /**
   * PostgreSQL: the planner's estimated Total Cost of the statement (`EXPLAIN (FORMAT JSON)`, its root), in the
   * planner's cost units: what BIRD-Critic compares. Absent on SQLite, which costs no plans.
   */
  totalCost?: number;
}

/** What EXPLAIN ANALYZE measured of one step (PostgreSQL), read as pev2 reads it. */
export interface StepMeasurement {
  /** Rows per loop, and loops (0: the step never ran). */
  rows: number;
  loops: number;
  /** Milliseconds of the step with its inputs, all loops; of the step alone (its inputs' time taken out). */
  totalMs: number;
  selfMs: number;
  /** How far the planner's rows per loop were from the actual: a factor of at least 1, `under` when more rows came than estimated. */
  misestimate: number;
  direction: 'under' | 'over' | 'exact';
  /** The misestimate is at least MISESTIMATE_FLAG: flagged wherever the step is shown. */
  misestimated: boolean;
  /** Shared buffers of the step alone: found in PostgreSQL's cache, read from the operating system. */
  hitBlocks?: number;
  readBlocks?: number;
}

/** A misestimate of rows at least this factor is flagged: plans chosen on such estimates are often the wrong ones. */
export const MISESTIMATE_FLAG = 10;

export interface CostedNode extends PlanNode {
  /** The real table behind the name the plan shows (alias resolved), and its row count. */
  realTable?: string;
  rowCount?: number;
  /** Rule cost of this step alone. */
  ruleCost: number;
  /** Rows this step yields each time it runs. */
  rowsOut: number;
  /** How many times the step runs (the rows of the loops around it). */
  loops: number;
  /** Row visits this step and its children cause in all (a server's plan: its planner's Total Cost, this step with its inputs). */
  work: number;
  /** EXPLAIN ANALYZE (PostgreSQL): what this step measured. */
  measured?: StepMeasurement;
  children: CostedNode[];
}

export interface CostContext {
  /** Real table by lower-case plan name (alias or table). */
  aliases: Map<string, string>;
  /** Table facts by lower-case real name. */
  tables: Map<string, TableInfo>;
  /**
   * Lower-case real tables whose MIN / MAX the statement takes of the rowid (its alias): their bare `SEARCH t`
   * reads one row from the end of the table's b-tree. Any other bare `SEARCH t` is a pass over the table.
   */
  rowidMinMax?: ReadonlySet<string>;
}

const ROWS_PER_EQUALITY = 10;
const RANGE_FRACTION = 0.25;

function tableOf(node: PlanNode, context: CostContext): TableInfo | undefined {
  const name = node.alias ?? node.table;
  if (!name) return undefined;
  const real = context.aliases.get(name.toLowerCase()) ?? node.table;
  return real ? context.tables.get(real.toLowerCase()) : undefined;
}

/**
 * Rows one SEARCH visits per lookup, from its constraint and whether the index is unique. A SEARCH without a
 * constraint is SQLite's min/max optimisation: one row from the end of an index it names, or of the rowid's
 * b-tree; without a usable index (`SEARCH hero_attribute` for MAX(attribute_value)) it is a pass over the whole
 * table, run again for every outer row when correlated (issue 34: ~149.5K estimated where 1.4 B were visited).
 */
function rowsPerSearch(node: PlanNode, table: TableInfo | undefined, context: CostContext): number {
  const total = table?.rowCount ?? 1000;
  if (!node.constraint) return node.index || context.rowidMinMax?.has(table?.name.toLowerCase() ?? '') ? 1 : total;
  const terms = node.constraint.split(/\s+AND\s+/i);
  const equalities = terms.filter((t) => /=\?$|=\s*\?$/.test(t) && !/[<>]=/.test(t)).length;
  const ranges = terms.filter((t) => /[<>]/.test(t)).length;
  const indexedColumns = node.constraint.match(/[\w"]+(?=\s*(?:[=<>]|IN))/g)?.length ?? 0;
  const index = table?.indexes.find((i) => i.name === node.index);
  const unique =
    node.index === 'INTEGER PRIMARY KEY' || node.index === 'PRIMARY KEY' || (index?.unique && index.columns.length <= indexedColumns);
  if (unique && ranges === 0) return 1;
  let rows = equalities > 0 ? Math.min(total, ROWS_PER_EQUALITY) : total;
  for (let i = 0; i < ranges; i++) rows *= RANGE_FRACTION;
  return Math.max(1, rows);
}

const log2 = (n: number) => (n > 1 ? Math.log2(n) : 1);

/**
 * Costs a list of sibling steps run in order (SQLite lists a join's loops outermost first), inside `outerLoops`
 * rows of enclosing loops. Returns the costed steps and the rows the whole level yields.
 */
function costLevel(nodes: readonly PlanNode[], outerLoops: number, context: CostContext): { nodes: CostedNode[]; rows: number } {
  let loops = outerLoops;
  const costed: CostedNode[] = [];
  const producedBy = new Map<string, number>(); // rows of materialised subqueries / CTEs, for their scans
  for (const node of nodes) {
    const table = tableOf(node, context);
    const base = {
      ...node,
      realTable: table?.name,
      rowCount: table?.rowCount,
      ruleCost: 0,
      rowsOut: 1,
      loops,
      work: 0,
      children: [] as CostedNode[],
    };
    switch (node.kind) {
      case 'scan': {
        base.ruleCost = 100;
        const rows = table?.rowCount ?? producedBy.get((node.table ?? '').toLowerCase()) ?? 1000;
        base.rowsOut = rows;
        base.work = loops * rows;
        loops *= Math.max(1, rows);
        break;
      }
      case 'scan-subquery': {
        base.ruleCost = 100;
        const rows = producedBy.get(node.subquery ?? '') ?? 100;
        base.rowsOut = rows;
        base.work = loops * rows;
        loops *= Math.max(1, rows);
        break;
      }
      case 'search': {
        const rows = rowsPerSearch(node, table, context);
        base.rowsOut = rows;
        // An automatic index costs one pass over the table to build, once per statement.
        base.work = loops * rows + (node.automatic ? (table?.rowCount ?? 1000) : 0);
        loops *= Math.max(1, rows);
        break;
      }
      case 'temp-btree':
        base.ruleCost = 50;
        base.work = loops * log2(loops);
        break;
      case 'constant-row':
        base.rowsOut = 1;
        base.work = loops;
        break;
      case 'subquery': {
        const inner = costLevel(node.children, 1, context);
        base.children = inner.nodes;
        const once = sumWork(inner.nodes);
        base.rowsOut = inner.rows;
        base.work = node.correlated ? loops * once : once;
        break;
      }
      case 'materialize':
      case 'co-routine': {
        const inner = costLevel(node.children, 1, context);
        base.children = inner.nodes;
        base.rowsOut = inner.rows;
        base.work = sumWork(inner.nodes);
        if (node.subquery) producedBy.set(node.subquery.toLowerCase(), inner.rows);
        break;
      }
      case 'compound': {
        const parts = node.children.map((child) => costLevel([child], 1, context));
        base.children = parts.flatMap((p) => p.nodes);
        base.rowsOut = parts.reduce((sum, p) => sum + p.rows, 0) || 1;
        const usesTempBTree = Boolean(node.purpose);
        base.ruleCost = usesTempBTree ? 50 : 0;
        base.work = sumWork(base.children) + (usesTempBTree ? base.rowsOut * log2(base.rowsOut) : 0);
        if (!node.operator) loops *= Math.max(1, base.rowsOut);
        break;
      }
      default: {
        // multi-index-or, bloom filters, IN-operator helpers, recursive parts, unknown lines: cost their children.
        const inner = costLevel(node.children, loops, context);
        base.children = inner.nodes;
        base.work = sumWork(inner.nodes);
        if (node.kind === 'multi-index-or' && !node.operator) {
          base.rowsOut = inner.nodes.reduce((sum, child) => sum + child.rowsOut, 0) || 1;
          loops *= Math.max(1, base.rowsOut);
        }
      }
    }
    costed.push(base);
  }
  return { nodes: costed, rows: loops / Math.max(1, outerLoops) };
}

/** A step's own work: its work less its children's (pev2's exclusive cost on a planner's plan; a correlated subquery's repeats stay its own). */
export function selfWork(node: CostedNode): number {
  return Math.max(0, node.work - sumWork(node.children));
}

/** The step that costs most on its own (its self work), if any step costs anything. */
export function costliestStep(nodes: readonly CostedNode[]): CostedNode | undefined {
  let costliest: CostedNode | undefined;
  const visit = (node: CostedNode) => {
    if (selfWork(node) > 0 && (!costliest || selfWork(node) > selfWork(costliest))) costliest = node;
    node.children.forEach(visit);
  };
  nodes.forEach(visit);
  return costliest;
}

function sumWork(nodes: readonly CostedNode[]): number {
  return nodes.reduce((sum, node) => sum + node.work, 0);
}

function sumRule(nodes: readonly CostedNode[]): number {
  return nodes.reduce((sum, node) => sum + node.ruleCost + sumRule(node.children), 0);
}

/** BIRD's rule of thumb for one step, on any engine's plan: a full pass +100, a sort or hash its engine builds +50. */
function ruleCostOf(node: PlanNode): number {
  return node.kind === 'scan' || node.kind === 'scan-subquery' ? 100 : node.kind === 'temp-btree' ? 50 : 0;
}

/** A planner's subquery step placed above its plan (postgresPlan.ts): InitPlan when run once, SubPlan when correlated. */
const isInitPlan = (node: PlanNode) => node.kind === 'subquery' && !node.correlated;

/** Steps under a Gather report time per worker, not per loop (pev2's reading). */
const GATHERS = new Set(['Gather', 'Gather Merge']);

/** The misestimate of rows per loop, as a factor of at least 1 (an actual or estimated 0 counts as 1). */
function misestimateOf(estimated: number, actual: number): Pick<StepMeasurement, 'misestimate' | 'direction' | 'misestimated'> {
  const e = Math.max(1, estimated);
  const a = Math.max(1, actual);
  const misestimate = Math.max(e / a, a / e);
  return { misestimate, direction: a > e ? 'under' : a < e ? 'over' : 'exact', misestimated: misestimate >= MISESTIMATE_FLAG };
}

/**
 * What a step measured, from EXPLAIN ANALYZE's inclusive figures: its time over all loops less its inputs'
 * (an InitPlan's time and buffers stay with the step whose expression ran it, as pev2 counts them), its
 * buffers less its inputs', and the factor by which the planner misjudged its rows.
 */
function measurementOf(node: PlanNode, children: readonly CostedNode[], underGather: boolean): StepMeasurement | undefined {
  if (node.actualLoops === undefined) return undefined;
  const loops = node.actualLoops;
  const totalMs = (node.actualTotalMs ?? 0) * (underGather ? 1 : loops);
  const inputs = children.filter((child) => !isInitPlan(child));
  const sum = (pick: (m: StepMeasurement) => number) =>
    inputs.reduce((total, child) => total + (child.measured ? pick(child.measured) : 0), 0);
  const inclusive = (m: StepMeasurement) => m.totalMs;
  const measurement: StepMeasurement = {
    rows: node.actualRows ?? 0,
    loops,
    totalMs,
    selfMs: Math.max(0, totalMs - sum(inclusive)),
    ...(loops === 0
      ? { misestimate: 1, direction: 'exact' as const, misestimated: false }
      : misestimateOf(node.estimatedRows ?? 0, node.actualRows ?? 0)),
  };
  if (node.sharedHitBlocks !== undefined) measurement.hitBlocks = Math.max(0, node.sharedHitBlocks - sumBlocks(inputs, 'sharedHitBlocks'));
  if (node.sharedReadBlocks !== undefined)
    measurement.readBlocks = Math.max(0, node.sharedReadBlocks - sumBlocks(inputs, 'sharedReadBlocks'));
  return measurement;
}

/** Inputs' inclusive buffer counts (a planner's subquery step carries its plan's). */
function sumBlocks(inputs: readonly CostedNode[], field: 'sharedHitBlocks' | 'sharedReadBlocks'): number {
  return inputs.reduce((total, child) => total + (child[field] ?? (child.kind === 'subquery' ? (child.children[0]?.[field] ?? 0) : 0)), 0);
}

/**
 * A plan whose engine costed it (PostgreSQL): each step's work is its planner's Total Cost (the step with its
 * inputs), so a step's own share is its cost less its inputs' (pev2's exclusive cost); the rule cost as on
 * SQLite. Rows out are the planner's estimate per loop; loops are measured ones with ANALYZE, else 1.
 */
function costPlannedLevel(nodes: readonly PlanNode[], context: CostContext, underGather = false): CostedNode[] {
  return nodes.map((node) => {
    const children = costPlannedLevel(node.children, context, underGather || GATHERS.has(node.nodeType ?? ''));
    const table = tableOf(node, context);
    // A subquery step placed above a subplan has no cost of its own: it carries its plan's.
    const wrapped = node.totalCost === undefined ? children[0] : undefined;
    const costed: CostedNode = {
      ...node,
      realTable: table?.name,
      rowCount: table?.rowCount,
      ruleCost: ruleCostOf(node),
      rowsOut: node.estimatedRows ?? wrapped?.rowsOut ?? 1,
      loops: node.actualLoops ?? wrapped?.loops ?? 1,
      work: node.totalCost ?? wrapped?.work ?? 0,
      children,
    };
    const measured = wrapped ? wrapped.measured : measurementOf(node, children, underGather);
    if (measured) costed.measured = wrapped ? { ...measured, selfMs: 0, hitBlocks: 0, readBlocks: 0 } : measured;
    return costed;
  });
}

/** Annotates a plan tree with both costs (a plan its engine costed keeps its planner's costs: costPlannedLevel). */
export function costPlan(roots: readonly PlanNode[], context: CostContext): { nodes: CostedNode[]; cost: PlanCost } {
  if (roots.some((root) => root.totalCost !== undefined)) {
    const nodes = costPlannedLevel(roots, context);
    const totalCost = Math.round(sumWork(nodes) * 100) / 100;
    return { nodes, cost: { rule: sumRule(nodes), work: totalCost, totalCost } };
  }
  const { nodes } = costLevel(roots, 1, context);
  return { nodes, cost: { rule: sumRule(nodes), work: Math.round(sumWork(nodes)) } };
}

/** Both plan costs of a question's gold and prediction (null where it has no plan: it does not compile, or is refused). */
export interface PlanCostPair {
  gold: PlanCost | null;
  pred: PlanCost | null;
  /** `eval --efficiency plan-cost`: the gold's Total Cost over the prediction's (above 1: the prediction's plan is cheaper); null without both. */
  total_cost_ratio?: number | null;
  /** BIRD-Critic's deterministic efficiency verdict: 1 when the prediction's Total Cost is below the gold's, else 0; null without both. */
  pred_cheaper?: 0 | 1 | null;
}

/**
 * BIRD-Critic's efficiency comparison (its `performance_compare_by_qep`): the `Total Cost` of each statement's
 * `EXPLAIN (FORMAT JSON)` root, the solution's strictly below the reference's scores 1. Here the prediction is
 * the solution and the gold the reference; the ratio gold / prediction reads as the timed ratio does.
 */
export function plannerCostVerdict(pair: PlanCostPair): PlanCostPair {
  const gold = pair.gold?.totalCost;
  const pred = pair.pred?.totalCost;
  if (gold === undefined || pred === undefined) return { ...pair, total_cost_ratio: null, pred_cheaper: null };
  return { ...pair, total_cost_ratio: pred > 0 ? gold / pred : gold > 0 ? null : 1, pred_cheaper: pred < gold ? 1 : 0 };
}
