import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as sqlite3 from '@vscode/sqlite3';
import { SqlValue } from './database';

/**
 * A writable database that is never the user's file: an in-memory schema copy, or a temporary copy of a
 * database file. Index experiments happen here, so the original stays untouched.
 */
export class ScratchDatabase {
  private constructor(
    private readonly db: sqlite3.Database,
    /** Folder to remove on close, for file copies. */
    private readonly tempFolder?: string,
    readonly path = ':memory:',
  ) {}

  static inMemory(): Promise<ScratchDatabase> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(':memory:', (error) => (error ? reject(error) : resolve(new ScratchDatabase(db))));
    });
  }

  /** A temporary copy of `source`; the copy is deleted on close. */
  static async copyOf(source: string): Promise<ScratchDatabase> {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-copy-'));
    const target = path.join(folder, path.basename(source));
    fs.copyFileSync(source, target);
    fs.chmodSync(target, 0o644); // the source may be read-only; the copy must not be
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(target, (error) => (error ? reject(error) : resolve(new ScratchDatabase(db, folder, target))));
    });
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (error) => (error ? reject(error) : resolve())));
  }

  all(sql: string): Promise<Record<string, SqlValue>[]> {
    return new Promise((resolve, reject) => this.db.all(sql, (error, rows) => (error ? reject(error) : resolve(rows as Record<string, SqlValue>[]))));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.db.close(() => resolve()));
    if (this.tempFolder) fs.rmSync(this.tempFolder, { recursive: true, force: true });
  }
}
