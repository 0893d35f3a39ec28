// A plan step in words: its operator, its subject, its index, and what it does and why it costs what it costs
// (from its own numbers). The plan cards (planTree.ts) show them; the tooltip says the explanation.
import type { PlanNodeKind } from '../../core/db/planTree';
import type { PlanNodeView } from '../../shared/protocol';
import { compact, compactCounted, fixed, milliseconds } from '../common/format';

const OPERATOR: Record<PlanNodeKind, string> = {
  scan: 'SCAN',
  search: 'SEARCH',
  'scan-subquery': 'SCAN SUBQUERY',
  'constant-row': 'CONSTANT ROW',
  'temp-btree': 'TEMP B-TREE',
  subquery: 'SUBQUERY',
  materialize: 'MATERIALIZE',
  'co-routine': 'CO-ROUTINE',
  compound: 'COMPOUND',
  'bloom-filter': 'BLOOM FILTER',
  'multi-index-or': 'MULTI-INDEX OR',
  'in-operator': 'IN LOOKUP',
  recursive: 'RECURSIVE',
  'right-join': 'RIGHT JOIN',
  unknown: 'STEP',
};

export function operatorName(node: PlanNodeView): string {
  if (node.nodeType) return node.nodeType; // PostgreSQL's own operator
  if (node.kind === 'search' && node.automatic) return 'SEARCH · AUTOMATIC INDEX';
  if (node.kind === 'subquery') return `${node.correlated ? 'CORRELATED ' : ''}${node.subqueryType ?? ''} SUBQUERY`.trim();
  return OPERATOR[node.kind] ?? String(node.kind).toUpperCase();
}

/** The step's subject: the table (and the alias it goes by), the subquery, or what a temp B-tree is for. */
export function subjectText(node: PlanNodeView): string {
  if (node.table) {
    const real =
      node.realTable && node.realTable.toLowerCase() !== node.table.toLowerCase() ? `${node.realTable} AS ${node.table}` : node.table;
    return node.alias && node.alias !== node.table ? `${real} AS ${node.alias}` : real;
  }
  if (node.purpose) return `for ${node.purpose}`;
  if (node.subquery) return `subquery ${node.subquery}`;
  if (node.operator) return node.operator;
  return '';
}

export function indexText(node: PlanNodeView): string {
  if (!node.index) return '';
  const primaryKey = node.index === 'INTEGER PRIMARY KEY' || node.index === 'PRIMARY KEY';
  const kind = node.automatic
    ? 'automatic index'
    : primaryKey
      ? node.index.toLowerCase()
      : `${node.covering ? 'covering ' : ''}index ${node.index}`;
  return `${kind}${node.constraint ? ` (${node.constraint})` : ''}`;
}

const times = (n: number) => (n > 1 ? `${compact(n)} times` : 'once');

