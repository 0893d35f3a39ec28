import * as fs from 'fs';
import * as path from 'path';
import { Row } from '../../db/database';
import type { DatabaseConnection } from '../../db/engine';
import { readQuery } from '../../db/readQuery';
import { quoteIdentifier, quoteSqlString, SchemaInfo, TableInfo } from '../../db/schema';
import { sqliteEngine } from '../../db/sqlite/sqliteEngine';
import { readOnlyUri } from '../../db/sqlite/readOnlyUri';
import { WritableDatabase } from '../../db/sqlite/writableDatabase';
import { cleanStaleTemporaries, temporaryFolder, temporaryPathFor, trackTemporary, untrackTemporary } from '../../io/atomicFile';
import { sameResultSet } from '../../metrics/executionMatch';
import { identifierName, significantTokens } from '../../sql/lexer';
import { tablesRead } from '../../sql/scope';
import { analysisBoundNote } from '../../sql/textBounds';
import { jsonValue } from '../jsonValue';
import { Variation, variationsFor } from './variations';

/** Time a found witness may take to shrink, whatever the search budget: a small witness is worth the wait. */
const MIN_SHRINK_MS = 3000;

/** Rows of each result shown in a report (the witness file holds them all). */
const ROWS_SHOWN = 5;

/** A small database on which gold and prediction return different results (EX's comparison), as reported. */
export interface Counterexample {
  /** The witness SQLite file: only the tables the two queries read, with their original CREATE statements. */
  database: string;
  gold_rows: unknown[][];
  prediction_rows: unknown[][];
  /** How the real database was varied, and how small the witness is. */
  how: string;
  /** Rows of each table in the witness. */
  rows_by_table: Record<string, number>;
  /** Row count of each result on the witness. */
  gold_row_count: number;
  prediction_row_count: number;
}

/** How much was searched, whatever came of it. */
export interface CounterexampleSearch {
  result: 'found' | 'none_found' | 'budget_spent' | 'not_searched';
  variations_tried: number;
  seconds: number;
  note?: string;
}

export interface PairToSearch {
  /** The real database (read through a read-only ATTACH; never written). */
  dbPath: string;
  gold: string;
  prediction: string;
  /** File name of the witness, without extension (unique within the output folder). */
  name: string;
}

export interface SearchOptions {
  outDir: string;
  /** Time for the search of one pair (variations); shrinking a witness found takes up to as long again (at least 3 s). */
  budgetMs: number;
  /** Time a found witness may take to shrink, instead of the above (a test that checks the shrunk size, on a busy machine). */
  shrinkMs?: number;
  maxRows: number;
  schema: SchemaInfo;
  /** Ends the search at the next query (the editor's Cancel); nothing is written then. */
  signal?: AbortSignal;
}

type Check = { status: 'differ'; gold: Row[]; prediction: Row[] } | { status: 'same' } | { status: 'failed'; message: string };

/** Runs both queries on `db` (within the deadline and row limit) and says whether EX tells them apart. */
async function compareOn(
  db: DatabaseConnection,
  pair: PairToSearch,
  deadline: number,
  maxRows: number,
  signal?: AbortSignal,
): Promise<Check> {
  const limits = { deadline, budgetMs: Math.max(0, deadline - performance.now()), maxRows, signal };
  const gold = await readQuery(db, pair.gold, limits);
  if (gold.status !== 'ok') return { status: 'failed', message: `gold: ${gold.message}` };
  const prediction = await readQuery(db, pair.prediction, limits);
  if (prediction.status !== 'ok') return { status: 'failed', message: `prediction: ${prediction.message}` };
  return sameResultSet(prediction.rows, gold.rows)
    ? { status: 'same' }
    : { status: 'differ', gold: gold.rows, prediction: prediction.rows };
}

/** Lower-case names of every identifier either query spells: the columns worth varying. */
function namedIdentifiers(...sql: string[]): Set<string> {
  const names = new Set<string>();
  for (const text of sql)
    for (const token of significantTokens(text))
      if (token.kind === 'word' || token.kind === 'quoted') names.add(identifierName(token.text).toLowerCase());
  return names;
}

/**
 * The work copy: the tables read, as the original declares them (keys, UNIQUE, NOT NULL, CHECK), all their rows.
 * Its folder is one of atomicFile's tracked temporaries, as WritableDatabase.copyOf's: removed on exit, and when the
 * run was killed, by a later run.
 */
class WorkCopy {
  private constructor(
    readonly folder: string,
    readonly file: string,
    private readonly writer: WritableDatabase,
    readonly tables: readonly TableInfo[],
  ) {}

