import {
  CancellationToken,
  CodeAction,
  CodeActionKind,
  CodeLens,
  createConnection,
  Diagnostic,
  DiagnosticSeverity,
  Hover,
  InitializeParams,
  InitializeResult,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  WorkDoneProgress,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { loadPredictions } from '../core/bird/predictions';
import { formatProblem, InputProblem } from '../core/bird/problems';
import { DEFAULT_MAX_ROWS, evaluateTasks, scoreTask } from '../core/eval/evaluate';
import { DEFAULT_FAST_TIMING, FastTimingOptions } from '../core/timing/fast';
import { TimingResult } from '../core/timing/types';
import { summarize } from '../core/eval/summary';
import { buildTasks } from '../core/eval/tasks';
import { Metric, METRICS } from '../core/eval/types';
import { hintsForStatement } from '../core/hints/analyze';
import { Hint } from '../core/hints/types';
import { verifyHint } from '../core/hints/verify';
import { comparePlans } from '../core/plan/comparePlans';
import { explainQuery } from '../core/plan/explain';
import { planLines } from '../core/report/planText';
import { documentOffset, sqlUnits, SqlUnit } from '../core/sql/documentUnits';
import {
  Commands,
  Dataset,
  EvaluateFileParams,
  ExplainParams,
  Notifications,
  PlanSummary,
  Requests,
  ScoreParams,
  ScoreResult,
  TimingSummary,
  VerifyHintParams,
  VerifyHintResult,
} from '../shared/protocol';
import { DatasetState, OpenDatabase } from './datasetState';
import { hoverText } from './hover';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const state = new DatasetState();

interface Settings {
  trusted: boolean;
  timeoutMs: number;
  maxRows: number;
  /** db_id for .sql files that say nothing (`-- db:` or `-- bird:`) about their database. */
  defaultDatabase?: string;
}
const settings: Settings = { trusted: false, timeoutMs: DEFAULT_FAST_TIMING.timeoutMs, maxRows: DEFAULT_MAX_ROWS };

connection.onInitialize(async (params: InitializeParams): Promise<InitializeResult> => {
  const options = (params.initializationOptions ?? {}) as Partial<Settings> & { dataset?: Dataset | null };
  Object.assign(settings, { trusted: Boolean(options.trusted), timeoutMs: options.timeoutMs ?? settings.timeoutMs, maxRows: options.maxRows ?? settings.maxRows, defaultDatabase: options.defaultDatabase });
  await state.attach(options.dataset ?? null);
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

connection.onNotification(Notifications.trust, (params: { trusted: boolean; defaultDatabase?: string }) => {
  settings.trusted = params.trusted;
  if ('defaultDatabase' in params) settings.defaultDatabase = params.defaultDatabase;
  for (const document of documents.all()) scheduleDiagnostics(document);
});

function requireTrust(): void {
  if (!settings.trusted) throw new ResponseError(1, 'VES Lens runs SQL only in trusted workspaces: trust this workspace to score, explain or verify.');
}

/** The database a unit runs on: its question's, its `-- db:` comment's, or the default one. */
function unitDbId(unit: SqlUnit): string | undefined {
  const question = state.question(unit.questionId, unit.questionIndex);
  return unit.dbId ?? question?.dbId ?? settings.defaultDatabase;
}

async function unitDatabase(unit: SqlUnit): Promise<OpenDatabase | undefined> {
  if (!settings.trusted) return undefined; // untrusted: no database is opened, hints run without the schema
  const dbId = unitDbId(unit);
  const file = dbId ? state.dbPath(dbId) : undefined;
  return file ? state.database(file).catch(() => undefined) : undefined;
}

// ---- diagnostics: rewrite hints ---------------------------------------------------------------------

interface HintData {
  uri: string;
  statementStart: number;
  rule: string;
  hintStart: number;
}

/** Hints of one unit, in document offsets (JSON strings map through their escapes). */
async function unitHints(unit: SqlUnit): Promise<Hint[]> {
  const schema = (await unitDatabase(unit))?.schema;
  if (unit.statement) return hintsForStatement(unit.statement, schema).hints; // .sql: offsets are the document's already
  const { hints } = hintsForStatement({ start: 0, end: unit.sql.length, text: unit.sql, leadingComments: [] }, schema);
  const map = (range: { start: number; end: number }) => ({ start: documentOffset(unit, range.start), end: documentOffset(unit, range.end) });
  return hints.map((hint) => ({ ...hint, range: map(hint.range), rewrite: hint.rewrite && { ...hint.rewrite, range: map(hint.rewrite.range) } }));
}

/** Units and their hints, computed once per document version (diagnostics, lenses and quick fixes share them). */
const analysed = new Map<string, { version: number; units: { unit: SqlUnit; hints: Hint[] }[] }>();
async function analyse(document: TextDocument) {
  const cached = analysed.get(document.uri);
  if (cached?.version === document.version) return cached.units;
  const units = [];
  for (const unit of sqlUnits(document.languageId, document.getText())) units.push({ unit, hints: await unitHints(unit) });
  analysed.set(document.uri, { version: document.version, units });
  return units;
}

async function computeDiagnostics(document: TextDocument): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  for (const { unit, hints } of await analyse(document)) {
    for (const hint of hints) {
      const data: HintData = { uri: document.uri, statementStart: unit.start, rule: hint.rule, hintStart: hint.range.start };
      diagnostics.push({
        range: { start: document.positionAt(hint.range.start), end: document.positionAt(hint.range.end) },
        severity: hint.kind === 'correctness' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
        code: hint.rule,
        source: 'VES Lens',
        message: `${hint.title}: ${hint.message}${hint.caveat ? `\nCaveat: ${hint.caveat}` : ''}${hint.rewrite ? '\nQuick fix: apply the rewrite after verifying it on the database.' : ''}`,
        data,
      });
    }
  }
  return diagnostics;
}

const pending = new Map<string, NodeJS.Timeout>();
function scheduleDiagnostics(document: TextDocument): void {
  clearTimeout(pending.get(document.uri));
  pending.set(
    document.uri,
    setTimeout(async () => {
      pending.delete(document.uri);
      const version = document.version;
      const diagnostics = await computeDiagnostics(document);
      if (documents.get(document.uri)?.version === version) connection.sendDiagnostics({ uri: document.uri, version, diagnostics });
    }, 50),
  );
}

documents.onDidChangeContent((change) => scheduleDiagnostics(change.document));
documents.onDidClose((event) => {
  analysed.delete(event.document.uri);
  connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
});

connection.onCodeAction((params) => {
  const actions: CodeAction[] = [];
  const document = documents.get(params.textDocument.uri);
  for (const diagnostic of params.context.diagnostics) {
    const data = diagnostic.data as HintData | undefined;
    if (!data || diagnostic.source !== 'VES Lens') continue;
    actions.push({
      title: `Verify and apply the ${data.rule} rewrite`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      command: { title: `Verify and apply the ${data.rule} rewrite`, command: Commands.applyVerifiedRewrite, arguments: [data satisfies VerifyHintParams] },
    });
    if (document?.languageId === 'sql') {
      const at = document.positionAt(data.statementStart);
      actions.push({
        title: `Ignore ${data.rule} for this statement`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        edit: { changes: { [document.uri]: [{ range: { start: { line: at.line, character: 0 }, end: { line: at.line, character: 0 } }, newText: `-- ves-lens-ignore ${data.rule}\n` }] } },
      });
    }
  }
  return actions;
});

connection.onRequest(Requests.verifyHint, async (params: VerifyHintParams): Promise<VerifyHintResult> => {
  requireTrust();
  const document = documents.get(params.uri);
  const entry = document && (await analyse(document)).find(({ unit }) => unit.start === params.statementStart);
  const hint = entry?.hints.find((h) => h.rule === params.rule && h.range.start === params.hintStart);
  if (!document || !entry || !hint?.rewrite) return { status: 'failed', message: 'the statement changed since the hint was shown; try again', recommended: false };
  const database = await unitDatabase(entry.unit);
  if (!database) return { status: 'failed', message: 'no database for this statement: attach a dataset, or add `-- db: <db_id>` above it', recommended: false };
  const verdict = await verifyHint(database.db, entry.unit.sql, hint, { timeoutMs: settings.timeoutMs, maxRows: settings.maxRows });
  const confirmedHazard = hint.kind === 'correctness' && verdict.status === 'changes-results';
  const rowsAgree = verdict.sameSet === true && verdict.status !== 'changes-results' && verdict.status !== 'failed';
  if (!rowsAgree && !confirmedHazard) return { status: verdict.status, message: verdict.message, recommended: false };
  // Inside a JSON string the new text must be escaped as JSON.
  const rewrite = verdict.rewrite ?? hint.rewrite;
  const text = document.languageId === 'sql' ? rewrite.text : JSON.stringify(rewrite.text).slice(1, -1);
  return {
    status: verdict.status,
    message: verdict.message,
    edit: { start: rewrite.range.start, end: rewrite.range.end, text },
    recommended: hint.kind === 'correctness' || verdict.status === 'faster',
  };
});

// ---- code lenses and hovers ---------------------------------------------------------------------------

connection.onCodeLens(async (params): Promise<CodeLens[]> => {
  const document = documents.get(params.textDocument.uri);
  if (!document) return [];
  const lenses: CodeLens[] = [];
  for (const { unit, hints } of await analyse(document)) {
    const position = document.positionAt(unit.start);
    const range = { start: position, end: position };
    const question = state.question(unit.questionId, unit.questionIndex);
    if (question && unit.role !== 'gold') {
      lenses.push({ range, command: { title: `$(beaker) Score against gold (question ${question.questionId})`, command: Commands.scoreAgainstGold, arguments: [document.uri, unit.start, question.questionId, question.index] } });
    }
    lenses.push({ range, command: { title: '$(list-tree) Explain', command: Commands.explain, arguments: [document.uri, unit.start, unitDbId(unit)] } });
    const count = hints.length;
    if (count > 0) lenses.push({ range, command: { title: `$(lightbulb) Hints (${count})`, command: Commands.showHints, arguments: [document.uri, position.line] } });
  }
  return lenses;
});

connection.onHover(async (params): Promise<Hover | null> => {
  const document = documents.get(params.textDocument.uri);
  if (!document) return null;
  const offset = document.offsetAt(params.position);
  const unit = sqlUnits(document.languageId, document.getText()).find((u) => u.start <= offset && offset <= u.end);
  const database = unit && (await unitDatabase(unit));
  if (!unit || !database) return null;
  const text = hoverText(document.getText(), offset, database.schema);
  return text ? { contents: { kind: 'markdown', value: text } } : null;
});

// ---- requests the extension's panels make ----------------------------------------------------------

connection.onRequest(Requests.setDataset, (dataset: Dataset | null) => {
  const summary = state.attach(dataset);
  summary.then(() => documents.all().forEach(scheduleDiagnostics));
  return summary;
});
connection.onRequest(Requests.datasetSummary, () => state.summary());
connection.onRequest(Requests.questions, (params: { dbId?: string }) =>
  state.questions.filter((q) => !params?.dbId || q.dbId === params.dbId).map((q) => state.info(q)),
);

/** The SQL a request names: given outright, or the unit at an offset of the document as it is now. */
function requestedSql(params: { sql?: string; uri?: string; offset?: number }): string {
  if (params.sql !== undefined) return params.sql;
  const document = params.uri ? documents.get(params.uri) : undefined;
  const unit = document && sqlUnits(document.languageId, document.getText()).find((u) => u.start <= params.offset! && params.offset! <= u.end);
  if (!unit) throw new ResponseError(5, 'no SQL statement there any more (the document changed)');
  return unit.sql;
}

/** Interrupts the database work of a request when the client cancels it. */
function cancellable(token: CancellationToken, database: OpenDatabase): { cancelled: () => boolean; signal: AbortSignal; dispose: () => void } {
  let cancelled = false;
  const abort = new AbortController();
  const listener = token.onCancellationRequested(() => {
    cancelled = true;
    database.db.interrupt();
    abort.abort(); // timing runs on connections of its own: they listen to the signal
  });
  return { cancelled: () => cancelled || token.isCancellationRequested, signal: abort.signal, dispose: () => listener.dispose() };
}

/** "Re-run with more iterations": more blocks and a tighter precision, within a larger budget. */
const THOROUGH_TIMING: Partial<FastTimingOptions> = { minBlocks: 6, maxBlocks: 16, minBlockMs: 12, precision: 0.03, pairBudgetMs: 20_000 };

function timingSummary(timing: TimingResult): TimingSummary {
  const { protocol: _protocol, ...summary } = timing;
  return summary;
}

function planSummary(plan: Awaited<ReturnType<typeof explainQuery>>): PlanSummary {
  return { error: plan.error, rule: plan.cost.rule, work: plan.cost.work, lines: planLines(plan) };
}

connection.onRequest(Requests.score, async (params: ScoreParams & { phase?: 'correctness' | 'full' }, token): Promise<ScoreResult> => {
  requireTrust();
  const started = performance.now();
  const sql = requestedSql(params);
  const question = state.question(params.questionId, params.questionIndex);
  if (!question) throw new ResponseError(2, `no question ${params.questionId ?? `#${params.questionIndex}`} in the attached dataset`);
  const file = state.dbPath(question.dbId);
  if (!file) throw new ResponseError(3, `database ${question.dbId} is not under ${state.dataset?.dbRoot}`);
  const database = await state.database(file);
  const progress = params.progressToken;
  const report = (message: string) => progress && connection.sendProgress(WorkDoneProgress.type, progress, { kind: 'report', message });
  const guard = cancellable(token, database);
  try {
    const metrics: Metric[] = params.phase === 'correctness' ? ['ex', 'f1'] : [...METRICS];
    report(params.phase === 'correctness' ? 'running prediction and gold' : 'timing prediction and gold');
    const result = await scoreTask(database.db, { question, goldSql: state.goldSql(question), predictedSql: sql, notes: [] }, {
      dbRoot: state.dataset!.dbRoot,
      metrics,
      timing: 'fast',
      timeoutMs: settings.timeoutMs,
      maxRows: settings.maxRows,
      keepSamples: true,
      fastTiming: params.thorough ? THOROUGH_TIMING : undefined,
      scales: params.phase === 'correctness' ? undefined : params.scales,
      signal: guard.signal,
    });
    if (guard.cancelled()) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
    const goldPlan = await explainQuery(database.db, state.goldSql(question) ?? '', database.schema);
    const predPlan = await explainQuery(database.db, sql, database.schema);
    return {
      question: state.info(question),
      outcome: result.outcome,
      ex: result.ex,
      f1: result.f1,
      error: result.error,
      timing: result.timings?.ves ? timingSummary(result.timings.ves) : null,
      rvesTiming: result.timings?.rves ? timingSummary(result.timings.rves) : null,
      sameProgram: result.same_program === true,
      ves: result.ves,
      rvesReward: result.rves_reward,
      rvesBucketProbabilities: result.rves_bucket_probabilities,
      rvesExpectedReward: result.rves_expected_reward,
      rvesUncertain: result.rves_uncertain,
      timeRatioByScale: result.time_ratio_by_scale ?? null,
      growth: result.growth ?? null,
      difference: result.difference ?? null,
      goldPlan: planSummary(goldPlan),
      predPlan: planSummary(predPlan),
      planDifferences: goldPlan.error || predPlan.error ? [] : comparePlans(goldPlan, predPlan),
      sqlite: state.sqlite,
      elapsedMs: performance.now() - started,
    };
  } finally {
    guard.dispose();
  }
});

connection.onRequest(Requests.explain, async (params: ExplainParams) => {
  requireTrust();
  const file = params.dbPath ?? (params.dbId ? state.dbPath(params.dbId) : undefined) ?? (settings.defaultDatabase ? state.dbPath(settings.defaultDatabase) : undefined);
  if (!file) throw new ResponseError(3, 'no database for this query: attach a dataset, bind the query with `-- bird: <question_id>` or `-- db: <db_id>`, or set vesLens.defaultDatabase');
  const database = await state.database(file);
  const sql = requestedSql(params);
  return { ...planSummary(await explainQuery(database.db, sql, database.schema)), sql, sqlite: state.sqlite, dbPath: file };
});

connection.onRequest(Requests.evaluateFile, async (params: EvaluateFileParams, token) => {
  requireTrust();
  if (!state.dataset) throw new ResponseError(4, 'attach a dataset first');
  const problems: InputProblem[] = [];
  const predictions = loadPredictions(params.predictionsFile);
  problems.push(...predictions.problems);
  const tasks = buildTasks(state.questions, predictions, undefined, problems);
  for (const task of tasks) task.goldSql = state.goldSql(task.question);
  const metrics = (params.metrics ?? ['ex', 'f1', 'ves', 'rves']) as Metric[];
  const abort = new AbortController();
  const listener = token.onCancellationRequested(() => abort.abort());
  try {
    const results = await evaluateTasks(tasks, {
      dbRoot: state.dataset.dbRoot,
      metrics,
      timing: params.timing ?? 'fast',
      timeoutMs: settings.timeoutMs,
      maxRows: settings.maxRows,
      signal: abort.signal,
      onResult: (result, done, total) => {
        if (params.progressToken) {
          connection.sendProgress(WorkDoneProgress.type, params.progressToken, { kind: 'report', message: `${done}/${total}: question ${result.question_id} ${result.outcome}`, percentage: Math.round((done / total) * 100) });
        }
      },
    });
    if (abort.signal.aborted) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
    // Each row carries its SQL, so the report can open the Score panel for it.
    const sqlByIndex = new Map(tasks.map((task) => [task.question.index, task.predictedSql ?? '']));
    return { summary: summarize(results, metrics), questions: results.map((r) => ({ ...r, predicted_sql: sqlByIndex.get(r.index) })), problems: problems.map(formatProblem), sqlite: state.sqlite };
  } finally {
    listener.dispose();
  }
});

connection.onShutdown(() => state.closeAll());
documents.listen(connection);
connection.listen();