/** What the operator does, and why this step costs what it costs (from its own numbers). */
export function explainStep(node: PlanNodeView): string[] {
  const table = node.realTable ?? node.table ?? 'the table';
  const rows = node.rowCount !== undefined ? compactCounted(node.rowCount, 'row') : 'its rows';
  const visits = `~${compact(node.work)} row visits`;
  const perLookup = `About ${compact(node.rowsOut)} row(s) per lookup, ${times(node.loops)}: ${visits}`;
  switch (node.kind) {
    case 'scan': {
      const through = node.covering
        ? `the covering index ${node.index}, never touching the table itself`
        : `the index ${node.index}, in index order`;
      return [
        node.index
          ? `SCAN reads every entry of ${table} (${rows}) through ${through}.`
          : `SCAN reads every row of ${table} (${rows}), start to end.`,
        `It runs ${times(node.loops)} (once per row of the loops around it): ${visits}.` +
          ' Rule cost +100: a full pass grows with the table.',
      ];
    }
    case 'search':
      if (node.automatic) {
        return [
          `AUTOMATIC INDEX: no index serves ${node.constraint ? `(${node.constraint})` : 'this lookup'},` +
            ` so SQLite builds a temporary index on ${table} at run time (one pass over ${rows}) and then searches it.`,
          `${perLookup}, the build included. A real index on these columns would save the build on every run.`,
        ];
      }
      return [
        node.constraint
          ? `SEARCH looks rows of ${table} up through ${node.index ? indexText(node) : 'an index'} instead of reading all ${rows}.`
          : `SEARCH ${table} without a constraint: the min/max optimisation, one step to the first or last entry of an index.`,
        `${perLookup}. Rule cost 0: a lookup grows with the log of the table.`,
      ];
    case 'temp-btree':
      return [
        `USE TEMP B-TREE FOR ${node.purpose ?? ''}: no index yields the rows in the order (or uniqueness) needed,` +
          ' so SQLite sorts or de-duplicates them in a temporary B-tree.',
        `n·log n work over the rows that reach it: ${visits}. Rule cost +50.` +
          ` An index on the ${String(node.purpose ?? '').toLowerCase()} columns can remove it.`,
      ];
    case 'subquery':
      return node.correlated
        ? [
            `CORRELATED ${node.subqueryType ?? ''} SUBQUERY: it refers to the outer query,` +
              ` so it runs again for every outer row: ${times(node.loops)}.`,
            `Its steps times that: ${visits} in all. A join, or an IN over a non-correlated subquery, often does the same work once.`,
          ]
        : [`${node.subqueryType ?? ''} SUBQUERY: independent of the outer query, so it runs once and its result is reused.`, `${visits}.`];
    case 'co-routine':
      return [
        `CO-ROUTINE ${node.subquery ?? ''}: the subquery hands its rows over one at a time as the outer query asks for them,` +
          ' without a temporary table.',
        `Its steps: ${visits}. The outer pass over its rows (SCAN ${node.subquery ?? ''}) costs another +100 by the rule.`,
      ];
    case 'materialize':
      return [
        `MATERIALIZE ${node.subquery ?? ''}: the subquery or CTE is computed once into a temporary table,` +
          ' which the outer query then reads.',
        `Computing it: ${visits}; reading it back is a SCAN of about ${compact(node.rowsOut)} rows.`,
      ];
    case 'scan-subquery':
      return [
        `SCAN of subquery ${node.subquery ?? ''}'s result: every row it produced, read in turn.`,
        `About ${compact(node.rowsOut)} rows, ${times(node.loops)}: ${visits}. Rule cost +100.`,
      ];
    case 'constant-row':
      return ['SCAN CONSTANT ROW: a SELECT without FROM yields one row; no table is read.', `${visits}.`];
    case 'compound': {
      const duplicates = node.purpose ? '; a temp B-tree removes duplicates (rule cost +50)' : '';
      return [`${node.operator ?? 'COMPOUND QUERY'}: the parts of a UNION / EXCEPT / INTERSECT, run in turn${duplicates}.`, `${visits}.`];
    }
    case 'bloom-filter':
      return [
        `BLOOM FILTER on ${table}: a compact membership test checked before each lookup;` +
          ' rows that cannot match are skipped without touching the table.',
        `${visits}.`,
      ];
    case 'multi-index-or':
      return [
        'MULTI-INDEX OR: each OR term is searched through its own index and the row ids are merged, instead of one full SCAN.',
        `${visits}.`,
      ];
    case 'in-operator':
      return ['How the list on the right of IN (...) is searched for each value on the left.', `${visits}.`];
    case 'recursive':
      return [
        `${node.operator ?? 'RECURSIVE'}: a part of a recursive CTE (its setup, or the step repeated until it yields no new rows).`,
        `${visits}.`,
      ];
    case 'right-join':
      return [`RIGHT-JOIN ${table}: a last pass that emits the rows of the right side that matched nothing.`, `${visits}.`];
    default:
      return [`A step this version of VES Lens does not recognise; SQLite says: ${node.detail}.`, `${visits}.`];
  }
}

