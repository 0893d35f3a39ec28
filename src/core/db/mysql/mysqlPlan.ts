import { MeasuredPlanTree, PlanNode, PlanNodeKind } from '../planTree';

/**
 * MySQL's and MariaDB's EXPLAIN FORMAT=JSON (and MariaDB's ANALYZE FORMAT=JSON) mapped onto planTree.ts's
 * steps: a table read with access type ALL or index is a `scan`, one through a key (const, eq_ref, ref, range,
 * index_merge, ...) a `search`; filesort, temporary tables and duplicate removal are `temp-btree`; subqueries,
 * materialized derived tables and unions keep their own kinds. Every step keeps the server's words in
 * nodeType and detail; the estimates are `rows` (and MySQL's cost_info), the measurements MariaDB's r_rows,
 * r_loops and r_total_time_ms.
 */

type Json = Record<string, unknown>;

const SEARCH_ACCESS = new Set([
  'system',
  'const',
  'eq_ref',
  'ref',
  'fulltext',
  'ref_or_null',
  'index_merge',
  'unique_subquery',
  'index_subquery',
  'range',
]);

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined =>
  value === undefined || value === null || Number.isNaN(Number(value)) ? undefined : Number(value);

class Builder {
  nodes: PlanNode[] = [];
  private nextId = 1;

  add(parent: PlanNode | undefined, kind: PlanNodeKind, detail: string, extra: Partial<PlanNode> = {}): PlanNode {
    const node: PlanNode = { id: this.nextId++, parent: parent?.id ?? 0, detail, kind, children: [], ...extra };
    (parent ? parent.children : this.nodes).push(node);
    return node;
  }

  /** A query_block (or any object holding one's parts), its steps under `parent`. */
  block(value: unknown, parent: PlanNode | undefined): void {
    if (Array.isArray(value)) {
      for (const item of value) this.block(item, parent);
      return;
    }
    if (!isObject(value)) return;
    if (value.message !== undefined && value.table === undefined && Object.keys(value).length <= 2)
      this.add(parent, value.message === 'No tables used' ? 'constant-row' : 'unknown', String(value.message), { nodeType: 'message' });
    for (const [key, part] of Object.entries(value)) {
      switch (key) {
        case 'query_block':
        case 'nested_loop':
        case 'query_specifications':
        case 'block-nl-join':
        case 'bka-join':
        case 'range-checked-for-each-record': // MariaDB: the table read again for each outer row, its key chosen then
          this.block(part, parent);
          break;
        case 'table':
          this.table(part as Json, parent);
          break;
        case 'filesort':
        case 'ordering_operation':
        case 'grouping_operation':
        case 'duplicates_removal':
        case 'temporary_table':
        case 'read_sorted_file': {
          const info = isObject(part) ? part : {};
          const purpose =
            key === 'filesort' || key === 'ordering_operation'
              ? 'ORDER BY'
              : key === 'grouping_operation'
                ? 'GROUP BY'
                : key === 'duplicates_removal'
                  ? 'DISTINCT'
                  : key === 'read_sorted_file'
                    ? 'ORDER BY'
                    : 'TEMP TABLE';
          const sorts = key !== 'temporary_table' || info.using_filesort === true || info.filesort !== undefined;
          const node =
            key === 'read_sorted_file' ||
            (!sorts && key !== 'temporary_table') ||
            (key === 'ordering_operation' && info.using_filesort === false)
              ? parent
              : this.add(parent, 'temp-btree', `USE TEMP B-TREE FOR ${purpose} (${key}${info.sort_key ? ` ${info.sort_key}` : ''})`, {
                  nodeType: key,
                  purpose,
                  ...this.measured(info),
                });
          this.block(info, node);
          break;
        }
        case 'subqueries':
          for (const sub of Array.isArray(part) ? part : [part]) {
            if (!isObject(sub)) continue;
            const dependent = sub.dependent === true || (isObject(sub.query_block) && (sub.query_block as Json).cacheable === false);
            const node = this.add(parent, 'subquery', `${dependent ? 'CORRELATED ' : ''}SUBQUERY`, {
              nodeType: 'subquery',
              correlated: dependent,
              subqueryType: 'SCALAR',
            });
            this.block(sub, node);
          }
          break;
        case 'union_result': {
          const info = isObject(part) ? part : {};
          const node = this.add(parent, 'compound', `COMPOUND QUERY (${String(info.table_name ?? 'union')})`, {
            nodeType: 'union_result',
            operator: 'UNION',
          });
          this.block(info, node);
          break;
        }
        case 'materialized':
        case 'materialized_from_subquery': {
          const node = this.add(parent, 'materialize', 'MATERIALIZE', { nodeType: key });
          this.block(part, node);
          break;
        }
        default:
          break;
      }
    }
  }

