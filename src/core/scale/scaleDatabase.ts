import * as fs from 'fs';
import * as path from 'path';
import { DatabaseError } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { openDatabase } from '../db/engines';
import { databaseFileProblem } from '../db/databaseFile';
import { quoteIdentifier, quoteSqlString, readSchema, TableInfo } from '../db/schema';
import { CatalogObject, FileSettings, readCopySource } from '../db/sqlite/sqliteCatalog';
import { WritableDatabase } from '../db/sqlite/writableDatabase';
import { cleanStaleTemporaries, temporaryPathFor, trackTemporary, untrackTemporary } from '../io/atomicFile';
import { readOnlyUri } from '../db/sqlite/readOnlyUri';
import { birdKeys, BirdTablesEntry, ColumnRef, readBirdTablesEntry } from './birdTables';
import { declaredForeignKeys, keyDomains } from './keyDomains';

/** A mistake in what was asked (factor, paths, a database that cannot be read): reported without a stack. */
export class ScaleError extends Error {}

export interface ScaleOptions {
  /** BIRD dev_tables.json / train_tables.json: its keys are shifted too (BIRD databases often declare no foreign keys). */
  schemaFile?: string;
  /** The schema file's entry, already read (the cache reads it for its key); takes precedence over schemaFile. */
  schemaEntry?: BirdTablesEntry;
  /** The entry of the schema file to use; default: the source's file name without `.sqlite`. */
  dbId?: string;
  /** Replace outPath if it exists. */
  overwrite?: boolean;
  onProgress?: (done: number, total: number, label: string) => void;
}

/** What a key domain holds: numbers are shifted by replica × width, text gets a `<separator><replica>` suffix. */
export type DomainKind = 'number' | 'text' | 'number+text' | 'empty';

export interface KeyDomainReport {
  id: number;
  /** `table.column` of each column in the domain. */
  columns: string[];
  kind: DomainKind;
  /** max − min + 1 over the domain's numbers, as text (exact for 64-bit integers); null without numbers. */
  width: string | null;
  /** What joins a text value to its replica number (`#` unless some value contains it); null without text. */
  separator: string | null;
}

export interface TableScaleReport {
  name: string;
  rowsBefore: number;
  rowsAfter: number;
  /** Shifted columns, each with the id of its domain. */
  keyColumns: { column: string; domain: number }[];
}

export interface ScaleReport {
  source: string;
  output: string;
  dbId: string;
  factor: number;
  schemaFile: string | null;
  tables: TableScaleReport[];
  domains: KeyDomainReport[];
  /** What was copied differently or left out: virtual tables, unique expression indexes, schema-file keys not in the database. */
  notes: string[];
  seconds: number;
  outputBytes: number;
}

/** The db_id a database file stands for: its name without `.sqlite`. */
export function defaultDbId(file: string): string {
  return path.basename(file).replace(/\.sqlite$/i, '');
}

export function checkFactor(factor: number): void {
  if (!Number.isInteger(factor) || factor < 1) throw new ScaleError(`the factor must be an integer of at least 1, got ${factor}`);
}

/** Characters that may join a text key to its replica number, in order of preference. */
const SEPARATORS = ['#', '~', '|', '@', '^'];

/** SQL true when `x` is text that reads back as the same integer: such keys join integer columns, so they shift as numbers. */
const integerText = (x: string) => `typeof(${x}) = 'text' AND CAST(CAST(${x} AS INTEGER) AS TEXT) = ${x}`;

interface DomainShift {
  report: KeyDomainReport;
  /** Width as a BigInt, for exact shifts. */
  width?: bigint;
}

/** The value of `column` in replica `replica` (0 keeps originals; NULL stays NULL; other types are left alone). */
function shiftedValue(column: string, replica: number, shift: DomainShift): string {
  const x = quoteIdentifier(column);
  if (replica === 0) return x;
  const cases: string[] = [];
  if (shift.width !== undefined) {
    const by = (shift.width * BigInt(replica)).toString();
    cases.push(
      `WHEN typeof(${x}) IN ('integer', 'real') THEN ${x} + ${by}`,
      `WHEN ${integerText(x)} THEN CAST(CAST(${x} AS INTEGER) + ${by} AS TEXT)`,
    );
  }
  if (shift.report.separator !== null) {
    const suffix = quoteSqlString(`${shift.report.separator}${replica}`);
    cases.push(`WHEN typeof(${x}) = 'text' THEN ${x} || ${suffix}`, `WHEN typeof(${x}) = 'blob' THEN CAST(${x} || ${suffix} AS BLOB)`);
  }
  return cases.length ? `CASE ${cases.join(' ')} ELSE ${x} END` : x;
}

