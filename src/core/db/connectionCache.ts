import { unreachableDatabase } from '../bird/layout';
import { databaseFileProblem } from './databaseFile';
import { ServerUnavailable } from './database';
import { DatabaseConnection } from './engine';
import { openDatabase } from './engines';
import { readSchema, SchemaInfo } from './schema';
import { DatabaseSource, sqliteFolder } from './source';

/** A database that cannot be used, and why: the one message every feature shows for it. */
export class DatabaseUnavailable extends Error {
  /** The database's server cannot be reached or went away (nothing else on it can run either). */
  readonly serverUnavailable: boolean;

  constructor(
    readonly reason: 'no-database-named' | 'not-found' | 'cannot-open',
    readonly target: string,
    cause?: string | Error,
  ) {
    super(
      reason === 'no-database-named'
        ? 'the question names no database: no db_id in the question file or its gold line'
        : reason === 'not-found'
          ? `database not found: ${target}`
          : `cannot open ${target}: ${cause instanceof Error ? cause.message : cause}`,
    );
    this.serverUnavailable = cause instanceof ServerUnavailable;
  }
}

export interface OpenConnection {
  db: DatabaseConnection;
  /** The target it was opened on (a SQLite file path, a connection URL without password). */
  path: string;
}

export interface ConnectionCacheOptions {
  /** Where the dataset's databases are (forQuestion); default: SQLite files under the working folder. */
  source?: DatabaseSource;
  forgetFailures?: boolean;
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
  /**
   * What forQuestion found of each question database (there, or why not), kept for the run: the file system (or
   * server) is asked once per database, not once per question. Not kept where failures are forgotten (the editor,
   * where a file may appear or go at any time). Keyed by the
   * database's name: in a one-database layout every name shares one target, where each has its own schema.
   */
  private readonly looked = new Map<string, DatabaseUnavailable | 'there'>();

  constructor(
    private readonly prepare: (connection: OpenConnection) => Promise<Opened>,
    private readonly options: ConnectionCacheOptions = {},
  ) {}

  /** Connections only (the eval engine reads no schema). */
  static connections(options: ConnectionCacheOptions = {}): ConnectionCache<OpenConnection> {
    return new ConnectionCache(async (connection) => connection, options);
  }

  /** Connections with their schema, read once. */
  static withSchema(options: ConnectionCacheOptions = {}): ConnectionCache<OpenDatabase> {
    return new ConnectionCache(async (connection) => ({ ...connection, schema: await readSchema(connection.db) }), options);
  }

  /** A database by its target (a SQLite file path, a connection URL); rejects with DatabaseUnavailable. */
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
      throw new DatabaseUnavailable('cannot-open', target, error as Error);
    }
    try {
      return await this.prepare({ db, path: target });
    } catch (error) {
      await db.close();
      throw new DatabaseUnavailable('cannot-open', target, error as Error);
    }
  }

  /**
   * The database a question names, where the dataset's source keeps it (BIRD's folder layout, a server's
   * layout); the reason it cannot be used instead of throwing, so batch features can skip the question and go on.
   */
  async forQuestion(dbId: string): Promise<Opened | DatabaseUnavailable> {
    if (!dbId) return new DatabaseUnavailable('no-database-named', '');
    const source = this.options.source ?? sqliteFolder('');
    let found = this.looked.get(dbId);
    if (found === undefined) {
      found = (await this.whyMissing(source, dbId)) ?? 'there';
      if (!this.options.forgetFailures) this.looked.set(dbId, found);
    }
    if (found !== 'there') return found;
    return this.open(source.targetFor(dbId)).catch((error: DatabaseUnavailable) => error);
  }

  /** Why a question's database cannot be opened before trying: not there, or there but unreachable; undefined when there. */
  private async whyMissing(source: DatabaseSource, dbId: string): Promise<DatabaseUnavailable | undefined> {
    try {
      if (await source.exists(dbId)) {
        // A file that is there but holds no SQLite database (a zip, a copy cut short): SQLite would open it and fail
        // at every query, each question a gold error scored 0; it is unusable, named, and its questions not scored.
        const broken = source.engine.name === 'sqlite' ? databaseFileProblem(source.targetFor(dbId)) : undefined;
        return broken ? new DatabaseUnavailable('cannot-open', source.label(dbId), broken) : undefined;
      }
      // A file that is there but cannot be reached (a symlink loop) is said for what it is, not "not found".
      const unreachable = source.engine.name === 'sqlite' ? unreachableDatabase(source.targetFor(dbId)) : undefined;
      return unreachable
        ? new DatabaseUnavailable('cannot-open', source.label(dbId), unreachable)
        : new DatabaseUnavailable('not-found', source.label(dbId));
    } catch (error) {
      return new DatabaseUnavailable('cannot-open', source.label(dbId), error as Error);
    }
  }

  /** Closes every open connection; the cache starts empty again. */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    this.looked.clear();
    for (const entry of entries) await entry.then((opened) => opened.db.close()).catch(() => undefined);
  }
}