/** What each of PostgreSQL's operators does, in a sentence (the tooltip's first line). */
const PLANNED_OPERATOR: Record<string, string> = {
  'Seq Scan': 'reads every row of the table, start to end, keeping those that pass its filter',
  'Index Scan': 'looks rows up through an index and then reads each from the table',
  'Index Only Scan': 'answers from the index alone, without reading the table (where the visibility map allows)',
  'Bitmap Index Scan': 'collects the locations of matching rows from an index, for the Bitmap Heap Scan above it',
  'Bitmap Heap Scan': 'reads the table pages an index bitmap points to, in page order, and rechecks each row',
  'Nested Loop': 'runs its inner input once for every row of its outer input',
  'Hash Join': 'builds a hash table of its inner input, then probes it with each row of its outer input',
  'Merge Join': 'walks two inputs sorted on the join key side by side',
  Hash: 'builds the in-memory hash table its Hash Join probes',
  Sort: 'sorts all its input before yielding the first row',
  'Incremental Sort': 'sorts its input in groups that arrive already sorted on a prefix of the key',
  Aggregate: 'computes aggregates over all its input, yielding one row',
  GroupAggregate: 'computes aggregates over input sorted by the group key, one group at a time',
  HashAggregate: 'groups its input in a hash table, then yields one row per group',
  MixedAggregate: 'computes several grouping sets, some sorted and some hashed',
  Materialize: 'keeps its input in memory so that a re-scan (a Nested Loop inner side) does not recompute it',
  Memoize: 'caches the inner side of a Nested Loop by its parameters',
  Limit: 'stops its input after the rows asked for',
  Unique: 'drops adjacent duplicate rows of a sorted input',
  'Subquery Scan': "reads a subquery's result",
  'CTE Scan': "reads a WITH query's result",
  Result: 'computes expressions without reading a table (or filters by a condition known once)',
  Append: 'yields the rows of each input in turn (UNION ALL, partitions)',
  SetOp: 'computes INTERSECT or EXCEPT over its sorted or hashed inputs',
  Gather: 'collects the rows of parallel workers',
  'Gather Merge': "collects parallel workers' sorted rows, keeping the order",
  WindowAgg: 'computes window functions over its sorted input',
};

/** A PostgreSQL step's subject: its table (and alias), else its join, sort or group key. */
export function plannedSubject(node: PlanNodeView): string {
  if (node.table) return subjectText(node);
  if (node.constraint && !node.index) return node.constraint;
  return node.subquery ? `subquery ${node.subquery}` : '';
}

/** What EXPLAIN ANALYZE measured of a step, in words. */
export function measuredText(m: NonNullable<PlanNodeView['measured']>): string {
  if (m.loops === 0) return 'never executed';
  const loops = m.loops > 1 ? ` × ${compact(m.loops)} loops` : '';
  return `actual ${compactCounted(m.rows, 'row')}${loops} · ${milliseconds(m.totalMs)} ms (self ${milliseconds(m.selfMs)} ms)`;
}

/** A step of PostgreSQL's plan: what the operator does, what the planner estimated, and what ANALYZE measured. */
export function explainPlannedStep(node: PlanNodeView, planCost: number): string[] {
  if (node.kind === 'subquery') {
    const runs = node.correlated
      ? `a SubPlan: it refers to the outer query, so PostgreSQL runs it again for every row of the step that uses it${node.measured ? ` (${compact(node.measured.loops)} times)` : ''}`
      : 'an InitPlan: it does not depend on the outer query, so it runs once and its result is reused';
    return [
      `${operatorName(node)}: ${runs}.`,
      `Its cost (${fixed(node.work)}) is one run's; the planner charges its runs to the step that evaluates it, which is where they show as cost of its own.`,
    ];
  }
  const what = PLANNED_OPERATOR[node.nodeType ?? ''] ?? "a step of PostgreSQL's plan";
  const lines = [`${node.nodeType ?? operatorName(node)}: ${what}.`];
  const share = Math.round((100 * node.selfWork) / Math.max(planCost, 1e-9));
  lines.push(
    `The planner estimated ~${compactCounted(node.estimatedRows ?? node.rowsOut, 'row')} per loop and a cost of ${fixed(node.totalCost ?? node.work)} with its inputs, ` +
      `${fixed(node.selfWork)} of its own (${share} % of the plan). Costs are the planner's units, not milliseconds.`,
  );
  if (node.filter)
    lines.push(
      `Filter ${node.filter}${node.rowsRemovedByFilter ? `: ${compactCounted(node.rowsRemovedByFilter, 'row')} read and removed` : ''}.`,
    );
  const m = node.measured;
  if (m) {
    lines.push(`Measured: ${measuredText(m)}.`);
    if (m.misestimated)
      lines.push(
        `The planner ${m.direction === 'under' ? 'under' : 'over'}estimated its rows ${fixed(m.misestimate, 1)}×: plans chosen on such estimates (join order and method) are often the wrong ones; ANALYZE the tables, or look at the condition.`,
      );
  }
  return lines;
}