function sameFile(a: string, b: string): boolean {
  if (!fs.existsSync(b)) return false;
  const [sa, sb] = [fs.statSync(a), fs.statSync(b)];
  return (sa.dev === sb.dev && sa.ino === sb.ino) || fs.realpathSync(a) === fs.realpathSync(b);
}

/** Refuses a source that is no SQLite database (missing, a folder, empty, JSON...), saying what it is. */
export function checkSource(file: string): void {
  const problem = databaseFileProblem(file);
  if (problem) throw new ScaleError(`${file}: ${problem}`);
}

function checkPaths(source: string, output: string, overwrite: boolean): void {
  checkSource(source);
  if (output === source || sameFile(source, output)) throw new ScaleError(`the copy would replace its source: ${output}`);
  if (fs.existsSync(output)) {
    if (fs.statSync(output).isDirectory()) throw new ScaleError(`output is a folder: ${output}`);
    if (!overwrite) throw new ScaleError(`output exists: ${output} (overwrite it with --overwrite)`);
  }
  const folder = path.dirname(output);
  if (!fs.existsSync(folder)) throw new ScaleError(`output folder not found: ${folder}`);
}

/** What the build needs to know about the source, read through a read-only connection. */
interface SourceFacts {
  tables: TableInfo[];
  /** Virtual tables: recreated and filled unshifted (their module rebuilds its shadow tables). */
  virtual: Set<string>;
  /** Lower-case names of tables not copied as such: shadow tables of virtual tables. */
  shadow: Set<string>;
  /** Indexes, views and triggers, in sqlite_master order: created after loading (faster; triggers must not fire). */
  laterObjects: CatalogObject[];
  settings: FileSettings;
  analyzed: boolean;
  domains: ColumnRef[][];
  unresolved: string[];
}

async function readSource(source: string, entry: BirdTablesEntry | undefined): Promise<SourceFacts> {
  let db: DatabaseConnection | undefined;
  try {
    db = await openDatabase(source);
    const schema = await readSchema(db);
    const { virtual, shadow, objects, settings, analyzed } = await readCopySource(db, source);
    const notCopiedAsSuch = new Set([...shadow, ...virtual]);
    const { domains, unresolved } = keyDomains(schema, declaredForeignKeys(schema), entry && birdKeys(entry), notCopiedAsSuch);
    return {
      tables: [...schema.tables.values()].filter((t) => !shadow.has(t.name.toLowerCase())),
      virtual,
      shadow,
      laterObjects: objects.filter((o) => !shadow.has(o.table.toLowerCase())),
      settings,
      analyzed,
      domains,
      unresolved,
    };
  } catch (error) {
    if (error instanceof DatabaseError) throw new ScaleError(`cannot read ${source}: ${error.message}`);
    throw error;
  } finally {
    await db?.close();
  }
}

