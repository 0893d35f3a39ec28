/**
 * The language server's logic, with no connection: documents come in through `DocumentSource`, cancellation
 * as an AbortSignal, progress through callbacks, and everything goes out as plain protocol values. server.ts
 * only wires LSP to it; test/server/service.test.ts drives it in-process.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { CodeAction, CodeLens, Diagnostic, Hover, Position } from 'vscode-languageserver-types';
import { loadPredictions } from '../core/bird/predictions';
import { formatProblem, InputProblem } from '../core/bird/problems';
import { topLevelEntryLines } from '../core/bird/jsonFile';
import { QueryCancelled } from '../core/db/database';
import { DatabaseFactsCache } from '../core/judge/dbInfo';
import { judgePair } from '../core/judge/judgePair';
import { ChatModel, ChatModelError, ChatReply } from '../core/llm/chatModel';
import { ReplyCache } from '../core/llm/replyCache';
import { evaluateTasks, scoreTask } from '../core/eval/evaluate';
import { summarize } from '../core/eval/evalSummary';
import { buildTasks } from '../core/bird/tasks';
import { databasePath } from '../core/bird/layout';
import { Metric, METRICS, QuestionResult } from '../core/eval/types';
import { hintsForStatement } from '../core/hints/analyze';
import { Hint } from '../core/hints/types';
import { verifyHint } from '../core/hints/verify';
import { explainQuery } from '../core/plan/explain';
import { FastTimingOptions } from '../core/timing/fast';
import { TimingResult } from '../core/timing/types';
import { documentKind, documentOffset, sqlUnits, SqlUnit } from '../core/sql/documentUnits';
import {
  AuditGoldParams,
  AuditGoldResult,
  AuditProgressValue,
  command,
  Commands,
  Dataset,
  DatasetSummary,
  EvaluateFileParams,
  EvaluateFileResult,
  ExplainParams,
  ExplainResult,
  JudgeParams,
  JudgeResult,
  QUESTION_SCHEME,
  QueryTarget,
  QuestionInfo,
  ReportRow,
  ResultPreview,
  RuleHintsParams,
  InitializationOptions,
  ScoreParams,
  ScoreResult,
  SecretName,
  TechniquesView,
  TimeQueryParams,
  TimeQueryResult,
  TimingSummary,
  VerifyHintParams,
  VerifyHintResult,
} from '../shared/protocol';
import { DEFAULT_SETTINGS, VesLensSettings } from '../shared/settings';
import { DatasetState, OpenDatabase } from './datasetState';
import { HintData, hintCodeActions, hintDiagnostics } from './diagnostics';
import { editorText } from './editorText';
import { reportRow, scoreExplanations } from './explanations';
import { hoverText } from './hover';
import { ClientChat, fatalModelMessage, judgeModel, JudgeSettingError } from './judgeModels';
import { comparePlanViews, planView } from './planView';
import { resultPreview, timeAlone } from './queryRuns';
import { formatSql } from './sqlFormat';
import { techniqueScores } from './techniqueScores';
import { AuditInputError, runGoldAudit } from './goldAuditRun';

/** An error a person can act on; `code` becomes the response's error code. */
export class UserError extends Error {
  constructor(message: string, readonly code = 1) {
    super(message);
  }
}
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
  }
}

export interface DocumentSource {
  get(uri: string): TextDocument | undefined;
  all(): TextDocument[];
}

export interface ServiceHost {
  documents: DocumentSource;
  /** The server's log (the client shows it in its Output channel). */
  log(message: string): void;
  /** Folder of the rules' docs (docs/rules), linked from each diagnostic's code. */
  docsRoot: string;
  /** A secret from the client's SecretStorage (the embeddings API key), asked for only when needed; absent: none. */
  secret?(name: SecretName): Promise<string | undefined>;
  /** Completions from the client's vscode.lm models (the Judge's `vscode-lm` provider); absent: that provider is unavailable. */
  chat?: ClientChat;
}

/** "Re-run with more iterations": more blocks and a tighter precision, within a larger budget. */
const THOROUGH_TIMING: Partial<FastTimingOptions> = { minBlocks: 6, maxBlocks: 16, blockMs: { ratio: 12, bucket: 12 }, precision: 0.03, pairBudgetMs: 20_000 };

