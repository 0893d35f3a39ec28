import * as fs from 'fs';
import * as path from 'path';
import type * as sqlite3 from '@vscode/sqlite3';
import { DatabaseError, SqlValue } from '../database';
import type { DatabaseConnection } from '../engine';
import { PlanNode } from '../planTree';
import { quoteSqlString, SchemaInfo } from '../schema';
import { plannerStatistics } from './sqliteCatalog';
import { planTreeOfRecords } from './queryPlan';
import { toDatabaseError } from './sqliteConnection';
import { nativeSqlite, nativeSqliteProblem } from './nativeDriver';
import { temporaryFolder, untrackTemporary } from '../../io/atomicFile';

/**
 * node-sqlite3, or why this feature cannot run: scratch and scaled copies are written by the native module only
 * (the WebAssembly build reads files, never writes them).
 */
function writer(): typeof sqlite3 {
  const problem = nativeSqliteProblem();
  if (problem) throw new DatabaseError(`this needs the native SQLite module (@vscode/sqlite3), which does not load here: ${problem}`);
  return nativeSqlite();
}

/** node-sqlite3's own default mode. */
const defaultMode = () => writer().OPEN_READWRITE | writer().OPEN_CREATE | writer().OPEN_FULLMUTEX;

/**
 * A writable SQLite database that is never the user's file: an in-memory schema copy or a temporary copy of a
 * database (index experiments), a new file being built (a scaled copy), or a test fixture. Reads of the
 * user's databases go through read-only connections (SqliteConnection); only these ever write.
 */
export class WritableDatabase {
  private constructor(
    private readonly db: sqlite3.Database,
    readonly path: string,
    /** Folder to remove on close, for temporary copies. */
    private readonly tempFolder?: string,
  ) {}

  private static openHandle(file: string, mode: number, tempFolder?: string): Promise<WritableDatabase> {
    const driver = writer();
    return new Promise((resolve, reject) => {
      const db = new driver.Database(file, mode, (error) =>
        error ? reject(toDatabaseError(error)) : resolve(new WritableDatabase(db, file, tempFolder)),
      );
    });
  }

  static inMemory(): Promise<WritableDatabase> {
    return WritableDatabase.openHandle(':memory:', defaultMode());
  }

  /** A file opened for writing, created when missing; URI file names are understood (ATTACH of a read-only source). */
  static file(file: string): Promise<WritableDatabase> {
    return WritableDatabase.openHandle(file, writer().OPEN_READWRITE | writer().OPEN_CREATE | writer().OPEN_URI);
  }

  /**
   * A schema-only in-memory copy of `source`: the same tables and indexes and the same planner statistics, no
   * rows, so a what-if index is planned as on the source. A statement the copy cannot replay is left out.
   */
  static async schemaCopy(source: DatabaseConnection, schema: SchemaInfo): Promise<WritableDatabase> {
    const scratch = await WritableDatabase.inMemory();
    for (const statement of schema.createStatements) await scratch.exec(statement).catch(() => undefined);
    const statistics = await plannerStatistics(source);
    if (statistics) {
      await scratch.exec('ANALYZE');
      for (const row of statistics) {
        const values = [row.tbl, row.idx, row.stat].map((v) => (v === null ? 'NULL' : quoteSqlString(v))).join(', ');
        await scratch.exec(`INSERT INTO sqlite_stat1 VALUES (${values})`);
      }
      await scratch.exec('ANALYZE sqlite_master');
    }
    return scratch;
  }

  /** A temporary copy of `source`; the copy is deleted on close (and on exit; a killed run's is cleaned later). */
  static copyOf(source: string): Promise<WritableDatabase> {
    // Named with the pid and host, so a later run knows whether the copy's owner still runs (core/io/atomicFile.ts).
    const mode = defaultMode(); // before the copy: a run without the native module copies nothing
    const folder = temporaryFolder();
    const target = path.join(folder, path.basename(source));
    fs.copyFileSync(source, target);
    fs.chmodSync(target, 0o644); // the source may be read-only; the copy must not be
    return WritableDatabase.openHandle(target, mode, folder);
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (error) => (error ? reject(toDatabaseError(error)) : resolve())));
  }

  all(sql: string): Promise<Record<string, SqlValue>[]> {
    return new Promise((resolve, reject) =>
      this.db.all(sql, (error, rows) => (error ? reject(toDatabaseError(error)) : resolve(rows as Record<string, SqlValue>[]))),
    );
  }

  /** The plan SQLite would run here (an index experiment's what-if plan), as the typed plan tree. */
  async explainPlan(body: string): Promise<PlanNode[]> {
    return planTreeOfRecords(await this.all(`EXPLAIN QUERY PLAN ${body}`));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.db.close(() => resolve()));
    if (this.tempFolder) {
      fs.rmSync(this.tempFolder, { recursive: true, force: true });
      untrackTemporary(this.tempFolder);
    }
  }
}
