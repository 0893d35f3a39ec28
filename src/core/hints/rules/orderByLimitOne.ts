import { ColumnInfo, TableInfo } from '../../db/schema';
import { findClauses } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { fromClauseEnd, fromItems } from '../../sql/scope';
import { columnRefAt, neverNull, resolveColumn } from '../columnReferences';
import { tokenRange } from '../edits';
import { HintRule, StatementContext } from '../types';

/** True when no two rows of the table share a value of the column: the rowid alias, or a one-column primary key or unique index. */
function uniqueColumn(table: TableInfo, column: ColumnInfo): boolean {
  const name = column.name.toLowerCase();
  if (table.rowidColumn?.toLowerCase() === name) return true;
  const key = table.columns.filter((c) => c.primaryKey);
  if (key.length === 1 && key[0].name.toLowerCase() === name) return true;
  return table.indexes.some(
    (index) => index.unique && !index.partial && index.columns.length === 1 && index.columns[0].toLowerCase() === name,
  );
}

/**
 * True when `ORDER BY <term> LIMIT 1` can have no ties, so that the MIN/MAX form returns the same one row: the
 * statement reads one table (a join repeats a unique value) and the term is one of its unique, never-NULL
 * columns (MIN skips the NULL that `ASC` would put first).
 */
function tiesImpossible(context: StatementContext, from: number, termStart: number, termEnd: number): boolean {
  const { tokens, text } = context;
  if (fromItems(tokens, from, fromClauseEnd(tokens, from)).length !== 1) return false;
  const ref = columnRefAt(tokens, termStart, text);
  if (!ref || ref.last !== termEnd) return false;
  const resolved = resolveColumn(context, ref);
  return !!resolved && uniqueColumn(resolved.table, resolved.column) && neverNull(resolved.table, resolved.column);
}

/**
 * VL003: `ORDER BY x DESC LIMIT 1` sorts (or top-1 scans) the whole filtered set; `x = (SELECT MAX(x) ...)`
 * is two index probes when x is indexed. Fires on a plain SELECT (no GROUP BY, DISTINCT or compound) of one
 * table ordered by a unique, never-NULL column only: with ties the two forms return different rows (14 of its
 * 38 fires on the shared data did), and without an index the MAX form is two scans instead of one (slower 9
 * times). Rarely faster even then, so it is a note (issue 34).
 */
export const orderByLimitOne: HintRule = {
  id: 'VL003',
  title: 'ORDER BY ... LIMIT 1 instead of MAX / MIN',
  kind: 'speed',
  note: true,
  check(context) {
    const { tokens, text } = context;
    const c = findClauses(tokens);
    if (!c || c.withClause || c.compound || c.from === undefined || c.orderBy === undefined || c.limit === undefined) return [];
    if (c.distinct !== undefined || c.groupBy !== undefined || c.having !== undefined || c.limit < c.orderBy) return [];
    // LIMIT 1, nothing after it (no OFFSET).
    if (tokens[c.limit + 1]?.text !== '1' || c.limit + 2 !== tokens.length) return [];
    // One ORDER BY term: an expression, optionally ASC / DESC.
    let termEnd = c.limit - 1;
    let descending = false;
    if (wordIs(tokens[termEnd], 'DESC', 'ASC')) {
      descending = wordIs(tokens[termEnd], 'DESC');
      termEnd--;
    }
    const termStart = c.orderBy + 2;
    if (termEnd < termStart) return [];
    let depth = 0;
    for (let i = termStart; i <= termEnd; i++) {
      if (tokens[i].text === '(') depth++;
      if (tokens[i].text === ')') depth--;
      if (depth === 0 && (tokens[i].text === ',' || wordIs(tokens[i], 'NULLS', 'COLLATE'))) return [];
    }
    const term = text.slice(tokens[termStart].start, tokens[termEnd].end);
    if (/^\d+$/.test(term)) return []; // ORDER BY 2: a column position, not an expression
    if (!tiesImpossible(context, c.from, termStart, termEnd)) return [];
    const aggregate = descending ? 'MAX' : 'MIN';
    const head = text.slice(tokens[c.select].start, tokens[c.from].start).trimEnd();
    const fromClause = text.slice(tokens[c.from].start, tokens[(c.where ?? c.orderBy) - 1].end);
    const whereBody = c.where !== undefined ? text.slice(tokens[c.where + 1].start, tokens[c.orderBy - 1].end) : undefined;
    const subquery = `(SELECT ${aggregate}(${term}) ${fromClause}${whereBody ? ` WHERE ${whereBody}` : ''})`;
    const statement = `${head} ${fromClause} WHERE ${whereBody ? `(${whereBody}) AND ` : ''}${term} = ${subquery}`;
    return [
      {
        message: `ORDER BY ${term}${descending ? ' DESC' : ''} LIMIT 1 ranks every matching row to keep one; ${term} = (SELECT ${aggregate}(${term}) ...) can be answered from an index on ${term} in two lookups, though SQLite often walks that index for LIMIT 1 already: measure it.`,
        range: tokenRange(tokens, c.orderBy, c.limit + 1),
        caveat: `${term} is unique and never NULL here, so both forms return the same row; without an index on ${term} the MAX/MIN form reads the table twice.`,
        rewrite: { range: { start: 0, end: text.length }, text: statement, statement },
      },
    ];
  },
};
