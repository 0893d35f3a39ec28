/**
 * The database a use case on one query works on (explain, hints, index advice, reranking one question's
 * candidates): a SQLite file, or a db_id on a server (or on an embedded copy loaded from SQLite files), opened
 * read-only and checked readable before any work, with what runs it and how it is named. Every failure is a
 * RunRefused naming the option and the file or server, never a stack trace for a wrong path.
 */
import type { DatabaseConnection } from '../core/db/engine';
import { engineFor } from '../core/db/engines';
import { databaseFileProblem } from '../core/db/databaseFile';
import { readSchema } from '../core/db/schema';
import { DatabaseSource, EngineDescription, sqliteDescription } from '../core/db/source';
import { engineLine } from '../core/text/engineText';
import type { SchemaInfo } from '../core/sql/catalog';
import { RunRefused, serverUnreachable } from './runRefused';

/** An open database of a one-query use case: the connection, what runs it, and how it is named. */
export interface QueryDatabase {
  db: DatabaseConnection;
  engine: EngineDescription;
  /** The SQLite file, or the server's database (its URL without password, and the db_id's schema or database). */
  label: string;
}

/** How a failure names the server engines. */

/**
 * Opens a SQLite file read-only, or refuses it naming `option` and the file with what it is (a folder, an empty
 * file, JSON, not a database, a damaged one).
 */
async function openDatabaseFile(file: string, option = '--db'): Promise<DatabaseConnection> {
  const refuse = (reason: string) => new RunRefused(option, `${file}: ${reason}`);
  const problem = databaseFileProblem(file);
  if (problem) throw refuse(problem);
  let db: DatabaseConnection;
  try {
    db = await engineFor(file).open(file);
  } catch (error) {
    throw refuse((error as Error).message);
  }
  try {
    await db.checkReadable();
  } catch (error) {
    await db.close();
    throw refuse((error as Error).message);
  }
  return db;
}

/** A SQLite file as a one-query database (RunRefused naming --db when it cannot be read). */
export async function openQueryFile(file: string): Promise<QueryDatabase> {
  const db = await openDatabaseFile(file);
  return { db, engine: await sqliteDescription(file), label: file };
}

/**
 * A db_id of a server (or of an embedded copy loaded from a SQLite file, `loadedFrom`) as a one-query database:
 * the server reached, the database there, opened and readable, each failure a RunRefused naming --db-url, --db
 * or --engine. `oneDatabase`: the server's one-database layout, where the server's own database is the label.
 */
export async function openQueryServer(
  source: DatabaseSource,
  dbId: string,
  where: { loadedFrom?: string; oneDatabase: boolean },
): Promise<QueryDatabase> {
  const engine = await source.describe().catch((error: Error) => {
    throw where.loadedFrom ? new RunRefused(`--engine ${source.engine.name}`, error.message) : serverUnreachable(source, '--db-url', error);
  });
  if (!(await source.exists(dbId).catch(() => false))) throw new RunRefused('--db', `not found: ${source.label(dbId)}`);
  const label = where.oneDatabase && !where.loadedFrom ? engine.location : source.label(dbId);
  let db: DatabaseConnection;
  try {
    db = await source.engine.open(source.targetFor(dbId));
    await db.checkReadable();
  } catch (error) {
    throw new RunRefused('--db-url', `${label}: ${(error as Error).message}`);
  }
  return { db, engine, label };
}

/** The first line of a use case's output: what runs the SQL, and on which database. */
export function queryDatabaseLine(opened: QueryDatabase): string {
  return opened.engine.engine === 'sqlite' ? `SQLite ${opened.engine.version} · ${opened.label}` : engineLine(opened.engine);
}

/** The schema of an open database; a damaged one is a RunRefused naming `option` and the database. */
export async function querySchema(db: DatabaseConnection, option = '--db'): Promise<SchemaInfo> {
  try {
    return await readSchema(db);
  } catch (error) {
    throw new RunRefused(option, `${db.path}: ${(error as Error).message}`);
  }
}
