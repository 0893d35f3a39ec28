import { MeasuredPlanTree, PlanNode, PlanNodeKind } from '../planTree';

/** One node of PostgreSQL's `EXPLAIN (FORMAT JSON)` output, as far as the plan tree reads it. */
export interface PostgresPlanJson {
  'Node Type': string;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  'Relation Name'?: string;
  Alias?: string;
  'Index Name'?: string;
  'CTE Name'?: string;
  Strategy?: string;
  Operation?: string;
  Command?: string;
  'Join Type'?: string;
  'Sort Key'?: string[];
  'Group Key'?: string[];
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  'Hash Cond'?: string;
  'Merge Cond'?: string;
  'Join Filter'?: string;
  Filter?: string;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Startup Cost'?: number;
  'Total Cost'?: number;
  'Plan Rows'?: number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Actual Startup Time'?: number;
  'Actual Total Time'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PostgresPlanJson[];
}

/** The whole of one statement's `EXPLAIN (FORMAT JSON)` output (with ANALYZE: the planning and execution times). */
interface PostgresExplainJson {
  Plan?: PostgresPlanJson;
  'Planning Time'?: number;
  'Execution Time'?: number;
}

/** A field's value when PostgreSQL reported it. */
const present = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** How a step's input rows are matched or ordered: its index, join or sort condition, in PostgreSQL's words. */
function conditionOf(node: PostgresPlanJson): string | undefined {
  const condition = node['Index Cond'] ?? node['Recheck Cond'] ?? node['Hash Cond'] ?? node['Merge Cond'];
  if (condition) return condition.replace(/^\((.*)\)$/, '$1');
  const keys = node['Sort Key'] ?? node['Group Key'];
  return keys?.length ? keys.join(', ') : undefined;
}

