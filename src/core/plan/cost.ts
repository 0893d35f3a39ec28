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
  work: number;
}

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
  /** Row visits this step and its children cause in all. */
  work: number;
  children: CostedNode[];
}

export interface CostContext {
  /** Real table by lower-case plan name (alias or table). */
  aliases: Map<string, string>;
  /** Table facts by lower-case real name. */
  tables: Map<string, TableInfo>;
}

const ROWS_PER_EQUALITY = 10;
const RANGE_FRACTION = 0.25;

function tableOf(node: PlanNode, context: CostContext): TableInfo | undefined {
  const name = node.alias ?? node.table;
  if (!name) return undefined;
  const real = context.aliases.get(name.toLowerCase()) ?? node.table;
  return real ? context.tables.get(real.toLowerCase()) : undefined;
}

/** Rows one SEARCH yields per lookup, from its constraint and whether the index is unique. */
function rowsPerSearch(node: PlanNode, table: TableInfo | undefined): number {
  const total = table?.rowCount ?? 1000;
  if (!node.constraint) return 1; // min/max optimisation: `SEARCH t`
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
        const rows = rowsPerSearch(node, table);
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

function sumWork(nodes: readonly CostedNode[]): number {
  return nodes.reduce((sum, node) => sum + node.work, 0);
}

function sumRule(nodes: readonly CostedNode[]): number {
  return nodes.reduce((sum, node) => sum + node.ruleCost + sumRule(node.children), 0);
}

/** Annotates a plan tree with both costs. */
export function costPlan(roots: readonly PlanNode[], context: CostContext): { nodes: CostedNode[]; cost: PlanCost } {
  const { nodes } = costLevel(roots, 1, context);
  return { nodes, cost: { rule: sumRule(nodes), work: Math.round(sumWork(nodes)) } };
}

/** Both plan costs of a question's gold and prediction (null where it has no plan: it does not compile, or is refused). */
export interface PlanCostPair {
  gold: PlanCost | null;
  pred: PlanCost | null;
}
