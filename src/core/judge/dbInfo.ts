import * as fs from 'fs';
import * as path from 'path';
import { SqlValue } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { quoteIdentifier, readSchema, SchemaInfo, TableInfo } from '../db/schema';
import { identifierName, significantTokens } from '../sql/lexer';
import { tablesRead } from '../sql/scope';
import { analysisBoundNote } from '../sql/textBounds';

/** Distinct non-NULL values shown per column, read from the first rows of its table (bounded work). */
const SAMPLE_VALUES = 3;
const SAMPLE_WINDOW = 1000;
const LONGEST_SAMPLE = 40;

/** A BIRD database_description/<table>.csv line: what a column means and what its values say. */
interface ColumnDescription {
  description: string;
  values: string;
}

/**
 * What the judge knows of one database, read once and shared by every pair on it: the schema (engine's
 * readSchema), foreign keys, sample values per table (read on first use), and BIRD's column descriptions when
 * the dataset ships them beside the database (`<db_root>/<db_id>/database_description/*.csv`).
 */
export class DatabaseFacts {
  private schema?: Promise<SchemaInfo>;
  private readonly tableText = new Map<string, Promise<string>>();

  constructor(
    readonly dbId: string,
    readonly dbPath: string,
  ) {}

  schemaOf(db: DatabaseConnection): Promise<SchemaInfo> {
    this.schema ??= readSchema(db);
    return this.schema;
  }

  /** The lines that describe one table (cached). */
  table(db: DatabaseConnection, table: TableInfo): Promise<string> {
    const key = table.name.toLowerCase();
    let text = this.tableText.get(key);
    if (!text) {
      text = describeTable(db, table, readDescriptions(path.dirname(this.dbPath), table.name));
      this.tableText.set(key, text);
    }
    return text;
  }
}

/** One DatabaseFacts per database file, for a run or an editor session. */
export class DatabaseFactsCache {
  private readonly facts = new Map<string, DatabaseFacts>();

  get(dbId: string, dbPath: string): DatabaseFacts {
    const key = path.resolve(dbPath);
    let facts = this.facts.get(key);
    if (!facts) {
      facts = new DatabaseFacts(dbId, dbPath);
      this.facts.set(key, facts);
    }
    return facts;
  }
}

function sample(value: SqlValue): string {
  if (typeof value === 'number') return String(value);
  if (value === null) return 'NULL';
  if (Buffer.isBuffer(value)) return `<blob>`;
  if (typeof value !== 'string') return value.text; // a server's exact number, boolean, date or time
  const line = value.replace(/\s+/g, ' ');
  return `'${line.length > LONGEST_SAMPLE ? `${line.slice(0, LONGEST_SAMPLE - 1)}…` : line}'`;
}

async function describeTable(db: DatabaseConnection, table: TableInfo, descriptions: Map<string, ColumnDescription>): Promise<string> {
  const lines = [`Table ${table.name} (${table.rowCount.toLocaleString('en-US')} rows)`];
  for (const column of table.columns) {
    const parts = [`  - ${column.name} ${column.type || 'ANY'}`.trimEnd()];
    if (column.primaryKey) parts.push('PRIMARY KEY');
    const keys = table.foreignKeys.filter((k) => k.column.toLowerCase() === column.name.toLowerCase());
    for (const key of keys) parts.push(`REFERENCES ${key.table}(${key.to ?? 'its primary key'})`);
    let values: string[];
    try {
      const col = quoteIdentifier(column.name);
      const rows = await db.all(
        `SELECT DISTINCT ${col} AS v FROM (SELECT ${col} FROM ${quoteIdentifier(table.name)} LIMIT ${SAMPLE_WINDOW}) WHERE ${col} IS NOT NULL LIMIT ${SAMPLE_VALUES}`,
      );
      values = rows.map((r) => sample(r.v));
    } catch {
      values = [];
    }
    let line = parts.join(' ');
    if (values.length) line += `; e.g. ${values.join(', ')}`;
    const description = descriptions.get(column.name.toLowerCase());
    if (description?.description) line += `; meaning: ${description.description}`;
    if (description?.values) line += `; values: ${description.values}`;
    lines.push(line);
  }
  return lines.join('\n');
}