/** What EXPLAIN ANALYZE measured of a step, and its row filter. */
function measuredFields(node: PostgresPlanJson): Partial<Fields> {
  const filter = node.Filter ?? node['Join Filter'];
  const removed =
    node['Rows Removed by Filter'] === undefined && node['Rows Removed by Join Filter'] === undefined
      ? undefined
      : (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Join Filter'] ?? 0);
  return {
    ...present('filter', filter?.replace(/^\((.*)\)$/, '$1')),
    ...present('rowsRemovedByFilter', removed),
    ...present('actualRows', node['Actual Rows']),
    ...present('actualLoops', node['Actual Loops']),
    ...present('actualStartupMs', node['Actual Startup Time']),
    ...present('actualTotalMs', node['Actual Total Time']),
    ...present('sharedHitBlocks', node['Shared Hit Blocks']),
    ...present('sharedReadBlocks', node['Shared Read Blocks']),
  };
}

/** An Aggregate by its strategy, as EXPLAIN's text names it. */
const AGGREGATE_NAMES: Record<string, string> = {
  Plain: 'Aggregate',
  Sorted: 'GroupAggregate',
  Hashed: 'HashAggregate',
  Mixed: 'MixedAggregate',
};

type Fields = Omit<PlanNode, 'id' | 'parent' | 'detail' | 'children'>;

/** PostgreSQL's operators on planTree.ts's step kinds; what has no counterpart stays `unknown`, with its node type. */
function fieldsOf(node: PostgresPlanJson): Fields {
  const type = node['Node Type'];
  const relation = node['Relation Name'];
  const alias = node.Alias && node.Alias !== relation ? node.Alias : undefined;
  const table = relation ? { table: relation, ...(alias ? { alias } : {}) } : {};
  const constraint = conditionOf(node);
  const lookup = {
    ...(node['Index Name'] ? { index: node['Index Name'] } : {}),
    ...(constraint ? { constraint } : {}),
  };
  let kind: PlanNodeKind = 'unknown';
  const extra: Partial<Fields> = {};
  switch (type) {
    case 'Seq Scan':
    case 'Sample Scan':
    case 'Tid Scan':
    case 'Tid Range Scan':
      kind = 'scan';
      break;
    case 'Index Scan':
    case 'Index Only Scan':
    case 'Bitmap Heap Scan':
    case 'Bitmap Index Scan':
      kind = 'search';
      extra.covering = type === 'Index Only Scan';
      break;
    case 'Subquery Scan':
    case 'CTE Scan':
    case 'Named Tuplestore Scan':
      kind = 'scan-subquery';
      extra.subquery = node['CTE Name'] ?? node.Alias;
      break;
    case 'WorkTable Scan':
    case 'Recursive Union':
      kind = 'recursive';
      break;
    case 'Result':
    case 'Values Scan':
      if (!node.Plans?.length) kind = 'constant-row';
      break;
    case 'Sort':
    case 'Incremental Sort':
      kind = 'temp-btree';
      extra.purpose = 'ORDER BY';
      break;
    case 'Materialize':
      kind = 'materialize';
      break;
    case 'Append':
    case 'Merge Append':
    case 'SetOp':
      kind = 'compound';
      if (node.Command) extra.operator = node.Command.toUpperCase();
      break;
    case 'Aggregate':
      if (node.Strategy === 'Hashed' || node.Strategy === 'Mixed') {
        kind = 'temp-btree';
        extra.purpose = 'GROUP BY';
      }
      break;
  }
  return {
    kind,
    // An Aggregate goes by its strategy, as EXPLAIN's text names it (HashAggregate, GroupAggregate).
    nodeType: type === 'Aggregate' ? (AGGREGATE_NAMES[node.Strategy ?? 'Plain'] ?? type) : type,
    ...table,
    ...lookup,
    ...extra,
    ...(node['Plan Rows'] !== undefined ? { estimatedRows: node['Plan Rows'] } : {}),
    ...(node['Startup Cost'] !== undefined ? { startupCost: node['Startup Cost'] } : {}),
    ...(node['Total Cost'] !== undefined ? { totalCost: node['Total Cost'] } : {}),
    ...measuredFields(node),
  };
}

/** `Seq Scan on superhero T1`, `Index Scan using hero_pkey on superhero (id = 5)`: the line EXPLAIN's text format would show. */
function detailOf(node: PostgresPlanJson): string {
  const type = node['Node Type'];
  const joinType = node['Join Type'] && node['Join Type'] !== 'Inner' ? node['Join Type'] : undefined;
  const parts = [
    type === 'Aggregate'
      ? (AGGREGATE_NAMES[node.Strategy ?? 'Plain'] ?? type)
      : joinType // as EXPLAIN's text says it: Hash Left Join, Nested Loop Anti Join
        ? type === 'Nested Loop'
          ? `Nested Loop ${joinType} Join`
          : type.replace(/ Join$/, ` ${joinType} Join`)
        : type,
  ];
  if (node['Index Name']) parts.push(`using ${node['Index Name']}`);
  if (node['Relation Name'])
    parts.push(`on ${node['Relation Name']}${node.Alias && node.Alias !== node['Relation Name'] ? ` ${node.Alias}` : ''}`);
  else if (node['CTE Name']) parts.push(`on ${node['CTE Name']}`);
  const condition = node['Index Cond'] ?? node['Recheck Cond'] ?? node['Hash Cond'] ?? node['Merge Cond'];
  if (condition) parts.push(condition);
  return parts.join(' ');
}

/**
 * `EXPLAIN (FORMAT JSON)` → the typed plan tree: one PlanNode per plan node, numbered in pre-order. A subplan
 * (a subquery PostgreSQL runs apart from the join tree) gets a `subquery` step above it, as SQLite shows its
 * subqueries: `SubPlan` correlated (re-run per outer row), `InitPlan` run once.
 */
export function planTreeOfJson(explain: unknown): PlanNode[] {
  return measuredPlanOfJson(explain).nodes;
}

/**
 * `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` → the typed plan tree with each step's measurements (planTreeOfJson),
 * and the statement's planning and execution milliseconds.
 */
export function measuredPlanOfJson(explain: unknown): MeasuredPlanTree {
  const root = (Array.isArray(explain) ? explain[0] : explain) as PostgresExplainJson | undefined;
  if (!root?.Plan) return { nodes: [] };
  let nextId = 1;
  const build = (node: PostgresPlanJson, parent: number): PlanNode => {
    const relationship = node['Parent Relationship'];
    if (relationship === 'SubPlan' || relationship === 'InitPlan') {
      const id = nextId++;
      const correlated = relationship === 'SubPlan';
      const wrapper: PlanNode = {
        id,
        parent,
        detail: `${correlated ? 'CORRELATED ' : ''}SCALAR SUBQUERY ${node['Subplan Name'] ?? ''}`.trim(),
        kind: 'subquery',
        subqueryType: 'SCALAR',
        correlated,
        subquery: node['Subplan Name'],
        children: [],
      };
      wrapper.children.push(buildNode(node, id));
      return wrapper;
    }
    return buildNode(node, parent);
  };
  const buildNode = (node: PostgresPlanJson, parent: number): PlanNode => {
    const id = nextId++;
    const planNode: PlanNode = { id, parent, detail: detailOf(node), ...fieldsOf(node), children: [] };
    planNode.children = (node.Plans ?? []).map((child) => build(child, id));
    return planNode;
  };
  return {
    nodes: [build(root.Plan, 0)],
    ...present('planningMs', root['Planning Time']),
    ...present('executionMs', root['Execution Time']),
  };
}
