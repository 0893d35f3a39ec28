/**
 * The language server's process: LSP wired to VesLensService (service.ts), nothing else. Requests and
 * notifications are the typed ones of src/shared/protocol.ts.
 */
import * as path from 'path';
import {
  CancellationToken,
  CodeActionKind,
  CodeLensRefreshRequest,
  createConnection,
  InitializeParams,
  InitializeResult,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  DatasetSummaryRequest,
  EvaluateFileRequest,
  EvaluationProgress,
  ExplainRequest,
  QuestionDocumentRequest,
  QuestionsRequest,
  RuleHintsRequest,
  ScoreRequest,
  SetDatasetRequest,
  SettingsNotification,
  StepProgress,
  TimeQueryRequest,
  TrustNotification,
  VerifyHintRequest,
} from '../shared/protocol';
import { Dataset } from '../shared/protocol';
import { VesLensSettings } from '../shared/settings';
import { CancelledError, UserError, VesLensService } from './service';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const service = new VesLensService({
  documents,
  log: (message) => connection.console.log(message),
  // dist/server.js → docs/rules beside dist (in the .vsix and in the checkout alike).
  docsRoot: path.join(__dirname, '..', 'docs', 'rules'),
});
let canRefreshLenses = false;

connection.onInitialize(async (params: InitializeParams): Promise<InitializeResult> => {
  const options = (params.initializationOptions ?? {}) as { dataset?: Dataset | null; trusted?: boolean; settings?: Partial<VesLensSettings> };
  await service.initialize(options);
  canRefreshLenses = Boolean(params.capabilities.workspace?.codeLens?.refreshSupport);
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      codeLensProvider: { resolveProvider: false },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      hoverProvider: true,
    },
    serverInfo: { name: 'ves-lens-server' },
  };
});

/** Runs a request with the client's cancellation as an AbortSignal, and turns the service's errors into responses. */
async function handle<T>(token: CancellationToken | undefined, run: (signal: AbortSignal) => Promise<T> | T): Promise<T> {
  const abort = new AbortController();
  const listener = token?.onCancellationRequested(() => abort.abort());
  try {
    return await run(abort.signal);
  } catch (error) {
    if (error instanceof CancelledError) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
    if (error instanceof UserError) throw new ResponseError(error.code, error.message);
    connection.console.error(`unexpected error: ${(error as Error)?.stack ?? error}`);
    throw new ResponseError(1, (error as Error)?.message ?? String(error));
  } finally {
    listener?.dispose();
  }
}

// ---- documents ----------------------------------------------------------------------------------------

const pending = new Map<string, NodeJS.Timeout>();
function scheduleDiagnostics(document: TextDocument): void {
  clearTimeout(pending.get(document.uri));
  pending.set(
    document.uri,
    setTimeout(async () => {
      pending.delete(document.uri);
      const version = document.version;
      try {
        const diagnostics = await service.diagnostics(document);
        if (documents.get(document.uri)?.version === version) await connection.sendDiagnostics({ uri: document.uri, version, diagnostics });
      } catch (error) {
        connection.console.error(`diagnostics of ${document.uri} failed: ${(error as Error)?.stack ?? error}`);
      }
    }, 50),
  );
}

/** Everything derived from settings, trust or the dataset, recomputed. */
function refreshAll(lenses = true): void {
  for (const document of documents.all()) scheduleDiagnostics(document);
  if (lenses && canRefreshLenses) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
}

documents.onDidChangeContent((change) => scheduleDiagnostics(change.document));
documents.onDidClose((event) => {
  service.forget(event.document.uri);
  void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
});

connection.onCodeAction(async (params) => {
  const document = documents.get(params.textDocument.uri);
  return document ? service.codeActions(document, params.context.diagnostics) : [];
});
connection.onCodeLens(async (params) => {
  const document = documents.get(params.textDocument.uri);
  return document ? service.codeLenses(document) : [];
});
connection.onHover(async (params) => {
  const document = documents.get(params.textDocument.uri);
  return document ? service.hover(document, params.position) : null;
});

// ---- settings, trust, dataset ---------------------------------------------------------------------------

connection.onNotification(SettingsNotification, (settings) => {
  const changed = service.applySettings(settings);
  if (changed.diagnostics) refreshAll();
  else if (changed.lenses) refreshAll(true);
});
connection.onNotification(TrustNotification, ({ trusted }) => {
  service.setTrust(trusted);
  refreshAll();
});
connection.onRequest(SetDatasetRequest, async (dataset) => {
  const summary = await service.attach(dataset);
  refreshAll();
  return summary;
});
connection.onRequest(DatasetSummaryRequest, () => service.summary());
connection.onRequest(QuestionsRequest, (params) => service.questions(params?.dbId));
connection.onRequest(QuestionDocumentRequest, (params, token) => handle(token, () => service.questionDocument(params.questionId)));

// ---- requests the extension's panels and commands make ----------------------------------------------

const stepReporter = (token?: string | number) => (message: string) => {
  if (token !== undefined) void connection.sendProgress(StepProgress, token, { message });
};

connection.onRequest(ScoreRequest, (params, token) => handle(token, (signal) => service.score(params, signal, stepReporter(params.progressToken))));
connection.onRequest(ExplainRequest, (params, token) => handle(token, () => service.explain(params)));
connection.onRequest(TimeQueryRequest, (params, token) => handle(token, (signal) => service.timeQuery(params, signal, stepReporter(params.progressToken))));
connection.onRequest(VerifyHintRequest, (params, token) => handle(token, (signal) => service.verifyHint(params, signal)));
connection.onRequest(RuleHintsRequest, (params, token) => handle(token, () => service.ruleHints(params)));
connection.onRequest(EvaluateFileRequest, (params, token) =>
  handle(token, (signal) =>
    service.evaluateFile(params, signal, (rows, done, total) => {
      if (params.progressToken === undefined) return;
      const last = rows.at(-1);
      void connection.sendProgress(EvaluationProgress, params.progressToken, {
        message: `${done}/${total}${last ? `: question ${last.question_id} ${last.outcome.replace('_', ' ')}` : ''}`,
        percentage: Math.round((done / Math.max(1, total)) * 100),
        rows,
      });
    }),
  ),
);

connection.onShutdown(() => service.dispose());
documents.listen(connection);
connection.listen();
