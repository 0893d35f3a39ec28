import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { Commands, Dataset, DatasetSummary, Notifications, Requests } from '../shared/protocol';
import { attachDataset, savedDataset } from './dataset';
import { BirdExplorer } from './explorer';
import { registerPanelCommands } from './panels';
import { StatusBar } from './statusBar';

let client: LanguageClient | undefined;

/** What the rest of the extension needs: the running client, and a way to re-read the dataset. */
export interface Context {
  client: LanguageClient;
  extension: vscode.ExtensionContext;
  refresh(summary: DatasetSummary): void;
}

function config() {
  const c = vscode.workspace.getConfiguration('vesLens');
  return {
    timeoutMs: c.get<number>('timeoutSeconds', 30) * 1000,
    maxRows: c.get<number>('maxRows', 500_000),
    defaultDatabase: c.get<string>('defaultDatabase') || undefined,
    codeLens: c.get<boolean>('codeLens.enabled', true),
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<{ client: LanguageClient }> {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const dataset = savedDataset(context);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { language: 'sql' },
      { language: 'json', scheme: 'file' },
      { language: 'json', scheme: 'untitled' },
    ],
    initializationOptions: { dataset, trusted: vscode.workspace.isTrusted, ...config() },
    middleware: {
      // Code lenses can be switched off without restarting the server.
      provideCodeLenses: (document, token, next) => (config().codeLens ? next(document, token) : []),
    },
  };
  client = new LanguageClient('vesLens', 'VES Lens', serverOptions, clientOptions);
  await client.start();

  const statusBar = new StatusBar();
  const explorer = new BirdExplorer(client);
  const ctx: Context = {
    client,
    extension: context,
    refresh: (summary) => {
      statusBar.show(summary);
      explorer.refresh(summary);
    },
  };
  context.subscriptions.push(
    statusBar,
    vscode.window.registerTreeDataProvider('vesLens.explorer', explorer),
    vscode.commands.registerCommand(Commands.attachDataset, async (preset?: Dataset) => {
      const chosen = preset ?? (await attachDataset(context));
      if (chosen === undefined) return;
      await context.workspaceState.update('vesLens.dataset', chosen);
      ctx.refresh(await ctx.client.sendRequest<DatasetSummary>(Requests.setDataset, chosen));
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => client?.sendNotification(Notifications.trust, { trusted: true, defaultDatabase: config().defaultDatabase })),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('vesLens')) client?.sendNotification(Notifications.trust, { trusted: vscode.workspace.isTrusted, defaultDatabase: config().defaultDatabase });
    }),
  );
  registerPanelCommands(ctx);
  ctx.refresh(await client.sendRequest<DatasetSummary>(Requests.datasetSummary));
  return { client };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
