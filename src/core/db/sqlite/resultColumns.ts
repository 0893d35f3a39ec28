import type { ColumnNames } from '../engine';
import type { SqlValue } from '../database';

/**
 * The names SQLite gives a query's result columns (`sqlite3_column_name`, what Python's
 * `cursor.description` holds), in order, repeated names kept.
 *
 * node-sqlite3 hands names over only as the keys of row objects, which lose repeated names and put
 * numeric names first, and not at all for an empty result. So the names are read as data instead: the query
 * becomes a TEMP view on a connection of its own (the file opened read-only; a temp view lives in memory and
 * never touches the file, and nothing runs) and `pragma_table_info` lists the view's columns by position. SQLite
 * names a view's columns as it names a result's, with three exceptions (sqlite3ColumnsFromExprList against
 * sqlite3GenerateColumnNames in SQLite's select.c):
 *  1. a repeated name (compared case-insensitively) gets a suffix `:N` in the view;
 *  2. a column named `true` or `false` is `columnN` in the view;
 *  3. a column reference wrapped in COLLATE or likely()/unlikely()/likelihood() keeps the column's name in the
 *     view, where the result uses the expression's text.
 * Where one of these may apply and the result has a row, the query's first row is read as an object and its
 * keys (the true names, each once) settle every position; suffixes are otherwise undone where the base name
 * repeats an earlier one. What remains unsure (an empty result whose SQL has COLLATE or a column named
 * like `x:1`) is said in a note.
 */

const VIEW = '"__ves_lens_columns"';

/** What the names are read through: a SqliteConnection of its own to the file (declared here, not imported: no import circle). */
export interface NamingConnection {
  all(sql: string): Promise<Record<string, SqlValue>[]>;
  firstRecord(body: string, limits?: { deadline?: number }): Promise<Record<string, SqlValue> | undefined>;
}

const UNIQUIFIED = /^(.*):\d+$/s;
const MAYBE_TRUE_FALSE = /^column\d+$/;
const WRAPPED_COLUMN = /\b(collate|likely|unlikely|likelihood)\b/i;

/** Undoes the view's `:N` suffixes where the name without it repeats an earlier name (case-insensitively). */
function undoSuffixes(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    const base = UNIQUIFIED.exec(name)?.[1];
    const result = base !== undefined && seen.has(base.toLowerCase()) ? base : name;
    seen.add(result.toLowerCase());
    return result;
  });
}

/** The view's names corrected with the first row's keys (the result's true names, each once). */
function settleWithKeys(viewNames: readonly string[], keys: readonly string[]): { names: string[]; unsure: boolean } {
  const known = new Set(keys);
  const names: (string | undefined)[] = viewNames.map((name) => {
    if (known.has(name)) return name;
    const base = UNIQUIFIED.exec(name)?.[1];
    return base !== undefined && known.has(base) ? base : undefined;
  });
  const used = new Set(names.filter((n): n is string => n !== undefined));
  const rest = keys.filter((k) => !used.has(k));
  const unknown = names.flatMap((n, i) => (n === undefined ? [i] : []));
  // Positions the view names differently (true/false, COLLATE, likely()) take the remaining keys in order.
  unknown.forEach((position, k) => (names[position] = rest[Math.min(k, rest.length - 1)] ?? viewNames[position]));
  return { names: names as string[], unsure: unknown.length !== rest.length };
}

/**
 * The result column names of `body` (one SELECT, already checked runnable), read on `naming`: a connection
 * of its own to the same file, without query_only (the TEMP view needs it). `hasRows` says whether the result
 * has a row to read the true names from; `deadline` (performance.now()) bounds that read.
 */
export async function sqliteResultColumns(
  naming: NamingConnection,
  body: string,
  options: { hasRows: boolean; deadline?: number },
): Promise<ColumnNames> {
  await naming.all(`CREATE TEMP VIEW ${VIEW} AS\n${body}\n`);
  const columns = await naming.all(`SELECT name FROM pragma_table_info('__ves_lens_columns', 'temp') ORDER BY cid`);
  const viewNames = columns.map((r) => String(r.name));
  await naming.all(`DROP VIEW temp.${VIEW}`);
  const ambiguous = viewNames.some((n) => UNIQUIFIED.test(n) || MAYBE_TRUE_FALSE.test(n)) || WRAPPED_COLUMN.test(body);
  if (!ambiguous) return { names: viewNames };
  if (options.hasRows) {
    try {
      const row = await naming.firstRecord(body, { deadline: options.deadline });
      if (row) {
        const settled = settleWithKeys(viewNames, Object.keys(row));
        const note = `result column names partly inferred (${JSON.stringify(settled.names)})`;
        return settled.unsure ? { names: settled.names, note } : { names: settled.names };
      }
    } catch {
      // Fall through to the view's names.
    }
  }
  const names = undoSuffixes(viewNames);
  return { names, note: `result column names inferred without a row to read them from (${JSON.stringify(names)})` };
}
