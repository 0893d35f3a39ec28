import type * as sqlite3 from '@vscode/sqlite3';
import { SqliteDriver, SqliteHandle, SqliteOpenSettings, SqliteRecord, PREPARE_FAILURES } from './sqliteHandle';

let loaded: typeof sqlite3 | Error | undefined;

/**
 * node-sqlite3, loaded on first use rather than at start-up: a binary built for another platform, Node ABI or C
 * library fails here, with its reason, and the language server and the command line go on without it.
 */
export function nativeSqlite(): typeof sqlite3 {
  if (loaded === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require('@vscode/sqlite3') as typeof sqlite3;
    } catch (error) {
      loaded = error as Error;
    }
  }
  if (loaded instanceof Error) throw loaded;
  return loaded;
}

/** Why node-sqlite3 does not load here (its loader's first line), or undefined when it does. */
export function nativeSqliteProblem(): string | undefined {
  try {
    nativeSqlite();
    return undefined;
  } catch (error) {
    return ((error as Error).message ?? String(error)).split('\n')[0];
  }
}

class NativeHandle implements SqliteHandle {
  constructor(private readonly db: sqlite3.Database) {}

  all(sql: string): Promise<SqliteRecord[]> {
    return new Promise((resolve, reject) => this.db.all(sql, (error, rows) => (error ? reject(error) : resolve(rows as SqliteRecord[]))));
  }

  get(sql: string): Promise<SqliteRecord | undefined> {
    return new Promise((resolve, reject) =>
      this.db.get(sql, (error, row: SqliteRecord | undefined) => (error ? reject(error) : resolve(row))),
    );
  }

  /**
   * node-sqlite3's each() reports a failure (an interrupt included) to the row callback and calls its completion
   * callback anyway, in either order; finalize() is queued behind the each() on the same statement, so once it
   * has called back the outcome is known for certain. When the prepare itself fails (an interrupt that lands while
   * it reads the schema, at a tiny --timeout), node-sqlite3 drops the queued each() and finalize() without calling
   * either back: the prepare's error settles it then.
   */
  each(sql: string, onRow: (row: SqliteRecord) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let failure: Error | undefined;
      let rowsDone = false;
      let finalized = false;
      const settle = () => {
        if (!finalized) return;
        if (failure) reject(failure);
        else if (rowsDone) resolve();
      };
      const statement = this.db.prepare(sql, (error) => {
        if (!error) return;
        PREPARE_FAILURES.add(error);
        failure ??= error;
        finalized = true;
        settle();
      });
      statement.each(
        (error, row: SqliteRecord) => {
          if (error) failure ??= error;
          else if (!failure) onRow(row);
        },
        () => {
          rowsDone = true;
          settle();
        },
      );
      statement.finalize(() => {
        finalized = true;
        settle();
      });
    });
  }

  interrupt(): void {
    this.db.interrupt();
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.db.close(() => resolve()));
  }
}

let version: Promise<string> | undefined;

/** SQLite through node-sqlite3 (@vscode/sqlite3's native module): the build every target's package carries. */
export const nativeDriver: SqliteDriver = {
  build: 'native',

  async open(file: string, settings: SqliteOpenSettings): Promise<SqliteHandle> {
    const driver = nativeSqlite();
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const handle = new driver.Database(file, driver.OPEN_READONLY, (error) => (error ? reject(error) : resolve(handle)));
    });
    db.configure('limit', driver.LIMIT_LENGTH, settings.lengthLimit);
    db.configure('limit', driver.LIMIT_SQL_LENGTH, settings.sqlLengthLimit);
    db.configure('busyTimeout', settings.busyTimeoutMs);
    return new NativeHandle(db);
  },

  version(): Promise<string> {
    version ??= new Promise<string>((resolve, reject) => {
      const db = new (nativeSqlite().Database)(':memory:');
      db.get('SELECT sqlite_version() AS v', (error, result: { v: string }) => {
        db.close();
        if (error) reject(error);
        else resolve(result.v);
      });
    });
    return version;
  },
};
