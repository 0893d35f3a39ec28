import { PlanNode, PlanNodeKind } from '../planTree';

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
  'Sort Key'?: string[];
  'Group Key'?: string[];
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  'Startup Cost'?: number;
  'Total Cost'?: number;
  'Plan Rows'?: number;
  Plans?: PostgresPlanJson[];
}

type Fields = Omit<PlanNode, 'id' | 'parent' | 'detail' | 'children'>;

/** PostgreSQL's operators on planTree.ts's step kinds; what has no counterpart stays `unknown`, with its node type. */
function fieldsOf(node: PostgresPlanJson): Fields {
  const type = node['Node Type'];
  const relation = node['Relation Name'];
  const alias = node.Alias && node.Alias !== relation ? node.Alias : undefined;
  const table = relation ? { table: relation, ...(alias ? { alias } : {}) } : {};
  const constraint = node['Index Cond'] ?? node['Recheck Cond'];
  const lookup = {
    ...(node['Index Name'] ? { index: node['Index Name'] } : {}),
    ...(constraint ? { constraint: constraint.replace(/^\((.*)\)$/, '$1') } : {}),
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
    nodeType: type,
    ...table,
    ...lookup,
    ...extra,
    ...(node['Plan Rows'] !== undefined ? { estimatedRows: node['Plan Rows'] } : {}),
    ...(node['Startup Cost'] !== undefined ? { startupCost: node['Startup Cost'] } : {}),
    ...(node['Total Cost'] !== undefined ? { totalCost: node['Total Cost'] } : {}),
  };
}

/** `Seq Scan on superhero T1`, `Index Scan using hero_pkey on superhero (id = 5)`: the line EXPLAIN's text format would show. */
function detailOf(node: PostgresPlanJson): string {
  const parts = [
    node.Strategy && node['Node Type'] === 'Aggregate'
      ? `${node.Strategy === 'Hashed' ? 'Hash' : node.Strategy} Aggregate`
      : node['Node Type'],
  ];
  if (node['Index Name']) parts.push(`using ${node['Index Name']}`);
  if (node['Relation Name'])
    parts.push(`on ${node['Relation Name']}${node.Alias && node.Alias !== node['Relation Name'] ? ` ${node.Alias}` : ''}`);
  else if (node['CTE Name']) parts.push(`on ${node['CTE Name']}`);
  const condition = node['Index Cond'] ?? node['Recheck Cond'];
  if (condition) parts.push(condition);
  return parts.join(' ');
}

/**
 * `EXPLAIN (FORMAT JSON)` → the typed plan tree: one PlanNode per plan node, numbered in pre-order. A subplan
 * (a subquery PostgreSQL runs apart from the join tree) gets a `subquery` step above it, as SQLite shows its
 * subqueries: `SubPlan` correlated (re-run per outer row), `InitPlan` run once.
 */
export function planTreeOfJson(explain: unknown): PlanNode[] {
  const root = (Array.isArray(explain) ? explain[0] : explain) as { Plan?: PostgresPlanJson } | undefined;
  if (!root?.Plan) return [];
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
  return [build(root.Plan, 0)];
}
