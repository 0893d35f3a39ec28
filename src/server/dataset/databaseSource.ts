/**
 * Where the attached dataset's databases are, from the settings: `vesLens.engine` sqlite (the files under the
 * dataset's folder) or postgres, on the server of `vesLens.postgres.url` in `vesLens.postgres.layout`, with the
 * password the client keeps in SecretStorage for that URL (asked only when connecting, sealed on its way); with
 * no URL, an embedded PostgreSQL (PGlite) loaded from the dataset's SQLite files; or mysql, a local MariaDB server
 * loaded from them (mysql/localServer.ts).
 */
import * as path from 'path';
import { embeddedPostgres } from '../../core/db/pglite/embeddedSource';
import { isPostgresTarget, redactText, redactUrl } from '../../core/db/postgres/connectionTarget';
import { localMysql, postgresServer, sqliteFolder } from '../../core/db/source';
import { localServerMissing } from '../../core/db/mysql/localServer';
import { Dataset } from '../../shared/protocol';
import { passwordInUrl, passwordScope, SETTING_KEYS, VesLensSettings } from '../../shared/settings';
import { DatasetDatabases } from '../datasetState';

/** How long a server gets to answer when the dataset connects (a host that drops packets never refuses), as libpq's usual connect_timeout. */
const CONNECT_MS = 10_000;
const EMBEDDED_LOAD_MS = 30 * 60_000;

const SET_PASSWORD = 'run "VES Lens: Set PostgreSQL Password" (kept in VS Code\'s secret storage for this URL)';

export interface DatasetEngine {
  databases: DatasetDatabases;
  /** Whether the SQL runs on the dataset's SQLite folder (or on a copy loaded from it): without it the dataset is unusable. */
  needsDbRoot: boolean;
  withinMs: number;
  /** A failure to reach the engine, worded with what to do. */
  explainFailure(error: Error): string;
}

/** The dataset's engine as the settings say; `password` asks the client for the one stored for a URL. */
export async function datasetEngine(
  dataset: Dataset,
  settings: VesLensSettings,
  password: (scope: string) => Promise<string | undefined>,
  storageDir?: string,
): Promise<DatasetEngine> {
  const asIs = (error: Error) => error.message;
  if (settings.engine === 'sqlite') {
    return { databases: { source: sqliteFolder(dataset.dbRoot) }, needsDbRoot: true, withinMs: CONNECT_MS, explainFailure: asIs };
  }
  if (settings.engine === 'mysql') {
    // A local MariaDB server loaded from the dataset's SQLite files (kept in the extension's storage), started for the session.
    const missing = localServerMissing();
    if (missing) return { databases: { failure: missing }, needsDbRoot: true, withinMs: CONNECT_MS, explainFailure: asIs };
    return {
      databases: { source: localMysql(dataset.dbRoot, { cacheDir: storageDir && path.join(storageDir, 'mariadb') }) },
      needsDbRoot: true,
      withinMs: EMBEDDED_LOAD_MS,
      explainFailure: asIs,
    };
  }
  const url = settings.postgresUrl;
  const setting = `vesLens.${SETTING_KEYS.postgresUrl}`;
  const failed = (failure: string): DatasetEngine => ({
    databases: { failure },
    needsDbRoot: false,
    withinMs: CONNECT_MS,
    explainFailure: asIs,
  });
  if (!url) {
    // No server: an embedded PostgreSQL loaded from the dataset's SQLite files, its copy kept in the extension's storage.
    const layout = settings.postgresLayout === 'schema' ? 'schema' : 'one-database';
    return {
      databases: { source: embeddedPostgres(dataset.dbRoot, { layout, cacheDir: storageDir && path.join(storageDir, 'pglite') }) },
      needsDbRoot: true,
      // Loading a large database into the embedded copy (once: it is kept) may take minutes.
      withinMs: EMBEDDED_LOAD_MS,
      explainFailure: (error) => error.message.replace(/^--db-root: /, ''),
    };
  }
  if (!isPostgresTarget(url)) return failed(`${setting}: expected postgresql://user@host:port/database, got "${redactText(url)}"`);
  const shown = redactUrl(url);
  try {
    const stored = passwordInUrl(url) ? undefined : await password(passwordScope(url));
    return {
      databases: { source: postgresServer(stored ? withPassword(url, stored) : url, settings.postgresLayout) },
      needsDbRoot: false,
      withinMs: CONNECT_MS,
      explainFailure: (error) =>
        !/password/i.test(error.message)
          ? `PostgreSQL at ${shown} cannot be used: ${error.message}. Check ${setting} and that the server runs.`
          : stored || passwordInUrl(url) || process.env.PGPASSWORD
            ? `PostgreSQL at ${shown}: ${error.message}: ${SET_PASSWORD}`
            : // node-postgres's own words for it ("client password must be a string") say nothing to a person.
              `PostgreSQL at ${shown} asks for a password, and none is stored for this URL: ${SET_PASSWORD}`,
    };
  } catch (error) {
    return failed(`${setting}: ${redactText((error as Error).message)}`);
  }
}

/** The URL with a password in its parameters, where core takes it out again and keeps it for connections only. */
function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('password', password);
  return parsed.toString();
}