/** Range, kinds and a free separator of each domain's values, read from the attached source. */
async function measureDomains(out: WritableDatabase, domains: ColumnRef[][], factor: number): Promise<DomainShift[]> {
  const shifts: DomainShift[] = [];
  for (const [id, columns] of domains.entries()) {
    const values = columns.map((c) => `SELECT ${quoteIdentifier(c.column)} FROM src.${quoteIdentifier(c.table)}`).join(' UNION ALL ');
    const [stats] = await out.all(
      `WITH v(x) AS (${values}), n(x, n) AS (SELECT x, CASE WHEN typeof(x) IN ('integer', 'real') THEN x WHEN ${integerText('x')} THEN CAST(x AS INTEGER) END FROM v)
       SELECT CAST(min(n) AS TEXT) AS lo, CAST(max(n) AS TEXT) AS hi, CAST(CAST(max(n) - min(n) AS INTEGER) + 1 AS TEXT) AS approx,
              count(n) AS numbers, count(x) - count(n) AS others, ${SEPARATORS.map((s, i) => `max(instr(x, ${quoteSqlString(s)})) AS s${i}`).join(', ')} FROM n`,
    );
    const names = columns.map((c) => `${c.table}.${c.column}`);
    const numbers = Number(stats.numbers) > 0;
    const text = Number(stats.others) > 0;
    let width: bigint | undefined;
    if (numbers) {
      const [lo, hi] = [String(stats.lo), String(stats.hi)];
      const integers = /^-?\d+$/.test(lo) && /^-?\d+$/.test(hi);
      // Integers: exact. With reals, the width is rounded up to an integer by SQL, which keeps replicas apart as well.
      width = integers ? BigInt(hi) - BigInt(lo) + 1n : /^\d+$/.test(String(stats.approx)) ? BigInt(String(stats.approx)) : undefined;
      const top =
        integers && width !== undefined ? BigInt(hi) + width * BigInt(factor - 1) : Number(hi) + Number(width ?? Infinity) * (factor - 1);
      if (width === undefined || top > 2n ** 63n - 1n) {
        throw new ScaleError(`keys ${names.join(', ')} range from ${lo} to ${hi}: ${factor} replicas do not fit in 64-bit integers`);
      }
    }
    const free = SEPARATORS.find((_, i) => !(Number(stats[`s${i}`]) > 0));
    if (text && free === undefined)
      throw new ScaleError(`text keys ${names.join(', ')} contain every replica separator (${SEPARATORS.join(' ')})`);
    shifts.push({
      width,
      report: {
        id,
        columns: names,
        kind: numbers && text ? 'number+text' : numbers ? 'number' : text ? 'text' : 'empty',
        width: width === undefined ? null : width.toString(),
        separator: text ? free! : null,
      },
    });
  }
  return shifts;
}

/**
 * Writes a copy of `sourcePath` at `outPath` with every table holding `factor` times its rows. Replica r of a row
 * has its key columns shifted (numbers by r × the domain's width, text with a `#r` suffix), so a join on keys
 * keeps its per-replica structure and its row count grows exactly `factor` times; other columns are copied
 * unchanged, so a filter on them matches `factor` times the rows. The source is only ever attached read-only;
 * the copy is built in a temporary file beside outPath and renamed into place when complete.
 */