function timingSummary(timing: TimingResult): TimingSummary {
  const { protocol: _protocol, ...summary } = timing;
  return { ...summary, note: summary.note === undefined ? undefined : editorText(summary.note) };
}

const EMPTY_PREVIEW: ResultPreview = { columns: [], rows: [], rowCount: null, truncated: false };

export class VesLensService {
  readonly state = new DatasetState();
  settings: VesLensSettings = { ...DEFAULT_SETTINGS };
  trusted = false;
  /** Units and their hints, computed once per document version (diagnostics, lenses and quick fixes share them). */
  private readonly analysed = new Map<string, { version: number; units: { unit: SqlUnit; hints: Hint[] }[] }>();
  /** Result previews by database and SQL: the timing phase of a score reuses the correctness phase's. */
  private readonly previews = new Map<string, ResultPreview>();
  /** Schema, keys and samples the judge's prompts show, read once per database. */
  private judgeFacts = new DatabaseFactsCache();

  constructor(private readonly host: ServiceHost) {}

  // ---- lifecycle and settings ---------------------------------------------------------------------------

  /** The extension's storage folder (the embeddings cache lives under it). */
  private storageDir?: string;

  async initialize(options: InitializationOptions): Promise<void> {
    this.storageDir = options.storageDir;
    this.trusted = Boolean(options.trusted);
    this.settings = { ...DEFAULT_SETTINGS, ...options.settings };
    await this.attach(options.dataset ?? null);
  }

  /** New settings; says whether diagnostics or lenses must be recomputed. */
  applySettings(settings: VesLensSettings): { diagnostics: boolean; lenses: boolean } {
    const before = this.settings;
    this.settings = { ...DEFAULT_SETTINGS, ...settings };
    const changed = (key: keyof VesLensSettings) => JSON.stringify(before[key]) !== JSON.stringify(this.settings[key]);
    const diagnostics = changed('rules') || changed('diagnosticsInQuestionFiles') || changed('defaultDatabase');
    if (diagnostics) this.analysed.clear();
    this.host.log(`settings: timeout ${this.settings.timeoutSeconds} s, max rows ${this.settings.maxRows}, default database ${this.settings.defaultDatabase || '(none)'}, scales [${this.settings.scales.join(', ')}], techniques [${this.settings.techniques.join(', ')}], embeddings ${this.settings.embeddingsProvider}`);
    return { diagnostics, lenses: diagnostics || changed('codeLensEnabled') };
  }

  setTrust(trusted: boolean): void {
    this.trusted = trusted;
    this.analysed.clear();
  }

  private get limits() {
    return { timeoutMs: this.settings.timeoutSeconds * 1000, maxRows: this.settings.maxRows };
  }

  private requireTrust(): void {
    if (!this.trusted) throw new UserError('VES Lens runs SQL only in trusted workspaces: trust this workspace to score, explain or verify.');
  }

  async attach(dataset: Dataset | null): Promise<DatasetSummary> {
    this.analysed.clear();
    this.previews.clear();
    this.judgeFacts = new DatabaseFactsCache();
    const summary = await this.state.attach(dataset);
    if (summary.error) this.host.log(`dataset: ${summary.error}`);
    else if (dataset) this.host.log(`dataset: ${summary.questionCount} questions from ${dataset.questionsFile}, databases under ${dataset.dbRoot}`);
    return summary;
  }

  summary(): DatasetSummary {
    return this.state.summary();
  }

  questions(dbId?: string): QuestionInfo[] {
    return this.state.questions.filter((q) => !dbId || q.dbId === dbId).map((q) => this.state.info(q));
  }

  /** A question as a read-only SQL document: its text and evidence as comments, then its gold SQL, formatted. */
  questionDocument(questionId: number | string): string {
    const question = this.state.question(questionId);
    if (!question) throw new UserError(`no question ${questionId} in the attached dataset`, 2);
    const info = this.state.info(question);
    const comment = (label: string, text: string) => text.split(/\r?\n/).map((line, i) => `-- ${i === 0 ? label : ' '.repeat(label.length)}${line}`);
    const gold = formatSql(info.gold);
    return [
      `-- bird: ${info.questionId}`,
      `-- db: ${info.dbId}`,
      `-- ${info.difficulty || 'no difficulty'} · question ${info.index + 1} of ${this.state.questions.length} in ${path.basename(this.state.dataset?.questionsFile ?? '')}`,
      ...comment('Question: ', info.question),
      ...comment('Evidence: ', info.evidence || '(none)'),
      '-- Gold SQL:',
      gold.trim().endsWith(';') ? gold.trim() : `${gold.trim()};`,
      '',
    ].join('\n');
  }

