// A plan step in words: its operator, its subject, its index, and what it does and why it costs what it costs
// (from its own numbers). The plan cards (planTree.ts) show them; the tooltip says the explanation.
import type { PlanNodeKind } from '../../core/db/planTree';
import type { PlanNodeView } from '../../shared/protocol';
import { compact, compactCounted } from '../common/format';

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
