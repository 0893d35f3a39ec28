/**
 * The load use case (`ves-lens load`, cli/loadCommand.ts): the SQLite databases of a BIRD folder copied into a
 * server, PostgreSQL (in one database, a schema each, or a database each) or MySQL (every table in one database,
 * as the official dump). `prepareLoadRun` tells the server from the URL and checks the layout before any work;
 * `runLoadRun` loads and returns the typed report; the face renders it. A load core refuses (a database missing,
 * tables there already without `replace`, a server that cannot be reached) is a RunRefused with core's message.
 */
import { isMysqlTarget, redactMysqlUrl } from '../core/db/mysql/connectionTarget';
import { loadIntoMysqlServer, MysqlServerLoad } from '../core/db/mysql/loadTarget';
import { redactUrl } from '../core/db/postgres/connectionTarget';
import { LOAD_LAYOUTS, LoadError, loadFromSqlite, LoadLayout, LoadProgress, LoadReport } from '../core/db/postgres/loadFromSqlite';
import { openServerTarget } from '../core/db/postgres/loadTarget';
import { RunRefused } from './runRefused';

export interface LoadRunSettings {
  /** The BIRD database root: `<from>/<db_id>/<db_id>.sqlite`. */
  from: string;
  /** The server's URL (postgresql://… or mysql://…). */
  to: string;
  /** The db_ids to load; default: every database under `from`. */
  dbIds?: readonly string[];
  /** How a PostgreSQL copy lays the databases out (one-database, schema, database). */
  layout: string;
  /** Drop and reload the tables the server has already. */
  replace?: boolean;
}

export interface PreparedLoadRun {
  settings: LoadRunSettings;
  server: 'postgres' | 'mysql';
  layout: LoadLayout;
  /** The server's URL without its password, for what the face says. */
  target: string;
}

export type LoadedRun =
  | { server: 'postgres'; report: LoadReport; /** Databases the load created on the server. */ created: string[] }
  | { server: 'mysql'; report: MysqlServerLoad };

/** Which server the URL names, with the layout checked against it (RunRefused naming --layout). */
export function prepareLoadRun(settings: LoadRunSettings): PreparedLoadRun {
  if (isMysqlTarget(settings.to)) {
    if (settings.layout !== 'one-database')
      throw new RunRefused('--layout', 'a MySQL copy holds every database in one database, as the official dump (one-database)');
    return { settings, server: 'mysql', layout: 'one-database', target: redactMysqlUrl(settings.to) };
  }
  if (!(LOAD_LAYOUTS as readonly string[]).includes(settings.layout))
    throw new RunRefused('--layout', `expected ${LOAD_LAYOUTS.join(', ')}, got "${settings.layout}"`);
  return { settings, server: 'postgres', layout: settings.layout as LoadLayout, target: redactUrl(settings.to) };
}

/** Loads the databases; `onProgress` hears each table of a PostgreSQL load with the rows done of all. */
export async function runLoadRun(run: PreparedLoadRun, onProgress?: (progress: LoadProgress) => void): Promise<LoadedRun> {
  const { from, to, dbIds, replace } = run.settings;
  try {
    if (run.server === 'mysql') return { server: 'mysql', report: await loadIntoMysqlServer(to, { from, dbIds, replace }) };
    const target = await openServerTarget(to);
    try {
      const report = await loadFromSqlite(target, { from, dbIds, layout: run.layout, replace, onProgress });
      return { server: 'postgres', report, created: target.created };
    } finally {
      await target.close().catch(() => undefined);
    }
  } catch (error) {
    throw error instanceof LoadError ? new RunRefused('load', error.message, error.message) : error;
  }
}
