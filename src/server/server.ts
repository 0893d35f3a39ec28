/**
 * The language server's process: LSP wired to VesLensService (service.ts), nothing else. Requests and
 * notifications are the typed ones of src/shared/protocol/.
 */
import * as path from 'path';
import {
  CancellationToken,
  CancellationTokenSource,
  CodeActionKind,
  CodeLensRefreshRequest,
  createConnection,
  InitializeParams,
  InitializeResult,
  LSPErrorCodes,
  ProposedFeatures,
  RequestType,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  AuditGoldRequest,
  AuditProgress,
  ChatCompletionRequest,
  CompareReportsRequest,
  CounterexampleRequest,
  DatasetChangedNotification,
  DatasetSummaryRequest,
  EvaluateFileRequest,
  EvaluationProgress,
  ExplainRequest,
  IndexAdviceRequest,
  JudgeConsentRequest,
  JudgeRequest,
  OptimizeRequest,
  QuestionDocumentRequest,
  QuestionsRequest,
  ReconnectRequest,
  RuleHintsRequest,
  ScoreRequest,
  SetDatasetRequest,
  SettingsNotification,
  StepProgress,
  TimeQueryRequest,
  TrustNotification,
  VerifyHintRequest,
  VesLensErrorCodes,
  InitializationOptions,
  SecretRequest,
} from '../shared/protocol';
import { SESSION_KEY_ENV, unsealSecret } from '../shared/sealedSecret';
import { redactSecrets } from '../core/text/redact';
import { CancelledError, UserError } from './errors';
import { VesLensService } from './service';

const connection = createConnection(ProposedFeatures.all);
// The key secrets come sealed with (sealedSecret.ts): read once, and kept from anything this process might start.
const sessionKey = process.env[SESSION_KEY_ENV] ? Buffer.from(process.env[SESSION_KEY_ENV], 'base64') : undefined;
delete process.env[SESSION_KEY_ENV];
const documents = new TextDocuments(TextDocument);
const service = new VesLensService({
  documents,
  log: (message) => connection.console.log(redactSecrets(message)),
  // dist/server.js → docs/rules beside dist (in the .vsix and in the checkout alike).
  docsRoot: path.join(__dirname, '..', 'docs', 'rules'),
  // A client that gave no session key gets no secret asked of it (it could only answer in the clear).
  secret: async (name, scope) => {
    if (!sessionKey) return undefined;
    try {
      const sealed = await connection.sendRequest(SecretRequest, { name, scope });
      return sealed ? unsealSecret(sealed, sessionKey) : undefined;
    } catch (error) {
      connection.console.error(`the client gave no ${name}: ${(error as Error)?.message ?? error}`);
      return undefined;
    }
  },
  // The Judge's consent lives with the person: asked of the client just before a first real request.
  consent: (endpoint, signal) => requestClient(JudgeConsentRequest, endpoint, signal),
  // The Judge's vscode.lm models live in the extension host: each completion is asked of the client.
  chat: (params, signal) => requestClient(ChatCompletionRequest, params, signal),
});

/** A request to the client, cancelled with `signal`. */
async function requestClient<P, R>(type: RequestType<P, R, void>, params: P, signal?: AbortSignal): Promise<R> {
  const cancel = new CancellationTokenSource();
  const onAbort = () => cancel.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await connection.sendRequest(type, params, cancel.token);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
}
let canRefreshLenses = false;

connection.onInitialize(async (params: InitializeParams): Promise<InitializeResult> => {
  const options = (params.initializationOptions ?? {}) as InitializationOptions;
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
    if (error instanceof UserError) throw new ResponseError(error.code, redactSecrets(error.message));
    connection.console.error(redactSecrets(`unexpected error: ${(error as Error)?.stack ?? error}`));
    throw new ResponseError(VesLensErrorCodes.failed, redactSecrets((error as Error)?.message ?? String(error)));
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

function refreshDiagnostics(): void {
  for (const document of documents.all()) scheduleDiagnostics(document);
}

function refreshLenses(): void {
  if (canRefreshLenses) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
}

/** Everything derived from trust or the dataset, recomputed. */
function refreshAll(): void {
  refreshDiagnostics();
  refreshLenses();
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
  // A client that can refresh lenses gets them before the hints are counted, and a refresh once they are.
  return document ? service.codeLenses(document, canRefreshLenses ? refreshLenses : undefined) : [];
});
connection.onHover(async (params) => {
  const document = documents.get(params.textDocument.uri);
  return document ? service.hover(document, params.position) : null;
});

// ---- settings, trust, dataset ---------------------------------------------------------------------------

connection.onNotification(SettingsNotification, async (settings) => {
  // Only what the change needs: the code-lens setting alone redraws lenses and leaves diagnostics as they are.
  const changed = service.applySettings(settings);
  // Another engine or server: its databases are connected to, and the client told what runs the SQL now.
  if (changed.databases) void connection.sendNotification(DatasetChangedNotification, await service.reconnect());
  if (changed.diagnostics) refreshDiagnostics();
  if (changed.lenses) refreshLenses();
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
connection.onRequest(ReconnectRequest, async () => {
  const summary = await service.reconnect();
  refreshAll();
  return summary;
});
connection.onRequest(QuestionsRequest, (params) => service.questions(params?.dbId));
connection.onRequest(QuestionDocumentRequest, (params, token) => handle(token, () => service.questionDocument(params.questionId)));

// ---- requests the extension's panels and commands make ----------------------------------------------

const stepReporter = (token?: string | number) => (message: string) => {
  if (token !== undefined) void connection.sendProgress(StepProgress, token, { message });
};

connection.onRequest(ScoreRequest, (params, token) =>
  handle(token, (signal) => service.score(params, signal, stepReporter(params.progressToken))),
);
connection.onRequest(CounterexampleRequest, (params, token) =>
  handle(token, (signal) => service.counterexample(params, signal, stepReporter(params.progressToken))),
);
connection.onRequest(JudgeRequest, (params, token) =>
  handle(token, (signal) => service.judge(params, signal, stepReporter(params.progressToken))),
);
connection.onRequest(ExplainRequest, (params, token) => handle(token, (signal) => service.explain(params, signal)));
connection.onRequest(TimeQueryRequest, (params, token) =>
  handle(token, (signal) => service.timeQuery(params, signal, stepReporter(params.progressToken))),
);
connection.onRequest(OptimizeRequest, (params, token) =>
  handle(token, (signal) => service.optimize(params, signal, stepReporter(params.progressToken))),
);
connection.onRequest(IndexAdviceRequest, (params, token) => handle(token, (signal) => service.indexAdvice(params, signal)));
connection.onRequest(VerifyHintRequest, (params, token) => handle(token, (signal) => service.verifyHint(params, signal)));
connection.onRequest(RuleHintsRequest, (params, token) => handle(token, () => service.ruleHints(params)));
connection.onRequest(AuditGoldRequest, (params, token) =>
  handle(token, (signal) =>
    service.auditGold(params, signal, (value) => {
      if (params.progressToken !== undefined) void connection.sendProgress(AuditProgress, params.progressToken, value);
    }),
  ),
);
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

connection.onRequest(CompareReportsRequest, (params, token) => handle(token, () => service.compareReports(params)));

connection.onShutdown(() => service.dispose());
documents.listen(connection);
connection.listen();