  // ---- documents: hints, lenses, hovers ---------------------------------------------------------------

  /** The database a unit runs on: its `-- db:` comment's, its question's, or the default one. */
  private unitDbId(unit: SqlUnit): string | undefined {
    return unit.dbId ?? this.state.question(unit.questionId, unit.questionIndex)?.dbId ?? (this.settings.defaultDatabase || undefined);
  }

  private async unitDatabase(unit: SqlUnit): Promise<OpenDatabase | undefined> {
    if (!this.trusted) return undefined; // untrusted: no database is opened, hints run without the schema
    const dbId = this.unitDbId(unit);
    const file = dbId ? this.state.dbPath(dbId) : undefined;
    return file ? this.state.database(file).catch(() => undefined) : undefined;
  }

  /** Hints of one unit, in document offsets (JSON strings map through their escapes). */
  private async unitHints(unit: SqlUnit): Promise<Hint[]> {
    const schema = (await this.unitDatabase(unit))?.schema;
    if (unit.statement) return hintsForStatement(unit.statement, schema).hints;
    const { hints } = hintsForStatement({ start: 0, end: unit.sql.length, text: unit.sql, leadingComments: [] }, schema);
    const map = (range: { start: number; end: number }) => ({ start: documentOffset(unit, range.start), end: documentOffset(unit, range.end) });
    return hints.map((hint) => ({ ...hint, range: map(hint.range), rewrite: hint.rewrite && { ...hint.rewrite, range: map(hint.rewrite.range) } }));
  }

  private async analyse(document: TextDocument) {
    const cached = this.analysed.get(document.uri);
    if (cached?.version === document.version) return cached.units;
    const units = [];
    for (const unit of sqlUnits(document.languageId, document.getText())) units.push({ unit, hints: await this.unitHints(unit) });
    this.analysed.set(document.uri, { version: document.version, units });
    return units;
  }

  forget(uri: string): void {
    this.analysed.delete(uri);
  }

  /** Whether a document's hints are shown: a question file's (every gold SQL of it) only when the setting asks. */
  private wantsDiagnostics(document: TextDocument): boolean {
    return this.settings.diagnosticsInQuestionFiles || documentKind(document.languageId, document.getText()) !== 'bird-questions';
  }

  async diagnostics(document: TextDocument): Promise<Diagnostic[]> {
    if (!this.wantsDiagnostics(document)) return [];
    return hintDiagnostics(document, await this.analyse(document), this.settings, this.host.docsRoot);
  }

  async codeActions(document: TextDocument, diagnostics: readonly Diagnostic[]): Promise<CodeAction[]> {
    return hintCodeActions(document, diagnostics, await this.diagnostics(document));
  }

  async codeLenses(document: TextDocument): Promise<CodeLens[]> {
    if (!this.settings.codeLensEnabled) return [];
    const lenses: CodeLens[] = [];
    const hintsShown = this.wantsDiagnostics(document);
    // A question's own document holds its gold: time it alone rather than score it against itself.
    const questionDocument = document.uri.startsWith(`${QUESTION_SCHEME}:`);
    for (const { unit, hints } of await this.analyse(document)) {
      const position = document.positionAt(unit.start);
      const range = { start: position, end: position };
      const question = this.state.question(unit.questionId, unit.questionIndex);
      if (question && questionDocument) {
        lenses.push({ range, command: command('$(watch) Time the gold alone', Commands.timeGold, this.state.info(question)) });
      } else if (question && unit.role !== 'gold') {
        lenses.push({ range, command: command(`$(beaker) Score against gold (question ${question.questionId})`, Commands.scoreAgainstGold, document.uri, unit.start, question.questionId, question.index) });
        lenses.push({ range, command: command('$(law) Judge', Commands.judge, document.uri, unit.start, question.questionId, question.index) });
      }
      lenses.push({ range, command: command('$(list-tree) Explain', Commands.explain, document.uri, unit.start, this.unitDbId(unit)) });
      const shown = hintsShown ? hints.filter((hint) => this.settings.rules[hint.rule] !== 'off') : [];
      if (shown.length > 0) lenses.push({ range, command: command(`$(lightbulb) Hints (${shown.length})`, Commands.showHints, document.uri, position.line) });
    }
    return lenses;
  }

