import { SchemaInfo } from '../db/schema';
import { BirdKeys, ColumnRef } from './birdTables';

export interface ForeignKey {
  from: ColumnRef;
  to: ColumnRef;
}

/** Foreign keys the database declares (as its schema read them), one column pair each, with a known target column. */
export function declaredForeignKeys(schema: SchemaInfo): ForeignKey[] {
  return [...schema.tables.values()].flatMap((table) =>
    table.foreignKeys.flatMap((key) =>
      key.target === undefined ? [] : [{ from: { table: table.name, column: key.column }, to: { table: key.table, column: key.target } }],
    ),
  );
}

export interface KeyDomains {
  /**
   * Key columns grouped so that columns a join compares share one domain (a foreign key with the column it
   * references, following chains): every column of a domain is shifted alike in each replica.
   */
  domains: ColumnRef[][];
  /** Keys of the schema file that name a table or column the database does not have. */
  unresolved: string[];
}

/**
 * Key columns (primary keys, columns of unique constraints and indexes, both ends of every foreign key, from
 * the database and from the BIRD schema file) and their domains, by union-find over columns.
 * Tables in `skip` (lower-case names; virtual and shadow tables) take no part.
 */
export function keyDomains(
  schema: SchemaInfo,
  declared: ForeignKey[],
  bird: BirdKeys | undefined,
  skip: ReadonlySet<string> = new Set(),
): KeyDomains {
  const parent = new Map<string, string>();
  const refs = new Map<string, ColumnRef>();
  const unresolved: string[] = [];

  /** The column as the database spells it, or undefined when the database has no such column. */
  const resolve = (ref: ColumnRef): ColumnRef | undefined => {
    if (skip.has(ref.table.toLowerCase())) return undefined;
    const table = schema.tables.get(ref.table.toLowerCase());
    const column = table?.columns.find((c) => c.name.toLowerCase() === ref.column.toLowerCase());
    return table && column ? { table: table.name, column: column.name } : undefined;
  };
  const find = (key: string): string => {
    let root = key;
    while (parent.get(root) !== root) root = parent.get(root)!;
    for (let at = key; at !== root;) {
      const next = parent.get(at)!;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  const add = (ref: ColumnRef | undefined): string | undefined => {
    if (!ref) return undefined;
    const key = `${ref.table.toLowerCase()}\u0000${ref.column.toLowerCase()}`;
    if (!parent.has(key)) {
      parent.set(key, key);
      refs.set(key, ref);
    }
    return key;
  };
  const union = (a: string | undefined, b: string | undefined) => {
    if (a && b) parent.set(find(b), find(a));
  };
  const fromFile = (ref: ColumnRef) => {
    const resolved = resolve(ref);
    if (!resolved && !skip.has(ref.table.toLowerCase())) unresolved.push(`${ref.table}.${ref.column}`);
    return resolved;
  };

  for (const table of schema.tables.values()) {
    for (const column of table.columns) if (column.primaryKey) add(resolve({ table: table.name, column: column.name }));
    // Expression columns of an index have no name (readSchema reports them as "null") and resolve to nothing.
    for (const index of table.indexes) if (index.unique) for (const column of index.columns) add(resolve({ table: table.name, column }));
  }
  for (const key of declared) union(add(resolve(key.to)), add(resolve(key.from)));
  for (const key of bird?.primaryKeys ?? []) for (const column of key) add(fromFile(column));
  for (const key of bird?.foreignKeys ?? []) union(add(fromFile(key.to)), add(fromFile(key.from)));

  const groups = new Map<string, ColumnRef[]>();
  for (const [key, ref] of refs) {
    const root = find(key);
    groups.set(root, [...(groups.get(root) ?? []), ref]);
  }
  return { domains: [...groups.values()], unresolved: [...new Set(unresolved)] };
}
