import { identifierName } from '../../sql/lexer';
import { SqlValue } from '../database';
import { PlanNode } from '../planTree';

/**
 * SQLite's EXPLAIN QUERY PLAN rows → the typed plan tree. Recognises the detail strings of SQLite 3.7 to 3.46
 * (`SCAN TABLE t AS a` before 3.24, `SCAN a` after; `EXECUTE ... SUBQUERY` before 3.24; MATERIALIZE /
 * CO-ROUTINE by number or by name). A line it does not know is kept as `unknown`, never dropped.
 */

export interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

type Fields = Omit<PlanNode, 'id' | 'parent' | 'detail' | 'children'>;

/** `t`, `t AS a`, `TABLE t`, `TABLE t AS a`: the subject of SCAN / SEARCH in every version. */
const SUBJECT = String.raw`(?:TABLE\s+)?("[^"]+"|\S+)(?:\s+AS\s+("[^"]+"|\S+))?`;
/** `(subquery-2)` (3.36+) and `2` (older) both name subquery 2; CTE names stay as they are. */
const subqueryName = (name: string) => /^\(subquery-(\d+)\)$/i.exec(name.trim())?.[1] ?? identifierName(name.trim());

/** How a SCAN or SEARCH reads its rows, from what follows the subject. */
function accessPath(rest: string): Fields {
  const fields: Fields = { kind: 'scan' };
  const using = /^USING\s+(AUTOMATIC\s+)?(PARTIAL\s+)?(COVERING\s+)?INDEX\s*(\S*)\s*(?:\((.*)\))?/i.exec(rest);
  if (using) {
    fields.automatic = Boolean(using[1]);
    fields.partial = Boolean(using[2]);
    fields.covering = Boolean(using[3]);
    fields.index = fields.automatic ? 'AUTOMATIC' : using[4] && !using[4].startsWith('(') ? identifierName(using[4]) : undefined;
    const constraint = using[5] ?? /\((.*)\)/.exec(rest)?.[1];
    if (constraint) fields.constraint = constraint;
    return fields;
  }
  const primary = /^USING\s+(INTEGER\s+PRIMARY\s+KEY|PRIMARY\s+KEY)\s*(?:\((.*)\))?/i.exec(rest);
  if (primary) {
    fields.index = primary[1].toUpperCase().replace(/\s+/g, ' ');
    fields.covering = false;
    if (primary[2]) fields.constraint = primary[2];
  }
  return fields;
}