  private measured(info: Json): Partial<PlanNode> {
    return {
      ...(num(info.r_rows) !== undefined ? { actualRows: num(info.r_rows) } : {}),
      ...(num(info.r_loops) !== undefined ? { actualLoops: num(info.r_loops) } : {}),
      ...(num(info.r_total_time_ms) !== undefined ? { actualTotalMs: num(info.r_total_time_ms) } : {}),
    };
  }

  private table(info: Json, parent: PlanNode | undefined): void {
    const access = String(info.access_type ?? '');
    const name = String(info.table_name ?? '?');
    const key = info.key === undefined ? undefined : String(info.key);
    const covering = info.using_index === true;
    const kind: PlanNodeKind = SEARCH_ACCESS.has(access) ? 'search' : /^<(derived|subquery|union)/.test(name) ? 'scan-subquery' : 'scan';
    const usedKeyParts = Array.isArray(info.used_key_parts) ? (info.used_key_parts as unknown[]).map(String) : [];
    const constraint = kind === 'search' && usedKeyParts.length ? usedKeyParts.map((part) => `${part}=?`).join(' AND ') : undefined;
    const cost = isObject(info.cost_info)
      ? num((info.cost_info as Json).prefix_cost ?? (info.cost_info as Json).read_cost)
      : num(info.cost);
    const detail =
      kind === 'search'
        ? `SEARCH ${name} USING ${covering ? 'COVERING ' : ''}INDEX ${key ?? '?'}${constraint ? ` (${constraint})` : ''} (${access})`
        : `SCAN ${name}${key ? ` USING ${covering ? 'COVERING ' : ''}INDEX ${key}` : ''} (${access || 'ALL'})`;
    const node = this.add(parent, kind, detail, {
      table: name,
      nodeType: access || 'ALL',
      ...(key ? { index: key === 'PRIMARY' ? 'PRIMARY KEY' : key } : {}),
      ...(covering ? { covering } : {}),
      ...(constraint ? { constraint } : {}),
      ...(num(info.rows) !== undefined ? { estimatedRows: num(info.rows) } : {}),
      ...(num(info.rows_examined_per_scan) !== undefined ? { estimatedRows: num(info.rows_examined_per_scan) } : {}),
      ...(cost !== undefined ? { totalCost: cost } : {}),
      ...(info.attached_condition !== undefined ? { filter: String(info.attached_condition) } : {}),
      ...this.measured(info),
    });
    for (const part of ['materialized', 'materialized_from_subquery', 'subqueries'])
      if (info[part] !== undefined) this.block({ [part]: info[part] }, node);
  }
}

/** The plan steps of an EXPLAIN FORMAT=JSON document. */
export function planTreeOfMysqlJson(document: unknown): PlanNode[] {
  const builder = new Builder();
  builder.block(document, undefined);
  return builder.nodes;
}

/** The measured plan of MariaDB's ANALYZE FORMAT=JSON: the steps with r_rows, r_loops and times, and the whole query's time. */
export function measuredPlanOfMysqlJson(document: unknown): MeasuredPlanTree {
  const block = isObject(document) && isObject(document.query_block) ? (document.query_block as Json) : {};
  return { nodes: planTreeOfMysqlJson(document), executionMs: num(block.r_total_time_ms) };
}
