/**
 * Where the attached dataset's databases are, from the settings: `vesLens.engine` sqlite (the files under the
 * dataset's folder) or postgres, on the server of `vesLens.postgres.url` in `vesLens.postgres.layout`, with the
 * password the client keeps in SecretStorage for that URL (asked only when connecting, sealed on its way); with
 * no URL, an embedded PostgreSQL (PGlite) loaded from the dataset's SQLite files; or mysql, a local MariaDB server
 * loaded from them (mysql/localServer.ts). The settings are read here, the engine chosen by app/datasetOpen.ts.
 */
import { chooseDatasetEngine, type DatasetEngine } from '../../app/datasetOpen';
import { Dataset } from '../../shared/protocol';
import { passwordInUrl, passwordScope, SETTING_KEYS, VesLensSettings } from '../../shared/settings';

const SET_PASSWORD = 'run "VES Lens: Set PostgreSQL Password" (kept in VS Code\'s secret storage for this URL)';

/** The dataset's engine as the settings say; `password` asks the client for the one stored for a URL (none asked when the URL holds one). */
export function datasetEngine(
  dataset: Dataset,
  settings: VesLensSettings,
  password: (scope: string) => Promise<string | undefined>,
  storageDir?: string,
): Promise<DatasetEngine> {
  const choice = {
    engine: settings.engine,
    postgresUrl: settings.postgresUrl,
    postgresLayout: settings.postgresLayout,
    storageDir,
    urlSetting: `vesLens.${SETTING_KEYS.postgresUrl}`,
    setPassword: SET_PASSWORD,
  };
  return chooseDatasetEngine(dataset, choice, async (url) =>
    passwordInUrl(url) ? { inUrl: true } : { inUrl: false, stored: await password(passwordScope(url)) },
  );
}
