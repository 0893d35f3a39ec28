import { quoteIdentifier, TableInfo } from '../../db/schema';

/** One way to change the work copy: statements that run in one transaction, and how a person would say it. */
export interface Variation {
  how: string;
  /** The tables it changes (restored from the original after it is tried). */
  tables: string[];
  statements: string[];
}

/** Deterministic "random" halves of a table, so a witness's `how` can be re-made from its words. */
const SEEDS = [1, 2, 3];
const scatter = (seed: number) => `((rowid * 2654435761 + ${seed * 7919}) % 1000) < 500`;

/** Columns whose value is part of the primary key or a UNIQUE index (changing them may break a constraint). */
function keyColumns(table: TableInfo): Set<string> {
  const keys = new Set<string>();
  for (const c of table.columns) if (c.primaryKey) keys.add(c.name.toLowerCase());
  for (const index of table.indexes) if (index.unique) for (const c of index.columns) keys.add(c.toLowerCase());
  return keys;
}

/**
 * A copy of every row with new key values (so PRIMARY KEY and UNIQUE still hold): a rowid alias takes the
 * next rowid, a text key gets a suffix, a numeric key is shifted past the largest one. Rows whose new key
 * would still collide are left out (INSERT OR IGNORE).
 */
function duplicateRows(table: TableInfo): string {
  const t = quoteIdentifier(table.name);
  const keys = keyColumns(table);
  const rowidAlias = table.rowidColumn?.toLowerCase();
  const columns = table.columns.filter((c) => c.name.toLowerCase() !== rowidAlias);
  const values = columns.map((c) => {
    const q = quoteIdentifier(c.name);
    if (!keys.has(c.name.toLowerCase())) return q;
    return `CASE WHEN typeof(${q}) IN ('integer', 'real') THEN ${q} + (SELECT max(${q}) FROM ${t}) + 1 WHEN ${q} IS NULL THEN NULL ELSE ${q} || '~2' END`;
  });
  const names = columns.map((c) => quoteIdentifier(c.name)).join(', ');
  return `INSERT OR IGNORE INTO ${t} (${names}) SELECT ${values.join(', ')} FROM ${t}`;
}

/**
 * The variations of the database to try, most telling first: whole tables emptied, halves dropped, rows
 * duplicated (with new keys), then, for each column either query names, NULLs injected, ties made at the
 * extremes, values perturbed (numbers shifted or negated, text padded or re-cased) and rows of its most common
 * values dropped; last, halves of every table dropped together (dangling joins). UPDATE OR IGNORE keeps
 * PRIMARY KEY and UNIQUE; NOT NULL columns never get a NULL; a statement that breaks a CHECK fails the variation.
 */
export function variationsFor(tables: readonly TableInfo[], namedColumns: ReadonlySet<string>): Variation[] {
  const out: Variation[] = [];
  const one = (table: TableInfo, how: string, ...statements: string[]) => out.push({ how, tables: [table.name], statements });
  for (const table of tables) {
    const t = quoteIdentifier(table.name);
    one(table, `every row of ${table.name} dropped`, `DELETE FROM ${t}`);
    for (const seed of SEEDS)
      one(table, `about half the rows of ${table.name} dropped (pattern ${seed})`, `DELETE FROM ${t} WHERE ${scatter(seed)}`);
    one(table, `every row of ${table.name} duplicated with new keys`, duplicateRows(table));
  }
  for (const table of tables) {
    const t = quoteIdentifier(table.name);
    const keys = keyColumns(table);
    for (const column of table.columns) {
      if (!namedColumns.has(column.name.toLowerCase())) continue;
      const c = quoteIdentifier(column.name);
      const at = `${table.name}.${column.name}`;
      const isKey = keys.has(column.name.toLowerCase());
      if (!column.notNull && !column.primaryKey) {
        one(table, `NULL put into ${at} on about half the rows`, `UPDATE ${t} SET ${c} = NULL WHERE ${scatter(1)}`);
        one(table, `NULL put into ${at} on every row`, `UPDATE ${t} SET ${c} = NULL`);
      }
      for (const [end, order] of [
        ['highest', 'DESC'],
        ['lowest', 'ASC'],
      ]) {
        one(
          table,
          `a tie made at the ${end} ${at} (the next 2 rows given the same value)`,
          `UPDATE OR IGNORE ${t} SET ${c} = (SELECT ${c} FROM ${t} WHERE ${c} IS NOT NULL ORDER BY ${c} ${order} LIMIT 1) ` +
            `WHERE rowid IN (SELECT rowid FROM ${t} WHERE ${c} IS NOT NULL ORDER BY ${c} ${order} LIMIT 2 OFFSET 1)`,
        );
      }
      const numeric = `typeof(${c}) IN ('integer', 'real')`;
      const text = `typeof(${c}) = 'text'`;
      if (!isKey) {
        one(table, `${at} shifted by +1 on about half the rows`, `UPDATE ${t} SET ${c} = ${c} + 1 WHERE ${numeric} AND ${scatter(2)}`);
        one(table, `${at} negated`, `UPDATE ${t} SET ${c} = -${c} WHERE ${numeric}`);
        one(table, `${at} given a fraction (+0.5)`, `UPDATE ${t} SET ${c} = ${c} + 0.5 WHERE ${numeric}`);
        one(table, `${at} padded with a trailing space`, `UPDATE ${t} SET ${c} = ${c} || ' ' WHERE ${text}`);
        one(table, `${at} in upper case`, `UPDATE ${t} SET ${c} = upper(${c}) WHERE ${text}`);
        one(table, `${at} in lower case`, `UPDATE ${t} SET ${c} = lower(${c}) WHERE ${text}`);
        one(table, `${at} emptied ('') on about half the rows`, `UPDATE ${t} SET ${c} = '' WHERE ${text} AND ${scatter(3)}`);
      }
      const common = `SELECT ${c} FROM ${t} WHERE ${c} IS NOT NULL GROUP BY ${c} ORDER BY count(*) DESC LIMIT 1`;
      one(table, `the rows holding the most common ${at} dropped`, `DELETE FROM ${t} WHERE ${c} = (${common})`);
      one(table, `every row but those holding the most common ${at} dropped`, `DELETE FROM ${t} WHERE ${c} IS NOT (${common})`);
    }
  }
  if (tables.length > 1)
    for (const seed of SEEDS)
      out.push({
        how: `about half the rows of every table read dropped (pattern ${seed})`,
        tables: tables.map((table) => table.name),
        statements: tables.map((table) => `DELETE FROM ${quoteIdentifier(table.name)} WHERE ${scatter(seed)}`),
      });
  return out;
}