/** The fields one detail string carries. */
export function parseDetail(detail: string): Fields {
  const text = detail.trim();
  let m: RegExpExecArray | null;

  if (/^SCAN CONSTANT ROW$/i.test(text)) return { kind: 'constant-row' };
  // Subquery / CTE scans: `SCAN (subquery-1)`, `SCAN SUBQUERY 1 AS x` (old), `SCAN x` for a CTE is a plain scan.
  if ((m = /^SCAN\s+\(subquery-(\d+)\)(?:\s+AS\s+(\S+))?/i.exec(text))) return { kind: 'scan-subquery', subquery: m[1], alias: m[2] };
  if ((m = /^SCAN\s+SUBQUERY\s+(\d+)(?:\s+AS\s+(\S+))?/i.exec(text))) return { kind: 'scan-subquery', subquery: m[1], alias: m[2] };
  if ((m = new RegExp(`^(SCAN|SEARCH)\\s+${SUBJECT}\\s*(.*)$`, 'i').exec(text))) {
    const fields = accessPath(m[4].replace(/\s*(LEFT-JOIN|RIGHT-JOIN)$/i, ''));
    fields.kind = m[1].toUpperCase() === 'SEARCH' ? 'search' : 'scan';
    fields.table = identifierName(m[2]);
    if (m[3]) fields.alias = identifierName(m[3]);
    // Virtual tables: `SCAN t VIRTUAL TABLE INDEX 0:`
    if (/VIRTUAL TABLE/i.test(m[4])) fields.index = m[4].trim();
    return fields;
  }
  if ((m = /^USE TEMP B-TREE FOR (.+)$/i.exec(text))) return { kind: 'temp-btree', purpose: m[1].toUpperCase() };
  // `CORRELATED SCALAR SUBQUERY 2`, `LIST SUBQUERY 1`, old `EXECUTE CORRELATED LIST SUBQUERY 1`.
  if ((m = /^(?:EXECUTE\s+)?(CORRELATED\s+)?(SCALAR|LIST)\s+SUBQUERY(?:\s+(\S+))?/i.exec(text))) {
    return { kind: 'subquery', correlated: Boolean(m[1]), subqueryType: m[2].toUpperCase() as 'SCALAR' | 'LIST', subquery: m[3] };
  }
  if ((m = /^MATERIALIZE\s+(.+)$/i.exec(text))) return { kind: 'materialize', subquery: subqueryName(m[1]) };
  if ((m = /^CO-ROUTINE\s+(.+)$/i.exec(text))) return { kind: 'co-routine', subquery: subqueryName(m[1]) };
  if ((m = /^RIGHT-JOIN\s+(\S+)$/i.exec(text))) return { kind: 'right-join', table: identifierName(m[1]) };
  if ((m = /^BLOOM FILTER ON\s+(\S+)(?:\s*\((.*)\))?/i.exec(text)))
    return { kind: 'bloom-filter', table: identifierName(m[1]), constraint: m[2] };
  if (/^MULTI-INDEX OR$/i.test(text)) return { kind: 'multi-index-or' };
  if ((m = /^INDEX (\d+)$/i.exec(text))) return { kind: 'multi-index-or', operator: `INDEX ${m[1]}` };
  if (/^COMPOUND QUERY$/i.test(text)) return { kind: 'compound' };
  if (/^LEFT-MOST SUBQUERY$/i.test(text)) return { kind: 'compound', operator: 'LEFT-MOST' };
  if ((m = /^(UNION ALL|UNION|EXCEPT|INTERSECT)(?:\s+USING TEMP B-TREE)?$/i.exec(text))) {
    return { kind: 'compound', operator: m[1].toUpperCase(), purpose: /TEMP B-TREE/i.test(text) ? m[1].toUpperCase() : undefined };
  }
  if ((m = /^MERGE \((.+)\)$/i.exec(text))) return { kind: 'compound', operator: `MERGE ${m[1].toUpperCase()}` };
  if (/^(LEFT|RIGHT)$/i.test(text)) return { kind: 'compound', operator: text.toUpperCase() };
  // Old single-line compound form: `COMPOUND SUBQUERIES 1 AND 2 USING TEMP B-TREE (UNION)`.
  if ((m = /^COMPOUND SUBQUERIES (\d+) AND (\d+)(?: USING TEMP B-TREE)?(?: \((.+)\))?/i.exec(text))) {
    return { kind: 'compound', operator: (m[3] ?? 'UNION ALL').toUpperCase(), purpose: /TEMP B-TREE/i.test(text) ? 'COMPOUND' : undefined };
  }
  if ((m = /^USING (?:ROWID SEARCH ON TABLE (\S+)|INDEX (\S+)|TEMP B-TREE) FOR IN-OPERATOR$/i.exec(text))) {
    return { kind: 'in-operator', table: m[1], index: m[2] };
  }
  if (/^(SETUP|RECURSIVE STEP)$/i.test(text)) return { kind: 'recursive', operator: text.toUpperCase() };
  return { kind: 'unknown' };
}

/** Builds the tree from EXPLAIN QUERY PLAN rows (id, parent, detail), keeping SQLite's order. */
export function buildPlanTree(rows: readonly PlanRow[]): PlanNode[] {
  const nodes = new Map<number, PlanNode>();
  const roots: PlanNode[] = [];
  for (const row of rows) {
    const node: PlanNode = { id: row.id, parent: row.parent, detail: row.detail, ...parseDetail(row.detail), children: [] };
    nodes.set(row.id, node);
    const parent = nodes.get(row.parent);
    if (parent && row.parent !== row.id) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** The tree of `EXPLAIN QUERY PLAN` as a connection returns it (rows with id, parent and detail). */
export function planTreeOfRecords(records: readonly Record<string, SqlValue>[]): PlanNode[] {
  return buildPlanTree(records.map((r) => ({ id: Number(r.id), parent: Number(r.parent), detail: String(r.detail) })));
}

/**
 * Reads the text form the sqlite3 shell prints (`QUERY PLAN`, then `|--`, `` `-- `` and `|  ` indentation),
 * as people paste it; used by fixtures and by anyone holding a plan without the database.
 */
export function parsePlanText(text: string): PlanRow[] {
  const rows: PlanRow[] = [];
  const parentAtDepth: number[] = [0];
  for (const line of text.split('\n')) {
    // Each level of nesting is a 3-character column ("|  " or "   ") before the "|--" or "`--" branch.
    const m = /^((?:\| {2}| {3})*)(?:\|--|`--)(.*)$/.exec(line.replace(/\s+$/, ''));
    if (!m) continue; // "QUERY PLAN" header, blank lines
    const depth = m[1].length / 3;
    const id = rows.length + 1;
    rows.push({ id, parent: parentAtDepth[depth] ?? 0, detail: m[2].trim() });
    parentAtDepth.length = depth + 1;
    parentAtDepth[depth + 1] = id;
  }
  return rows;
}