  static async create(dbPath: string, tables: readonly TableInfo[]): Promise<WorkCopy> {
    const folder = temporaryFolder();
    const file = path.join(folder, 'work.sqlite');
    let writer: WritableDatabase;
    try {
      writer = await WritableDatabase.file(file);
    } catch (error) {
      WorkCopy.remove(folder);
      throw error;
    }
    const copy = new WorkCopy(folder, file, writer, tables);
    try {
      await writer.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF');
      await writer.exec(`ATTACH DATABASE ${quoteSqlString(readOnlyUri(dbPath))} AS src`);
      await writer.exec('BEGIN');
      for (const table of tables) await writer.exec(table.sql);
      await writer.exec('COMMIT');
      for (const table of tables) await copy.restore(table.name);
    } catch (error) {
      await copy.close();
      throw error;
    }
    return copy;
  }

  /** Puts back every original row of a table. */
  restore(table: string): Promise<void> {
    const t = quoteIdentifier(table);
    return this.writer.exec(`BEGIN; DELETE FROM main.${t}; INSERT INTO main.${t} SELECT * FROM src.${t}; COMMIT`);
  }

  /** Applies a variation in one transaction; false (and nothing changed) when a statement fails (a CHECK, a type). */
  async apply(statements: readonly string[]): Promise<boolean> {
    try {
      await this.writer.exec(['BEGIN', ...statements, 'COMMIT'].join(';\n'));
      return true;
    } catch {
      await this.writer.exec('ROLLBACK').catch(() => undefined);
      return false;
    }
  }

  exec(sql: string): Promise<void> {
    return this.writer.exec(sql);
  }

  async rowids(table: string): Promise<number[]> {
    return (await this.writer.all(`SELECT rowid AS id FROM main.${quoteIdentifier(table)} ORDER BY rowid`)).map((r) => Number(r.id));
  }

  async count(table: string): Promise<number> {
    return Number((await this.writer.all(`SELECT count(*) AS n FROM main.${quoteIdentifier(table)}`))[0].n);
  }

  /**
   * Writes the copy as a compact file (VACUUM INTO: only the main database, without the attached original), into a
   * tracked temporary beside the target, renamed over it once whole: a Ctrl-C or a full disk leaves no half file.
   */
  async writeTo(target: string): Promise<void> {
    cleanStaleTemporaries(path.dirname(target));
    const temporary = temporaryPathFor(target);
    trackTemporary(temporary);
    try {
      await this.writer.exec(`VACUUM main INTO ${quoteSqlString(temporary)}`);
      fs.renameSync(temporary, target);
    } finally {
      fs.rmSync(temporary, { force: true }); // renamed away already, unless the write failed
      untrackTemporary(temporary);
    }
  }

  async close(): Promise<void> {
    await this.writer.close();
    WorkCopy.remove(this.folder);
  }

  private static remove(folder: string): void {
    fs.rmSync(folder, { recursive: true, force: true });
    untrackTemporary(folder);
  }
}

/**
 * Deletes rows of the witness while the two queries still differ (delta debugging per table: the whole
 * table, then halves, quarters, ... down to single rows), until nothing more can go or the deadline passes.
 * A deleted chunk is saved in a temporary table and put back when the queries stop differing without it.
 */
async function shrink(
  copy: WorkCopy,
  reader: DatabaseConnection,
  pair: PairToSearch,
  deadline: number,
  maxRows: number,
  signal?: AbortSignal,
) {
  const differs = async () => (await compareOn(reader, pair, deadline, maxRows, signal)).status === 'differ';
  for (let pass = 0; pass < 2; pass++) {
    let removedAny = false;
    for (const table of copy.tables) {
      const t = quoteIdentifier(table.name);
      const columns = table.columns.map((c) => quoteIdentifier(c.name));
      const keepRowid = table.rowidColumn === undefined;
      const back = `INSERT INTO main.${t} (${keepRowid ? 'rowid, ' : ''}${columns.join(', ')}) SELECT ${keepRowid ? '__cx_rowid, ' : ''}${columns.join(', ')} FROM temp.__cx_saved`;
      let rowids = await copy.rowids(table.name);
      for (let chunk = rowids.length; chunk >= 1 && performance.now() < deadline && !signal?.aborted; chunk = Math.floor(chunk / 2)) {
        for (let start = 0; start < rowids.length && performance.now() < deadline && !signal?.aborted;) {
          const part = rowids.slice(start, start + chunk);
          const range = `rowid BETWEEN ${part[0]} AND ${part[part.length - 1]}`;
          await copy.exec(
            `BEGIN; CREATE TEMP TABLE __cx_saved AS SELECT rowid AS __cx_rowid, * FROM main.${t} WHERE ${range}; DELETE FROM main.${t} WHERE ${range}; COMMIT`,
          );
          if (await differs()) {
            rowids = [...rowids.slice(0, start), ...rowids.slice(start + chunk)];
            removedAny = true;
          } else {
            await copy.exec(`BEGIN; ${back}; COMMIT`);
            start += chunk;
          }
          await copy.exec('DROP TABLE temp.__cx_saved');
        }
        if (rowids.length === 0) break;
      }
    }
    if (!removedAny) break;
  }
}

const safeName = (text: string) => text.replace(/[^\w.-]+/g, '_');

