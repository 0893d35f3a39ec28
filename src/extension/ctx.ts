import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, State, TransportKind } from 'vscode-languageclient/node';
import {
  Dataset,
  DatasetChangedNotification,
  DatasetSummary,
  DatasetSummaryRequest,
  InitializationOptions,
  QUESTION_SCHEME,
  SecretName,
  SecretRequest,
  SettingsNotification,
  TrustNotification,
} from '../shared/protocol';
import { newSessionKey, SealedSecret, sealSecret, SESSION_KEY_ENV } from '../shared/sealedSecret';
import { readSettings, VesLensSettings } from '../shared/settings';
import { readSecret, secretStorageKey } from './secrets';

export const DATASET_KEY = 'vesLens.dataset';

/** Read from the workspace configuration, checked (shared/settings.ts holds the defaults). */
export function currentSettings(): VesLensSettings {
  const configuration = vscode.workspace.getConfiguration('vesLens');
  return readSettings((key) => configuration.get(key));
}

/** A person can act on this message as it stands (shown without "unexpected"). */
export class ClientUnavailable extends Error {}

/**
 * Owns the language client's lifecycle (as rust-analyzer's ctx.ts does): commands are registered before the
 * server starts and reach it through `client()`, which says clearly why there is none (still starting,
 * failed to start, stopped). Settings and trust go to the server as they change; the server's log goes to the
 * "VES Lens" Output channel. Everything disposable is collected in `subscriptions`.
 */
export class Ctx implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel('VES Lens');
  private languageClient: LanguageClient | undefined;
  private starting: Promise<LanguageClient> | undefined;
  private failure: string | undefined;
  private readonly datasetChanged = new vscode.EventEmitter<DatasetSummary>();
  /** Fires with the dataset summary whenever it changes (status bar, explorer). */
  readonly onDatasetChanged = this.datasetChanged.event;
  lastSummary: DatasetSummary | undefined;
  /** Handlers of the server's requests to the client, set on every client started (a restart makes a new one). */
  private readonly clientSetups: ((client: LanguageClient) => vscode.Disposable)[] = [];
  /** What was registered on the current client: disposed when it stops, so a restart never piles them up. */
  private clientSubscriptions: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    extension.subscriptions.push(this);
    extension.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.languageClient?.sendNotification(TrustNotification, { trusted: true })),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('vesLens')) void this.languageClient?.sendNotification(SettingsNotification, currentSettings());
      }),
    );
    // Another engine or server in the settings: the server reconnects and says what runs the SQL now.
    this.onClientStarted((client) => client.onNotification(DatasetChangedNotification, (summary) => void this.refreshDataset(summary)));
  }

  get savedDataset(): Dataset | null {
    return this.extension.workspaceState.get<Dataset>(DATASET_KEY) ?? null;
  }

  /** Starts the server (once); a failure is kept and said by every command that needs it. */
  start(): Promise<LanguageClient> {
    this.starting ??= this.startClient().catch((error: Error) => {
      this.failure = error?.message ?? String(error);
      this.output.appendLine(`The VES Lens language server failed to start: ${this.failure}`);
      void vscode.window
        .showErrorMessage(`VES Lens: the language server failed to start: ${this.failure}`, 'Show Output', 'Restart')
        .then((choice) => {
          if (choice === 'Show Output') this.output.show();
          if (choice === 'Restart') void this.restart();
        });
      throw error;
    });
    return this.starting;
  }

  private async startClient(): Promise<LanguageClient> {
    const serverModule = this.extension.asAbsolutePath('dist/server.js');
    // Secrets reach the server sealed with a key of this server's lifetime, handed over in its environment (never through LSP).
    const sessionKey = newSessionKey();
    const env = { [SESSION_KEY_ENV]: sessionKey.toString('base64') };
    const serverOptions: ServerOptions = {
      run: { module: serverModule, transport: TransportKind.ipc, options: { env } },
      debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'], env } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { language: 'sql' },
        { language: 'json', scheme: 'file' },
        { language: 'json', scheme: 'untitled' },
        { language: 'sql', scheme: QUESTION_SCHEME },
      ],
      initializationOptions: {
        dataset: this.savedDataset,
        trusted: vscode.workspace.isTrusted,
        settings: currentSettings(),
        storageDir: this.extension.globalStorageUri.fsPath,
      } satisfies InitializationOptions,
      outputChannel: this.output,
    };
    const client = new LanguageClient('vesLens', 'VES Lens', serverOptions, clientOptions);
    this.disposeClientSubscriptions();
    this.clientSubscriptions.push(
      client.onRequest(SecretRequest, ({ name, scope }) => this.sealedSecret(name, scope, sessionKey)),
      client.onDidChangeState((event) => {
        if (event.newState === State.Stopped && this.languageClient === client) {
          this.output.appendLine('The VES Lens language server stopped.');
        }
      }),
    );
    await client.start();
    for (const setup of this.clientSetups) this.clientSubscriptions.push(setup(client));
    this.languageClient = client;
    this.failure = undefined;
    await this.refreshDataset(await client.sendRequest(DatasetSummaryRequest));
    return client;
  }

  /** Registers handlers of the server's requests on the running client and on every one started later. */
  onClientStarted(setup: (client: LanguageClient) => vscode.Disposable): void {
    this.clientSetups.push(setup);
    if (this.languageClient) this.clientSubscriptions.push(setup(this.languageClient));
  }

  private disposeClientSubscriptions(): void {
    for (const subscription of this.clientSubscriptions.splice(0)) subscription.dispose();
  }

  /** A secret of SecretStorage, sealed for the server that asks (only the names SECRET_KEYS lists; null when none is stored). */
  private async sealedSecret(name: SecretName, scope: string | undefined, sessionKey: Buffer): Promise<SealedSecret | null> {
    const key = secretStorageKey(name, scope);
    const value = key ? await readSecret(this.extension, key) : undefined;
    return value ? sealSecret(value, sessionKey) : null;
  }

  /** The running client; or an error that says why there is none. */
  async client(): Promise<LanguageClient> {
    if (this.languageClient?.isRunning()) return this.languageClient;
    if (this.failure)
      throw new ClientUnavailable(
        `the language server failed to start (${this.failure}); see Output → VES Lens, or run "VES Lens: Restart the Language Server"`,
      );
    if (!this.starting) throw new ClientUnavailable('the language server is not running; run "VES Lens: Restart the Language Server"');
    try {
      return await this.starting;
    } catch {
      throw new ClientUnavailable(`the language server failed to start (${this.failure}); see Output → VES Lens`);
    }
  }

  async restart(): Promise<void> {
    const previous = this.languageClient;
    this.languageClient = undefined;
    this.starting = undefined;
    this.failure = undefined;
    this.disposeClientSubscriptions();
    await previous?.stop().catch(() => undefined);
    await this.start().catch(() => undefined);
  }

  async refreshDataset(summary: DatasetSummary): Promise<void> {
    this.lastSummary = summary;
    await vscode.commands.executeCommand('setContext', 'vesLens.datasetAttached', Boolean(summary.dataset));
    this.datasetChanged.fire(summary);
  }

  /** Stops the server and waits for it (deactivation). */
  async shutdown(): Promise<void> {
    const client = this.languageClient;
    this.languageClient = undefined;
    this.disposeClientSubscriptions();
    await client?.stop().catch(() => undefined);
  }

  dispose(): void {
    void this.shutdown();
    this.datasetChanged.dispose();
    this.output.dispose();
  }
}