  async hover(document: TextDocument, position: Position): Promise<Hover | null> {
    const offset = document.offsetAt(position);
    const unit = sqlUnits(document.languageId, document.getText()).find((u) => u.start <= offset && offset <= u.end);
    const database = unit && (await this.unitDatabase(unit));
    if (!unit || !database) return null;
    const text = hoverText(document.getText(), offset, database.schema);
    return text ? { contents: { kind: 'markdown', value: text } } : null;
  }

  // ---- hints verified on the database -------------------------------------------------------------------

  async verifyHint(params: VerifyHintParams, signal?: AbortSignal): Promise<VerifyHintResult> {
    this.requireTrust();
    const document = this.host.documents.get(params.uri);
    const entry = document && (await this.analyse(document)).find(({ unit }) => unit.start === params.statementStart);
    const hint = entry?.hints.find((h) => h.rule === params.rule && h.range.start === params.hintStart);
    if (!document || !entry || !hint?.rewrite) return { status: 'failed', message: 'the statement changed since the hint was shown; try again', recommended: false };
    const database = await this.unitDatabase(entry.unit);
    if (!database) return { status: 'failed', message: this.noDatabaseMessage(this.unitDbId(entry.unit)), recommended: false };
    if (signal?.aborted) throw new CancelledError();
    const verdict = await verifyHint(database.db, entry.unit.sql, hint, this.limits);
    const message = editorText(verdict.message);
    const confirmedHazard = hint.kind === 'correctness' && verdict.status === 'changes-results';
    const rowsAgree = verdict.sameSet === true && verdict.status !== 'changes-results' && verdict.status !== 'failed';
    if (!rowsAgree && !confirmedHazard) return { status: verdict.status, message, recommended: false };
    // Inside a JSON string the new text must be escaped as JSON.
    const rewrite = verdict.rewrite ?? hint.rewrite;
    const text = document.languageId === 'sql' ? rewrite.text : JSON.stringify(rewrite.text).slice(1, -1);
    return { status: verdict.status, message, edit: { start: rewrite.range.start, end: rewrite.range.end, text }, recommended: hint.kind === 'correctness' || verdict.status === 'faster' };
  }

  /** Every hint of a rule in a document that has a rewrite, last first (applying one never moves the ones before it). */
  async ruleHints(params: RuleHintsParams): Promise<VerifyHintParams[]> {
    const document = this.host.documents.get(params.uri);
    if (!document) return [];
    const found: HintData[] = [];
    for (const { unit, hints } of await this.analyse(document)) {
      for (const hint of hints) if (hint.rule === params.rule && hint.rewrite) found.push({ uri: params.uri, statementStart: unit.start, rule: hint.rule, hintStart: hint.range.start });
    }
    return found.sort((a, b) => b.hintStart - a.hintStart);
  }

  // ---- queries: which SQL, which database --------------------------------------------------------------

  /** The SQL a request names: given outright, or the unit at an offset of the document as it is now. */
  private requestedUnit(params: { sql?: string; uri?: string; offset?: number }): { sql: string; unit?: SqlUnit; document?: TextDocument } {
    if (params.sql !== undefined) return { sql: params.sql };
    const document = params.uri ? this.host.documents.get(params.uri) : undefined;
    const unit = document && sqlUnits(document.languageId, document.getText()).find((u) => u.start <= params.offset! && params.offset! <= u.end);
    if (!unit) throw new UserError('no SQL statement there any more (the document changed)', 5);
    return { sql: unit.sql, unit, document };
  }

