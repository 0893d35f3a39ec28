import { RunLimits } from './database';
import { DatabaseConnection, DatabaseEngine, TimedQuantity } from './engine';
import { isMysqlTarget } from './mysql/connectionTarget';
import { mysqlEngine } from './mysql/mysqlEngine';
import { isEmbeddedTarget, pgliteEngine } from './pglite/pgliteEngine';
import { isPostgresTarget } from './postgres/connectionTarget';
import { postgresEngine } from './postgres/postgresEngine';
import { sqliteEngine } from './sqlite/sqliteEngine';

/**
 * The engine that serves a target: PostgreSQL for `postgres://` and `postgresql://` URLs, the embedded PostgreSQL
 * for `pglite:` targets (pglite/pgliteEngine.ts), MySQL / MariaDB for `mysql://` URLs, SQLite for a file path.
 */
export function engineFor(target: string): DatabaseEngine {
  if (isMysqlTarget(target)) return mysqlEngine;
  return isPostgresTarget(target) ? postgresEngine : isEmbeddedTarget(target) ? pgliteEngine : sqliteEngine;
}

/** A read-only connection to a database, by the engine that serves it. */
export function openDatabase(target: string): Promise<DatabaseConnection> {
  return engineFor(target).open(target);
}

/** One execution on a fresh connection, timed as the official scripts time it (DatabaseEngine.timeExecution). */
export function timeExecution(target: string, body: string, quantity: TimedQuantity, limits: RunLimits = {}): Promise<number> {
  return engineFor(target).timeExecution(target, body, quantity, limits);
}

/** The SQLite library version (reports name it: plans and speed depend on it); asked once per process. */
export function sqliteVersion(): Promise<string> {
  return sqliteEngine.version();
}