/** A small CSV reader (quoted fields, doubled quotes, newlines inside quotes), enough for BIRD's description files. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

/** BIRD ships its description CSVs in UTF-8 (some with a byte-order mark) or Latin-1. */
function decode(buffer: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer).replace(/^\ufeff/, '');
  } catch {
    return buffer.toString('latin1');
  }
}

const clean = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

/** Column descriptions from `<database folder>/database_description/<table>.csv`, when the dataset has them. */
export function readDescriptions(databaseFolder: string, table: string): Map<string, ColumnDescription> {
  const descriptions = new Map<string, ColumnDescription>();
  const folder = path.join(databaseFolder, 'database_description');
  let file: string | undefined;
  try {
    file = fs.readdirSync(folder).find((name) => name.toLowerCase() === `${table.toLowerCase()}.csv`);
  } catch {
    return descriptions;
  }
  if (!file) return descriptions;
  let rows: string[][];
  try {
    rows = parseCsv(decode(fs.readFileSync(path.join(folder, file))));
  } catch {
    return descriptions;
  }
  const header = (rows.shift() ?? []).map((h) => clean(h).toLowerCase());
  const at = (name: string) => header.indexOf(name);
  const original = at('original_column_name');
  if (original === -1) return descriptions;
  for (const row of rows) {
    const column = clean(row[original]);
    if (!column) continue;
    const description = clean(row[at('column_description')]) || clean(row[at('column_name')]);
    descriptions.set(column.toLowerCase(), { description, values: clean(row[at('value_description')]) });
  }
  return descriptions;
}

/** Why the tables a SQL text names are not read from it (past the bounds of SQL analysis), or undefined. */
const tablesNamedNote = (sql: string) => analysisBoundNote(sql, 'the tables this SQL names', 'tokens');

/**
 * The tables a statement names: those its FROM clauses read (sql/scope's tablesRead, so a table named
 * `order` is not matched by ORDER BY as ROSE's substring test matches it), or, where none is found (SQL the
 * scan cannot follow), every identifier that is a table name. None for a text past the bounds of SQL analysis.
 */
export function tablesNamed(sql: string, tableNames: readonly string[]): string[] {
  return tablesNamedNote(sql) ? [] : tablesNamedWithin(sql, tableNames);
}

function tablesNamedWithin(sql: string, tableNames: readonly string[]): string[] {
  const found = tablesRead(sql, tableNames);
  if (found.size === 0) {
    const byLower = new Map(tableNames.map((t) => [t.toLowerCase(), t]));
    for (const token of significantTokens(sql)) {
      if (token.kind !== 'word' && token.kind !== 'quoted') continue;
      const table = byLower.get(identifierName(token.text).toLowerCase());
      if (table) found.set(table.toLowerCase(), table);
    }
  }
  return [...found.values()];
}

/**
 * The database part of a prompt: the tables the given SQL names (sorted, so a prompt and its cache key are
 * the same from run to run), each with its row count and its columns: type, primary and foreign keys, a few
 * sample values, and BIRD's descriptions where present.
 */
export async function describeDatabase(db: DatabaseConnection, facts: DatabaseFacts, sqls: readonly string[]): Promise<string> {
  const schema = await facts.schemaOf(db);
  const names = [...schema.tables.values()].map((t) => t.name);
  const named = new Map<string, TableInfo>();
  // A SQL text past the bounds of SQL analysis is not read for its tables (tokenizing it whole would take memory beyond
  // the bound): the prompt says so, and every table is still listed by name below.
  const notRead: string[] = [];
  for (const sql of sqls) {
    const tooLarge = tablesNamedNote(sql);
    if (tooLarge) notRead.push(tooLarge);
    else for (const name of tablesNamedWithin(sql, names)) named.set(name.toLowerCase(), schema.tables.get(name.toLowerCase())!);
  }
  const tables = [...named.values()].sort((a, b) => a.name.localeCompare(b.name));
  const blocks = [];
  for (const table of tables) blocks.push(await facts.table(db, table));
  const header = `Database ${facts.dbId} (SQLite). ${tables.length ? 'The tables the SQL names:' : 'The SQL names none of its tables.'}`;
  const all = `All tables: ${names
    .slice()
    .sort((a, b) => a.localeCompare(b))
    .join(', ')}.`;
  return [header, ...notRead, ...blocks, all].join('\n');
}