  private noDatabaseMessage(dbId: string | undefined, how = ''): string {
    if (!dbId) {
      return this.state.dataset
        ? 'this statement names no database: add `-- db: <db_id>` or `-- bird: <question_id>` above it, or set vesLens.defaultDatabase'
        : 'no dataset is attached: attach a BIRD dataset (VES Lens: Attach a BIRD Dataset) to run SQL on its databases';
    }
    if (!this.state.dataset) return `no dataset is attached, so database ${dbId}${how} cannot be found: attach a BIRD dataset first`;
    return `database ${dbId}${how} is missing: ${databasePath(this.state.dataset.dbRoot, dbId)} does not exist`;
  }

  /** The database of a query target: a path, a db_id, the statement's comments or question, or the default database. */
  private async targetDatabase(target: QueryTarget, unit?: SqlUnit): Promise<{ database: OpenDatabase; dbId?: string }> {
    if (target.dbPath) {
      if (!fs.existsSync(target.dbPath)) throw new UserError(`database file not found: ${target.dbPath}`, 3);
      return { database: await this.state.database(target.dbPath) };
    }
    const fromComment = unit?.dbId;
    const dbId = fromComment ?? target.dbId ?? (unit ? this.unitDbId(unit) : undefined) ?? (this.settings.defaultDatabase || undefined);
    const how = fromComment ? ` (named by \`-- db: ${fromComment}\`)` : !target.dbId && !unit?.questionId && dbId ? ' (the vesLens.defaultDatabase setting)' : '';
    const file = dbId ? this.state.dbPath(dbId) : undefined;
    if (!file) throw new UserError(this.noDatabaseMessage(dbId, how), 3);
    return { database: await this.state.database(file), dbId };
  }

  // ---- score ----------------------------------------------------------------------------------------------

  private async preview(database: OpenDatabase, sql: string, signal?: AbortSignal): Promise<ResultPreview> {
    const key = `${database.path}\n${sql}`;
    const cached = this.previews.get(key);
    if (cached) return cached;
    const preview = await resultPreview(database.db, sql, { ...this.limits, signal });
    this.previews.set(key, preview);
    if (this.previews.size > 40) this.previews.delete(this.previews.keys().next().value!);
    return preview;
  }