export async function scaleDatabase(sourcePath: string, factor: number, outPath: string, options: ScaleOptions = {}): Promise<ScaleReport> {
  const started = performance.now();
  checkFactor(factor);
  const source = path.resolve(sourcePath);
  const output = path.resolve(outPath);
  checkPaths(source, output, options.overwrite ?? false);
  const dbId = options.dbId ?? defaultDbId(source);
  const entry = options.schemaEntry ?? (options.schemaFile ? readBirdTablesEntry(options.schemaFile, dbId) : undefined);
  const facts = await readSource(source, entry);
  const notes = facts.unresolved.map((c) => `schema file key ${c} is not in the database: ignored`);

  // A temporary of this process (removed on any exit, even Ctrl-C); one a killed run left is cleaned here.
  cleanStaleTemporaries(path.dirname(output));
  const temp = temporaryPathFor(output);
  trackTemporary(temp);
  let out: WritableDatabase | undefined;
  try {
    out = await WritableDatabase.file(temp).catch((error: Error) => {
      throw new ScaleError(`cannot create ${temp}: ${error.message}`);
    });
    const { encoding, pageSize, userVersion, applicationId } = facts.settings;
    // Encoding and page size must be set before the first table; ATTACH needs the same encoding on both sides.
    // No journal while loading: a failure there discards the whole file anyway, and statement journals would
    // copy index pages once per replica.
    await out.exec(
      `PRAGMA encoding = ${quoteSqlString(encoding)}; PRAGMA main.page_size = ${pageSize}; PRAGMA main.journal_mode = OFF; PRAGMA main.synchronous = OFF; PRAGMA main.cache_size = -65536;`,
    );
    await out.exec(`ATTACH DATABASE ${quoteSqlString(readOnlyUri(source))} AS src`);
    const shifts = await measureDomains(out, facts.domains, factor);
    const domainOf = new Map<string, DomainShift>();
    facts.domains.forEach((columns, i) => columns.forEach((c) => domainOf.set(`${c.table}\u0000${c.column}`, shifts[i])));

    const total = facts.tables.length * factor + facts.laterObjects.length + (facts.analyzed ? 1 : 0);
    let done = 0;
    const step = (label: string) => options.onProgress?.(++done, total, label);
    options.onProgress?.(0, total, 'tables');

    await out.exec(`BEGIN; PRAGMA main.user_version = ${userVersion}; PRAGMA main.application_id = ${applicationId};`);
    const copied: TableInfo[] = [];
    for (const table of facts.tables) {
      try {
        await out.exec(table.sql);
        copied.push(table);
      } catch (error) {
        if (!facts.virtual.has(table.name.toLowerCase())) throw error;
        notes.push(`virtual table ${table.name} not copied: ${(error as Error).message}`);
        done += factor;
      }
    }
    for (const table of copied) {
      const columns = table.columns.map((c) => quoteIdentifier(c.name)).join(', ');
      for (let replica = 0; replica < factor; replica++) {
        const values = table.columns.map((c) => {
          const shift = domainOf.get(`${table.name}\u0000${c.name}`);
          return shift ? shiftedValue(c.name, replica, shift) : quoteIdentifier(c.name);
        });
        await out.exec(
          `INSERT INTO main.${quoteIdentifier(table.name)} (${columns}) SELECT ${values.join(', ')} FROM src.${quoteIdentifier(table.name)}`,
        );
        step(`${table.name} ${replica + 1}/${factor}`);
      }
    }
    // Objects created after loading may fail alone (a unique expression index): they need a journal to roll back.
    await out.exec('COMMIT; PRAGMA main.journal_mode = MEMORY; BEGIN;');
    const copiedNames = new Set(copied.map((t) => t.name.toLowerCase()));
    const leftOut = new Set(facts.tables.filter((t) => !copiedNames.has(t.name.toLowerCase())).map((t) => t.name.toLowerCase()));
    for (const object of facts.laterObjects) {
      try {
        if (!leftOut.has(object.table.toLowerCase())) await out.exec(object.sql);
      } catch (error) {
        // Only a unique index on an expression can fail: the expression's columns cannot be known, so are not shifted.
        if (!(object.type === 'index' && /UNIQUE constraint failed/.test((error as Error).message))) throw error;
        notes.push(`unique index ${object.name} not created: its values repeat across replicas (${(error as Error).message})`);
      }
      step(`${object.type} ${object.name}`);
    }
    await out.exec('COMMIT');
    if (facts.analyzed) {
      // The source had planner statistics; the copy gets its own, for its own row counts.
      await out.exec('ANALYZE main');
      step('ANALYZE');
    }

    const tables: TableScaleReport[] = [];
    for (const table of facts.tables) {
      const [{ n }] = !leftOut.has(table.name.toLowerCase())
        ? await out.all(`SELECT count(*) AS n FROM main.${quoteIdentifier(table.name)}`)
        : [{ n: 0 }];
      tables.push({
        name: table.name,
        rowsBefore: table.rowCount,
        rowsAfter: Number(n),
        keyColumns: table.columns.flatMap((c) => {
          const shift = domainOf.get(`${table.name}\u0000${c.name}`);
          return shift ? [{ column: c.name, domain: shift.report.id }] : [];
        }),
      });
    }
    await out.exec('DETACH DATABASE src');
    await out.close();
    out = undefined;
    if (!options.overwrite && fs.existsSync(output))
      throw new ScaleError(`output exists: ${output} (it appeared while the copy was built)`);
    fs.renameSync(temp, output);
    untrackTemporary(temp);
    return {
      source,
      output,
      dbId,
      factor,
      schemaFile: options.schemaFile ?? null,
      tables,
      domains: shifts.map((s) => s.report),
      notes,
      seconds: (performance.now() - started) / 1000,
      outputBytes: fs.statSync(output).size,
    };
  } catch (error) {
    await out?.close();
    fs.rmSync(temp, { force: true });
    untrackTemporary(temp);
    // SQLite refusing the copy is about this database (a CHECK on a shifted key, say), not a bug: no stack.
    if (error instanceof DatabaseError) throw new ScaleError(`cannot build the copy of ${source}: ${error.message}`);
    throw error;
  }
}
