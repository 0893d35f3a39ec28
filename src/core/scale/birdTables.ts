import { parseJsonFile, readTextFile } from '../bird/jsonFile';
import { InputFileError } from '../bird/problems';

/** One database's entry of BIRD's dev_tables.json / train_tables.json: the fields that name its keys. */
export interface BirdTablesEntry {
  db_id: string;
  table_names_original: string[];
  /** [table index, column name]; entry 0 is [-1, "*"]. */
  column_names_original: [number, string][];
  /** Column indices; a list of indices for a composite key. */
  primary_keys: (number | number[])[];
  /** [column index, referenced column index]. */
  foreign_keys: [number, number][];
}

export interface ColumnRef {
  table: string;
  column: string;
}

/** Keys as the schema file declares them, by table and column name. */
export interface BirdKeys {
  primaryKeys: ColumnRef[][];
  foreignKeys: { from: ColumnRef; to: ColumnRef }[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isIndex = (value: unknown): value is number => Number.isInteger(value);

/** The entry of `file` whose db_id is `dbId`; a missing entry or a malformed one is an InputFileError naming the item. */
export function readBirdTablesEntry(file: string, dbId: string): BirdTablesEntry {
  const data = parseJsonFile(file, readTextFile(file));
  if (!Array.isArray(data))
    throw new InputFileError({ file, message: 'expected a JSON list of databases, as BIRD dev_tables.json / train_tables.json' });
  const index = data.findIndex((entry) => isRecord(entry) && entry.db_id === dbId);
  if (index < 0) {
    const ids = data.filter(isRecord).map((entry) => String(entry.db_id));
    throw new InputFileError({
      file,
      message: `no entry with db_id "${dbId}" (it has ${ids.length}: ${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', ...' : ''})`,
    });
  }
  const entry = data[index] as Record<string, unknown>;
  const fail = (message: string) => new InputFileError({ file, where: `item ${index}, db_id "${dbId}"`, message });
  const tables = entry.table_names_original;
  const columns = entry.column_names_original;
  if (!Array.isArray(tables) || !tables.every((t) => typeof t === 'string'))
    throw fail('table_names_original: expected a list of table names');
  if (
    !Array.isArray(columns) ||
    !columns.every((c) => Array.isArray(c) && c.length === 2 && isIndex(c[0]) && typeof c[1] === 'string' && c[0] < tables.length)
  ) {
    throw fail('column_names_original: expected a list of [table index, column name]');
  }
  const isColumn = (i: unknown) => isIndex(i) && i > 0 && i < columns.length;
  const primaryKeys = entry.primary_keys ?? [];
  const foreignKeys = entry.foreign_keys ?? [];
  if (!Array.isArray(primaryKeys) || !primaryKeys.every((k) => isColumn(k) || (Array.isArray(k) && k.every(isColumn)))) {
    throw fail('primary_keys: expected column indices (or lists of them for composite keys)');
  }
  if (!Array.isArray(foreignKeys) || !foreignKeys.every((k) => Array.isArray(k) && k.length === 2 && k.every(isColumn))) {
    throw fail('foreign_keys: expected [column index, referenced column index] pairs');
  }
  return {
    db_id: dbId,
    table_names_original: tables,
    column_names_original: columns,
    primary_keys: primaryKeys,
    foreign_keys: foreignKeys,
  } as BirdTablesEntry;
}

/** The entry's keys by name. */
export function birdKeys(entry: BirdTablesEntry): BirdKeys {
  const ref = (index: number): ColumnRef => {
    const [table, column] = entry.column_names_original[index];
    return { table: entry.table_names_original[table], column };
  };
  return {
    primaryKeys: entry.primary_keys.map((key) => (Array.isArray(key) ? key : [key]).map(ref)),
    foreignKeys: entry.foreign_keys.map(([from, to]) => ({ from: ref(from), to: ref(to) })),
  };
}