  /** The question a Score or Judge names, and its database file; or why there is none. */
  private pairQuestion(params: { questionId?: number | string; questionIndex?: number }) {
    const question = this.state.question(params.questionId, params.questionIndex);
    if (!question) {
      throw new UserError(params.questionId === undefined && params.questionIndex === undefined
        ? 'this statement is bound to no question: add `-- bird: <question_id>` above it'
        : `no question ${params.questionId ?? `#${params.questionIndex}`} in the attached dataset`, 2);
    }
    const file = this.state.dbPath(question.dbId);
    if (!file) throw new UserError(this.noDatabaseMessage(question.dbId), 3);
    return { question, file };
  }

  /** SQLMorph's techniques for the pair (vesLens.techniques); a failure of theirs is logged and leaves the score as it is. */
  private async techniques(database: OpenDatabase, goldSql: string, sql: string, scored: QuestionResult, signal?: AbortSignal): Promise<TechniquesView | null> {
    const timedOut = scored.outcome === 'timeout' ? scored.error ?? 'timed out' : undefined;
    try {
      return await techniqueScores(database.db, goldSql, sql, { settings: this.settings, storageDir: this.storageDir, secret: this.host.secret?.bind(this.host), ...this.limits, signal, timedOut });
    } catch (error) {
      if (error instanceof QueryCancelled || signal?.aborted) throw error;
      this.host.log(`SQLMorph's techniques failed: ${(error as Error)?.stack ?? error}`);
      return null;
    }
  }

  async score(params: ScoreParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<ScoreResult> {
    this.requireTrust();
    const started = performance.now();
    const { sql } = this.requestedUnit(params);
    const { question, file } = this.pairQuestion(params);
    const database = await this.state.database(file);
    const interrupt = () => database.db.interrupt();
    signal?.addEventListener('abort', interrupt);
    try {
      const correctnessOnly = params.phase === 'correctness';
      const metrics: Metric[] = correctnessOnly ? ['ex', 'f1'] : [...METRICS];
      progress?.(correctnessOnly ? 'running prediction and gold' : 'timing prediction and gold');
      const goldSql = this.state.goldSql(question) ?? '';
      const result = await scoreTask(database.db, { question, goldSql, predictedSql: sql, notes: [] }, {
        dbRoot: this.state.dataset!.dbRoot,
        metrics,
        timing: 'fast',
        ...this.limits,
        keepSamples: true,
        fastTiming: params.thorough ? THOROUGH_TIMING : undefined,
        scales: correctnessOnly ? undefined : params.scales,
        signal,
      });
      if (signal?.aborted) throw new CancelledError();
      progress?.('reading both results and plans');
      const [goldPreview, predPreview] = [await this.preview(database, goldSql, signal), await this.preview(database, sql, signal)];
      const goldPlan = await explainQuery(database.db, goldSql, database.schema);
      const predPlan = await explainQuery(database.db, sql, database.schema);
      progress?.("scoring SQLMorph's techniques");
      const techniques = await this.techniques(database, goldSql, sql, result, signal);
      return {
        question: this.state.info(question),
        outcome: result.outcome,
        ex: result.ex,
        f1: result.f1,
        error: result.error === null ? null : editorText(result.error),
        goldSql: formatSql(goldSql),
        predSql: formatSql(sql),
        goldPreview,
        predPreview,
        explanations: scoreExplanations(result, goldPreview, predPreview),
        timing: result.timings?.ves ? timingSummary(result.timings.ves) : null,
        rvesTiming: result.timings?.rves ? timingSummary(result.timings.rves) : null,
        sameProgram: result.same_program === true,
        ves: result.ves,
        rvesReward: result.rves_reward,
        rvesBucketProbabilities: result.rves_bucket_probabilities,
        rvesExpectedReward: result.rves_expected_reward,
        rvesUncertain: result.rves_uncertain,
        timeRatioByScale: result.time_ratio_by_scale ?? null,
        growth: result.growth === undefined ? null : editorText(result.growth),
        difference: result.difference ?? null,
        goldPlan: planView(goldPlan),
        predPlan: planView(predPlan),
        planComparison: comparePlanViews(goldPlan, predPlan),
        techniques,
        notes: result.notes.map(editorText),
        sqlite: this.state.sqlite,
        elapsedMs: performance.now() - started,
      };
    } catch (error) {
      if (error instanceof QueryCancelled || signal?.aborted) throw new CancelledError();
      throw error;
    } finally {
      signal?.removeEventListener('abort', interrupt);
    }
  }

  // ---- judge: does the prediction answer the question (an LLM, ROSE's Prover/Refuter) ------------------

  async judge(params: JudgeParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<JudgeResult> {
    this.requireTrust();
    const started = performance.now();
    const { sql } = this.requestedUnit(params);
    const { question, file } = this.pairQuestion(params);
    let model: ChatModel;
    try {
      // The endpoint's key, from the client's SecretStorage (sealed on the way); local servers need none.
      const apiKey = params.model.provider === 'openai' ? await this.host.secret?.('judgeApiKey') : undefined;
      model = judgeModel(params.model, this.host.chat, apiKey);
    } catch (error) {
      throw new UserError((error as Error).message, error instanceof JudgeSettingError ? 6 : 1);
    }
    // Each request said in the progress line: a reasoning model can think for minutes.
    let requests = 0;
    const counted: ChatModel = {
      id: model.id,
      complete: (messages, options): Promise<ChatReply> => {
        progress?.(`waiting for ${model.id.replace(/^[a-z-]+:/, '')} (request ${++requests})`);
        return model.complete(messages, options);
      },
    };
    const goldSql = this.state.goldSql(question);
    progress?.('running prediction and gold');
    try {
      const outcome = await judgePair(
        { question: question.question, evidence: question.evidence, dbId: question.dbId, dbPath: file, predictedSql: sql, goldSql },
        { model: counted, method: params.method, cache: params.cacheDir ? new ReplyCache(params.cacheDir) : undefined, ...this.limits, signal, facts: this.judgeFacts },
      );
      this.host.log(`judged question ${question.questionId} with ${model.id}: score ${outcome.score ?? 'none'}, ${outcome.calls} requests (${outcome.cached_calls} from the cache)${outcome.error ? `, ${outcome.error}` : ''}`);
      return {
        question: this.state.info(question),
        predSql: formatSql(sql),
        goldSql: formatSql(goldSql ?? ''),
        predictedSql: sql,
        judge: { ...outcome, error: outcome.error === null ? null : editorText(outcome.error), notes: outcome.notes.map(editorText) },
        model: model.id,
        elapsedMs: performance.now() - started,
      };
    } catch (error) {
      if (signal?.aborted || (error instanceof ChatModelError && error.kind === 'cancelled') || error instanceof QueryCancelled) throw new CancelledError();
      if (error instanceof ChatModelError) throw new UserError(fatalModelMessage(error, params.model), 7);
      throw error;
    }
  }

  // ---- explain and time one query ---------------------------------------------------------------------

  private targetQuestion(target: QueryTarget, unit?: SqlUnit): QuestionInfo | undefined {
    const question = this.state.question(target.questionId ?? unit?.questionId, target.questionId === undefined ? unit?.questionIndex : undefined);
    return question ? this.state.info(question) : undefined;
  }

  async explain(params: ExplainParams): Promise<ExplainResult> {
    this.requireTrust();
    const { sql, unit, document } = this.requestedUnit(params);
    const { database, dbId } = await this.targetDatabase(params, unit);
    const plan = await explainQuery(database.db, sql, database.schema);
    return {
      plan: planView(plan),
      sql,
      formattedSql: formatSql(sql),
      dbId,
      dbPath: database.path,
      question: this.targetQuestion(params, unit),
      source: unit && document ? { uri: document.uri, line: document.positionAt(unit.start).line + 1 } : undefined,
      sqlite: this.state.sqlite,
    };
  }

  /** One query timed alone (no pair, no ratio): its milliseconds with an interval, its first rows and its plan. */
  async timeQuery(params: TimeQueryParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<TimeQueryResult> {
    this.requireTrust();
    const { sql, unit } = this.requestedUnit(params);
    const { database, dbId } = await this.targetDatabase(params, unit);
    const plan = await explainQuery(database.db, sql, database.schema);
    const base = { question: this.targetQuestion(params, unit), sql, formattedSql: formatSql(sql), dbId, plan: planView(plan), sqlite: this.state.sqlite };
    const interrupt = () => database.db.interrupt();
    signal?.addEventListener('abort', interrupt);
    try {
      progress?.('running the query');
      const preview = await this.preview(database, sql, signal);
      if (preview.error) return { ...base, ms: 0, low: 0, high: 0, runs: 0, samples: [], firstRowMs: 0, preview, error: preview.error };
      progress?.('timing the query (fresh connection per run)');
      const timed = await timeAlone(database.path, sql, { timeoutMs: this.limits.timeoutMs, signal });
      return { ...base, ...timed, preview };
    } catch (error) {
      if (error instanceof QueryCancelled || signal?.aborted) throw new CancelledError();
      return { ...base, ms: 0, low: 0, high: 0, runs: 0, samples: [], firstRowMs: 0, preview: EMPTY_PREVIEW, error: editorText((error as Error).message) };
    } finally {
      signal?.removeEventListener('abort', interrupt);
    }
  }

  // ---- a whole prediction file --------------------------------------------------------------------------

  /** Where each prediction stands in its file (0-based line), by the question it answers. */
  private predictionLines(file: string, predictions: ReturnType<typeof loadPredictions>): Map<number, number> {
    let entryLines: number[] = [];
    if (predictions.format !== 'lines') {
      try {
        entryLines = topLevelEntryLines(fs.readFileSync(file, 'utf8'));
      } catch {
        // no locations: the report still lists every question
      }
    }
    const lineOf = (index: number) => {
      const stated = /line (\d+)/.exec(predictions.predictions[index]?.where ?? '')?.[1];
      return stated ? Number(stated) - 1 : entryLines[index] !== undefined ? entryLines[index] - 1 : undefined;
    };
    const byQuestion = new Map<number, number>();
    if (predictions.pairing === 'question_id') {
      const firstById = new Map<string, number>();
      predictions.predictions.forEach((p, i) => { if (!firstById.has(String(p.questionId))) firstById.set(String(p.questionId), i); });
      for (const question of this.state.questions) {
        const i = firstById.get(String(question.questionId));
        const line = i === undefined ? undefined : lineOf(i);
        if (line !== undefined) byQuestion.set(question.index, line);
      }
    } else {
      for (const question of this.state.questions) {
        const line = lineOf(question.index);
        if (line !== undefined) byQuestion.set(question.index, line);
      }
    }
    return byQuestion;
  }

  async evaluateFile(params: EvaluateFileParams, signal?: AbortSignal, onRows?: (rows: ReportRow[], done: number, total: number) => void): Promise<EvaluateFileResult> {
    this.requireTrust();
    if (!this.state.dataset) throw new UserError('no dataset is attached: attach a BIRD dataset before evaluating a prediction file', 4);
    if (this.state.questions.length === 0) throw new UserError(`the attached question file has no questions (${this.state.dataset.questionsFile}): attach a BIRD question file`, 4);
    const problems: InputProblem[] = [];
    let predictions: ReturnType<typeof loadPredictions>;
    try {
      predictions = loadPredictions(params.predictionsFile);
    } catch (error) {
      throw new UserError(editorText((error as Error).message), 2);
    }
    problems.push(...predictions.problems);
    const tasks = buildTasks(this.state.questions, predictions, undefined, problems);
    for (const task of tasks) task.goldSql = this.state.goldSql(task.question);
    const metrics = (params.metrics ?? ['ex', 'f1', 'ves', 'rves']) as Metric[];
    const sqlByIndex = new Map(tasks.map((task) => [task.question.index, task.predictedSql ?? '']));
    const lines = this.predictionLines(params.predictionsFile, predictions);
    const toRow = (result: QuestionResult) => {
      const line = lines.get(result.index);
      return reportRow(result, sqlByIndex.get(result.index) ?? '', line === undefined ? undefined : { line, character: 0 });
    };
    this.host.log(`evaluating ${params.predictionsFile}: ${tasks.length} questions`);
    // Rows are reported in batches (a 1500-question file must not send 1500 messages), at most every 250 ms and
    // never held back longer, and kept: a cancelled run still returns what it scored.
    const finished: QuestionResult[] = [];
    let batch: ReportRow[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (batch.length) onRows?.(batch, finished.length, tasks.length);
      batch = [];
    };
    const results = await evaluateTasks(tasks, {
      dbRoot: this.state.dataset.dbRoot,
      metrics,
      timing: params.timing ?? 'fast',
      ...this.limits,
      signal,
      onResult: (result) => {
        finished.push(result);
        batch.push(toRow(result));
        timer ??= setTimeout(flush, 250);
      },
    }).finally(flush);
    const partial = Boolean(signal?.aborted);
    const scored = partial ? finished : results;
    this.host.log(`evaluated ${params.predictionsFile}: ${scored.length} of ${tasks.length} questions${partial ? ' (cancelled)' : ''}`);
    return {
      summary: summarize(scored, metrics),
      questions: scored.map(toRow),
      problems: problems.map((p) => editorText(formatProblem(p))),
      sqlite: this.state.sqlite,
      partial,
      total: tasks.length,
      metrics,
    };
  }

  // ---- the gold audit --------------------------------------------------------------------------------------

  /** Audits every gold SQL of the dataset (goldAuditRun.ts); cancelled, it returns the gold audited so far. */
  async auditGold(params: AuditGoldParams, signal?: AbortSignal, progress?: (value: AuditProgressValue) => void): Promise<AuditGoldResult> {
    this.requireTrust();
    if (!this.state.dataset) throw new UserError('no dataset is attached: attach a BIRD dataset before auditing its gold SQL', 4);
    if (this.state.questions.length === 0) throw new UserError(`the attached question file has no questions (${this.state.dataset.questionsFile}): attach a BIRD question file`, 4);
    this.host.log(`auditing ${this.state.questions.length} gold SQL${params.predictionFiles?.length ? ` with ${params.predictionFiles.length} prediction files` : ''}${params.scales?.length ? `, at scales ${params.scales.join(', ')}` : ''}`);
    try {
      const result = await runGoldAudit(this.state, this.limits, params, signal, progress);
      this.host.log(`audited ${result.audit.entries.length} of ${result.total} gold SQL${result.partial ? ' (cancelled)' : ''}: ${result.marks.length} worth another look`);
      return result;
    } catch (error) {
      if (error instanceof AuditInputError) throw new UserError(error.message, 2);
      throw error;
    }
  }

  dispose(): Promise<void> {
    return this.state.closeAll();
  }
}
