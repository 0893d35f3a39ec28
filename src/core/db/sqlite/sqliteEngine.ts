import { RunLimits } from '../database';
import { DatabaseEngine, TimedQuantity } from '../engine';
import { sqliteBuild } from './sqliteBuild';
import { SqliteConnection } from './sqliteConnection';

/** SQLite files, through node-sqlite3 or, where its native module does not load, SQLite compiled to WebAssembly. */
export const sqliteEngine: DatabaseEngine = {
  name: 'sqlite',

  version(): Promise<string> {
    return sqliteBuild().driver.version();
  },

  open(target: string): Promise<SqliteConnection> {
    return SqliteConnection.open(sqliteEngine, target);
  },

  /** `first-row` is the driver's get(), since node-sqlite3's each() hands its first row over late. */
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
