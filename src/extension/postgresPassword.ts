import * as vscode from 'vscode';
import { ReconnectRequest } from '../shared/protocol';
import { passwordInUrl, passwordScope, SETTING_KEYS } from '../shared/settings';
import { Ctx, currentSettings } from './ctx';
import { askForSecret, clearSecret, secretStorageKey } from './secrets';

/**
 * "VES Lens: Set PostgreSQL Password" and "... Clear PostgreSQL Password": the password of the server in
 * vesLens.postgres.url, kept in SecretStorage for that URL only (a password is never sent to another server).
 * The language server asks for it when it connects (SecretRequest, sealed), so setting or clearing it
 * reconnects the attached dataset at once.
 */

const URL_SETTING = `vesLens.${SETTING_KEYS.postgresUrl}`;

/** The configured server URL without its password (what the password is stored for), or why there is none. */
function configuredScope(): string | undefined {
  const url = currentSettings().postgresUrl;
  return url ? passwordScope(url) : undefined;
}

async function noUrlYet(): Promise<void> {
  const open = 'Open Settings';
  const choice = await vscode.window.showWarningMessage(
    `VES Lens: ${URL_SETTING} is empty: set the PostgreSQL server first (postgresql://user@host:port/database), then its password.`,
    open,
  );
  if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', URL_SETTING);
}

export async function setPostgresPassword(ctx: Ctx): Promise<void> {
  const scope = configuredScope();
  if (!scope) return noUrlYet();
  const stored = await askForSecret(
    ctx.extension,
    secretStorageKey('postgresPassword', scope)!,
    `The password for ${scope} (${URL_SETTING}). Kept in VS Code's secret storage for this URL only, never in settings.`,
    'VES Lens: PostgreSQL Password',
    'password',
  );
  if (stored) await reconnect(ctx, 'stored');
}

export async function clearPostgresPassword(ctx: Ctx): Promise<void> {
  const scope = configuredScope();
  if (!scope) return noUrlYet();
  await clearSecret(ctx.extension, secretStorageKey('postgresPassword', scope)!);
  await reconnect(ctx, 'removed');
}

/** The attached dataset connected again with the password as it is now, and what came of it. */
async function reconnect(ctx: Ctx, done: 'stored' | 'removed'): Promise<void> {
  const said = `VES Lens: the PostgreSQL password for ${configuredScope()} is ${done === 'stored' ? "stored in VS Code's secret storage" : "removed from VS Code's secret storage"}`;
  const client = await ctx.client();
  const summary = await client.sendRequest(ReconnectRequest);
  await ctx.refreshDataset(summary);
  if (!summary.dataset || currentSettings().engine !== 'postgres') {
    void vscode.window.showInformationMessage(`${said}; it is used once a dataset is attached with vesLens.engine postgres.`);
  } else if (summary.engineError) {
    void vscode.window.showWarningMessage(`${said}, but ${summary.engineError}`);
  } else {
    void vscode.window.showInformationMessage(`${said}; the dataset's SQL runs on ${summary.engine?.line}.`);
  }
}

/**
 * A URL setting that holds a password itself (settings are plain text, often committed): offers to move the
 * password to SecretStorage and to write the setting back without it, where it was set.
 */
export async function offerToMovePasswordFromUrl(ctx: Ctx): Promise<void> {
  const url = currentSettings().postgresUrl;
  const password = passwordInUrl(url);
  if (!password) return;
  const move = 'Move to Secret Storage';
  const choice = await vscode.window.showWarningMessage(
    `VES Lens: ${URL_SETTING} holds a password, and settings are stored as plain text. Move the password to VS Code's secret storage?`,
    move,
  );
  if (choice !== move) return;
  const scope = passwordScope(url);
  await ctx.extension.secrets.store(secretStorageKey('postgresPassword', scope)!, password);
  const configuration = vscode.workspace.getConfiguration('vesLens');
  const inspected = configuration.inspect<string>(SETTING_KEYS.postgresUrl);
  const target =
    inspected?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : inspected?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  // The server reconnects on the setting's change, and asks for the password now stored.
  await configuration.update(SETTING_KEYS.postgresUrl, scope, target);
}
