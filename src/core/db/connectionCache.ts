import { databaseExists, databasePath } from '../bird/layout';
import { DatabaseConnection } from './engine';
import { openDatabase } from './engines';
import { readSchema, SchemaInfo } from './schema';

/** A database that cannot be used, and why: the one message every feature shows for it. */
export class DatabaseUnavailable extends Error {
  constructor(
    readonly reason: 'no-database-named' | 'not-found' | 'cannot-open',
    readonly target: string,
    cause?: string,
  ) {
    super(
      reason === 'no-database-named'
        ? 'the question names no database: no db_id in the question file or its gold line'
        : reason === 'not-found'
          ? `database not found: ${target}`
          : `cannot open ${target}: ${cause}`,
    );
  }
}

export interface OpenConnection {
  db: DatabaseConnection;
  /** The target it was opened on (a SQLite file path). */
  path: string;
}

export interface OpenDatabase extends OpenConnection {
  schema: SchemaInfo;
}

/**
 * The databases of one dataset, each opened once and kept open until closeAll(). A database that cannot be
 * opened is remembered with why (DatabaseUnavailable), so every question on it is skipped with the same
 * message; `forgetFailures` tries again next time instead (the editor, where a missing file may appear).
 * `prepare` is what is read once per database besides the connection (see ConnectionCache.withSchema).
 */
export class ConnectionCache<Opened extends OpenConnection = OpenConnection> {
  private readonly entries = new Map<string, Promise<Opened>>();

  constructor(
    private readonly prepare: (connection: OpenConnection) => Promise<Opened>,
    private readonly options: { dbRoot?: string; forgetFailures?: boolean } = {},
  ) {}

  /** Connections only (the eval engine reads no schema). */
  static connections(options: { dbRoot?: string; forgetFailures?: boolean } = {}): ConnectionCache<OpenConnection> {
    return new ConnectionCache(async (connection) => connection, options);
  }

  /** Connections with their schema, read once. */
  static withSchema(options: { dbRoot?: string; forgetFailures?: boolean } = {}): ConnectionCache<OpenDatabase> {
    return new ConnectionCache(async (connection) => ({ ...connection, schema: await readSchema(connection.db) }), options);
  }

  /** A database by its target (a SQLite file path); rejects with DatabaseUnavailable. */
  open(target: string): Promise<Opened> {
    let entry = this.entries.get(target);
    if (!entry) {
      entry = this.openOnce(target);
      if (this.options.forgetFailures) entry.catch(() => this.entries.delete(target));
      this.entries.set(target, entry);
    }
    return entry;
  }

  private async openOnce(target: string): Promise<Opened> {
    let db: DatabaseConnection;
    try {
      db = await openDatabase(target);
    } catch (error) {
      throw new DatabaseUnavailable('cannot-open', target, (error as Error).message);
    }
    try {
      return await this.prepare({ db, path: target });
    } catch (error) {
      await db.close();
      throw new DatabaseUnavailable('cannot-open', target, (error as Error).message);
    }
  }

  /**
   * The database a question names, in BIRD's folder layout under the dataset's dbRoot; the reason it cannot
   * be used instead of throwing, so batch features can skip the question and go on.
   */
  async forQuestion(dbId: string): Promise<Opened | DatabaseUnavailable> {
    if (!dbId) return new DatabaseUnavailable('no-database-named', '');
    const dbRoot = this.options.dbRoot ?? '';
    if (!databaseExists(dbRoot, dbId)) return new DatabaseUnavailable('not-found', databasePath(dbRoot, dbId));
    return this.open(databasePath(dbRoot, dbId)).catch((error: DatabaseUnavailable) => error);
  }

  /** Closes every open connection; the cache starts empty again. */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) await entry.then((opened) => opened.db.close()).catch(() => undefined);
  }
}
