import * as sqlite3 from '@vscode/sqlite3';
import { RunLimits } from '../database';
import { DatabaseEngine, TimedQuantity } from '../engine';
import { SqliteConnection } from './sqliteConnection';

let version: Promise<string> | undefined;

/** SQLite files, through node-sqlite3: the first engine. */
export const sqliteEngine: DatabaseEngine = {
  name: 'sqlite',

  version(): Promise<string> {
    version ??= new Promise<string>((resolve, reject) => {
      const db = new sqlite3.Database(':memory:');
      db.get('SELECT sqlite_version() AS v', (error, result: { v: string }) => {
        db.close();
        if (error) reject(error);
        else resolve(result.v);
      });
    });
    return version;
  },

  open(target: string): Promise<SqliteConnection> {
    return SqliteConnection.open(sqliteEngine, target);
  },

  /** `first-row` is node-sqlite3's get(), since each() hands its first row over late. */
  async timeExecution(target: string, body: string, quantity: TimedQuantity, limits: RunLimits = {}): Promise<number> {
    const db = await SqliteConnection.open(sqliteEngine, target);
    let closed = false;
    try {
      const start = performance.now();
      if (quantity === 'first-row') {
        await db.firstRow(body, limits);
        return performance.now() - start;
      }
      await db.drain(body, limits);
      await db.close();
      closed = true;
      return performance.now() - start;
    } finally {
      if (!closed) await db.close();
    }
  },
};
