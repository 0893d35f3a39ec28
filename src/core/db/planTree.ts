/**
 * The typed plan tree every engine's explainPlan returns. The step kinds are SQLite's (its EXPLAIN QUERY PLAN
 * is the first dialect read); another engine maps its own operators onto them (a PostgreSQL `Seq Scan` is a
 * `scan`, an `Index Scan` a `search`, a `Sort` a `temp-btree`) and keeps what it cannot map as `unknown`.
 */

export type PlanNodeKind =
  | 'scan' // a full pass over a table or index
  | 'search' // a lookup through an index, the rowid or the min/max optimisation
  | 'scan-subquery' // a pass over a subquery's or CTE's result
  | 'constant-row' // SELECT without FROM
  | 'temp-btree' // a sort or de-duplication SQLite builds at run time
  | 'subquery' // scalar or list (IN) subquery, correlated or not
  | 'materialize' // a subquery or CTE computed into a temporary table
  | 'co-routine' // a subquery computed row by row as the outer query asks
  | 'compound' // UNION / EXCEPT / INTERSECT and their parts
  | 'bloom-filter' // 3.38+: a Bloom filter checked before a join lookup
  | 'multi-index-or' // OR terms each served by its own index
  | 'in-operator' // how the right side of IN (...) is searched
  | 'recursive' // parts of a recursive CTE
  | 'right-join' // 3.39+: the pass that emits unmatched rows of a RIGHT or FULL JOIN
  | 'unknown';

export interface PlanNode {
  id: number;
  parent: number;
  detail: string;
  kind: PlanNodeKind;
  /** The table (or alias) the step reads, as SQLite names it. */
  table?: string;
  /** The alias, when the old `AS` form states it. */
  alias?: string;
  /** Index used: its name, `INTEGER PRIMARY KEY`, `PRIMARY KEY`, or `AUTOMATIC` for one built at run time. */
  index?: string;
  covering?: boolean;
  automatic?: boolean;
  partial?: boolean;
  /** The constraint SQLite uses the index for, e.g. `id=?` or `a=? AND b>?`. */
  constraint?: string;
  /** For temp-btree: what it is for (ORDER BY, GROUP BY, DISTINCT, RIGHT PART OF ORDER BY, LAST TERM OF ORDER BY, ...). */
  purpose?: string;
  /** For subquery: SCALAR or LIST; correlated ones re-run for every outer row. */
  subqueryType?: 'SCALAR' | 'LIST';
  correlated?: boolean;
  /** Subquery number or CTE name of materialize / co-routine / subquery / scan-subquery steps. */
  subquery?: string;
  /** For compound parts: LEFT-MOST, UNION, UNION ALL, EXCEPT, INTERSECT, MERGE, LEFT, RIGHT. */
  operator?: string;
  /** A server engine's own operator (PostgreSQL's `Node Type`: `Hash Join`, `Bitmap Heap Scan`, ...). */
  nodeType?: string;
  /** The planner's estimates (PostgreSQL: `Plan Rows`, `Startup Cost`, `Total Cost`, in its cost units). */
  estimatedRows?: number;
  startupCost?: number;
  totalCost?: number;
  /** A server engine's row filter (PostgreSQL: `Filter`, `Join Filter`), and with ANALYZE the rows it removed (all loops). */
  filter?: string;
  rowsRemovedByFilter?: number;
  /**
   * What EXPLAIN ANALYZE measured (PostgreSQL): rows per loop, loops (0: never executed), milliseconds per loop
   * to the first and the last row, and shared buffers found in memory or read, this step and its inputs together.
   */
  actualRows?: number;
  actualLoops?: number;
  actualStartupMs?: number;
  actualTotalMs?: number;
  sharedHitBlocks?: number;
  sharedReadBlocks?: number;
  children: PlanNode[];
}

/** A plan the engine measured by running the query (PostgreSQL's EXPLAIN ANALYZE): its steps, and the milliseconds spent planning and executing. */
export interface MeasuredPlanTree {
  nodes: PlanNode[];
  planningMs?: number;
  executionMs?: number;
}

/**
 * A server planner's estimate of a plan's work, to tell a statement far costlier than others apart before any runs
 * (eval's lanes start those first): PostgreSQL's Total Cost of its roots. MySQL's plans carry no total: there the
 * rows each step expects to read, multiplied along a level's nested loops, plus the work of the subqueries and
 * materialised tables under each step (times the loops so far when correlated). A rank, not a time.
 */
export function plannerEstimate(roots: readonly PlanNode[]): number {
  if (roots.some((root) => root.totalCost !== undefined)) return roots.reduce((sum, root) => sum + (root.totalCost ?? 0), 0);
  const levelWork = (nodes: readonly PlanNode[]): number => {
    let loops = 1;
    let inner = 0;
    for (const node of nodes) {
      loops *= Math.max(1, node.estimatedRows ?? 1);
      const under = node.children.length ? levelWork(node.children) : 0;
      inner += node.correlated ? loops * under : under;
    }
    return loops + inner;
  };
  return levelWork(roots);
}