/** The witness is re-read from the written file on a fresh read-only connection: it is reported only if it separates the pair. */
async function verifiedWitness(file: string, pair: PairToSearch, maxRows: number, budgetMs: number): Promise<Check> {
  const db = await sqliteEngine.open(file);
  try {
    return await compareOn(db, pair, performance.now() + Math.max(budgetMs, 5000), maxRows);
  } finally {
    await db.close();
  }
}

/**
 * Looks for a small database on which an EX-correct pair returns different results. Variations of the real
 * database's tables that either query reads are tried one after another on a work copy (variations.ts); the
 * first that separates the pair is shrunk to a few rows, written to `<outDir>/<name>.sqlite`, and reported
 * only after both queries were re-run on the written file and still differ.
 */
export async function searchCounterexample(
  pair: PairToSearch,
  options: SearchOptions,
): Promise<{ counterexample?: Counterexample; search: CounterexampleSearch }> {
  const started = performance.now();
  const deadline = started + options.budgetMs;
  let tried = 0;
  const done = (result: CounterexampleSearch['result'], note?: string, counterexample?: Counterexample) => ({
    ...(counterexample ? { counterexample } : {}),
    search: {
      result,
      variations_tried: tried,
      seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
      ...(note ? { note } : {}),
    },
  });
  // Reading the tables and names of a text past the bounds of SQL analysis would take memory beyond the bound.
  const tooLarge =
    analysisBoundNote(pair.prediction, 'the counterexample search', 'tokens') ??
    analysisBoundNote(pair.gold, 'the counterexample search', 'tokens');
  if (tooLarge) return done('not_searched', tooLarge);
  const names = [...options.schema.tables.values()].map((t) => t.name);
  const read = new Set([...tablesRead(pair.gold, names).keys(), ...tablesRead(pair.prediction, names).keys()]);
  const tables = [...read].map((name) => options.schema.tables.get(name)).filter((t): t is TableInfo => t !== undefined && !t.withoutRowid);
  if (tables.length === 0) return done('not_searched', 'the queries read no (rowid) table of the database');

  let copy: WorkCopy;
  try {
    copy = await WorkCopy.create(pair.dbPath, tables);
  } catch (error) {
    return done('not_searched', `could not copy the tables read: ${(error as Error).message}`);
  }
  let reader: DatabaseConnection | undefined;
  try {
    reader = await sqliteEngine.open(copy.file);
    const baseline = await compareOn(reader, pair, deadline, options.maxRows, options.signal);
    if (baseline.status === 'failed') return done('not_searched', `on a copy of the tables read, ${baseline.message}`);
    const variations: Variation[] =
      baseline.status === 'differ'
        ? [{ how: 'the tables read copied as they are', tables: [], statements: [] }]
        : variationsFor(tables, namedIdentifiers(pair.gold, pair.prediction));
    for (const variation of variations) {
      if (options.signal?.aborted) return done('not_searched', `cancelled after ${tried} variations`);
      if (performance.now() >= deadline) return done('budget_spent', `${variations.length - tried} variations left untried`);
      tried++;
      if (!(await copy.apply(variation.statements))) continue;
      const check = await compareOn(reader, pair, deadline, options.maxRows, options.signal);
      if (check.status === 'differ') {
        const shrinkMs = options.shrinkMs ?? Math.max(options.budgetMs, MIN_SHRINK_MS);
        await shrink(copy, reader, pair, performance.now() + shrinkMs, options.maxRows, options.signal);
        if (options.signal?.aborted) return done('not_searched', `cancelled after ${tried} variations`);
        const file = path.resolve(options.outDir, `${safeName(pair.name)}.sqlite`);
        await copy.writeTo(file);
        const rerun = await verifiedWitness(file, pair, options.maxRows, options.budgetMs);
        if (rerun.status !== 'differ') {
          fs.rmSync(file, { force: true });
          return done('none_found', `a difference found on a variation (${variation.how}) did not hold on the written file`);
        }
        const rowsByTable: Record<string, number> = {};
        for (const table of tables) rowsByTable[table.name] = await copy.count(table.name);
        const total = Object.values(rowsByTable).reduce((a, b) => a + b, 0);
        const sizes = Object.entries(rowsByTable).map(([name, n]) => `${name} ${n}`);
        return done('found', undefined, {
          database: file,
          gold_rows: rerun.gold.slice(0, ROWS_SHOWN).map((row) => row.map(jsonValue)),
          prediction_rows: rerun.prediction.slice(0, ROWS_SHOWN).map((row) => row.map(jsonValue)),
          how: `${variation.how}; then shrunk to ${total} row${total === 1 ? '' : 's'} (${sizes.join(', ')})`,
          rows_by_table: rowsByTable,
          gold_row_count: rerun.gold.length,
          prediction_row_count: rerun.prediction.length,
        });
      }
      for (const table of variation.tables) await copy.restore(table);
    }
    return done('none_found', `all ${variations.length} variations of ${tables.map((t) => t.name).join(', ')} tried`);
  } catch (error) {
    return done('not_searched', `the search stopped: ${(error as Error).message}`);
  } finally {
    await reader?.close();
    await copy.close();
  }
}
