/**
 * The language server's logic, with no connection: a composition of one provider per feature slice (as
 * vscode-markdown-languageservice composes its providers), sharing one ServerContext (dataset, settings, trust,
 * limits, documents, host). Documents come in through `DocumentSource`, cancellation as an AbortSignal,
 * progress through callbacks, and everything goes out as plain protocol values. server.ts only wires LSP to
 * it; test/server/service.test.ts drives it in-process.
 *
 * Where each feature lives (the same name in src/shared/protocol/, src/extension/panels/ and src/webview/):
 *   dataset/datasetProvider.ts  attach a dataset, its questions, a question's document
 *   hints/hintsProvider.ts      diagnostics, quick fixes, lenses, hover, verified rewrites
 *   score/scoreProvider.ts      Score against gold (EX, Soft-F1, VES, R-VES, SQLMorph's techniques)
 *   plan/planProvider.ts        Explain and Time one query
 *   judge/judgeProvider.ts      the LLM judge
 *   optimize/optimizeProvider.ts  Find a faster equivalent (verified rewrites) and index advice
 *   report/reportProvider.ts    a whole prediction file evaluated
 *   audit/auditProvider.ts      the gold audit
 */
import { useInputWording } from '../core/text/inputWording';
import { engineChoiceText } from '../app/datasetOpen';
import { Dataset, DatasetSummary, InitializationOptions } from '../shared/protocol';
import { DEFAULT_SETTINGS, VesLensSettings } from '../shared/settings';
import { AuditProvider } from './audit/auditProvider';
import { ServerContext, ServiceHost } from './context';
import { DatasetProvider } from './dataset/datasetProvider';
import { EDITOR_WORDING } from './editorText';
import { HintsProvider } from './hints/hintsProvider';
import { JudgeProvider } from './judge/judgeProvider';
import { OptimizeProvider } from './optimize/optimizeProvider';
import { PlanProvider } from './plan/planProvider';
import { QueryTargets } from './queryTargets';
import { ReportProvider } from './report/reportProvider';
import { ScoreProvider } from './score/scoreProvider';

export type { DocumentSource, ServiceHost } from './context';
export { CancelledError, UserError } from './errors';

/** Settings whose change alters the hints (and so the diagnostics and the lenses' hint counts). */
const HINT_SETTINGS: (keyof VesLensSettings)[] = ['rules', 'diagnosticsInQuestionFiles', 'defaultDatabase'];
/** Settings that say where the dataset's databases are: a change connects to them anew (reconnect). */
const ENGINE_SETTINGS: (keyof VesLensSettings)[] = ['engine', 'postgresUrl', 'postgresLayout'];

export class VesLensService {
  private readonly context: ServerContext;
  private readonly targets: QueryTargets;
  private readonly datasets: DatasetProvider;
  private readonly hints: HintsProvider;
  private readonly scores: ScoreProvider;
  private readonly plans: PlanProvider;
  private readonly judges: JudgeProvider;
  private readonly optimizer: OptimizeProvider;
  private readonly reports: ReportProvider;
  private readonly audits: AuditProvider;

  constructor(host: ServiceHost) {
    // Core's messages name the inputs they refer to as the editor does (settings, dataset files, quick fixes).
    useInputWording(EDITOR_WORDING);
    this.context = new ServerContext(host);
    this.targets = new QueryTargets(this.context);
    this.datasets = new DatasetProvider(this.context);
    this.hints = new HintsProvider(this.context, this.targets);
    this.scores = new ScoreProvider(this.context, this.targets);
    this.plans = new PlanProvider(this.context, this.targets);
    this.judges = new JudgeProvider(this.context, this.targets);
    this.optimizer = new OptimizeProvider(this.context, this.targets);
    this.reports = new ReportProvider(this.context);
    this.audits = new AuditProvider(this.context);
  }

  // ---- lifecycle: start options, settings, trust, dataset ---------------------------------------------------

  async initialize(options: InitializationOptions): Promise<void> {
    this.context.storageDir = options.storageDir;
    this.context.trusted = Boolean(options.trusted);
    this.context.settings = { ...DEFAULT_SETTINGS, ...options.settings };
    await this.attach(options.dataset ?? null);
  }

  /** New settings; says whether diagnostics or lenses must be recomputed, and whether the databases must be reconnected. */
  applySettings(settings: VesLensSettings): { diagnostics: boolean; lenses: boolean; databases: boolean } {
    const before = this.context.settings;
    const after = { ...DEFAULT_SETTINGS, ...settings };
    this.context.settings = after;
    const changed = (key: keyof VesLensSettings) => JSON.stringify(before[key]) !== JSON.stringify(after[key]);
    const databases = ENGINE_SETTINGS.some(changed);
    const diagnostics = databases || HINT_SETTINGS.some(changed);
    if (diagnostics) this.hints.forgetAll();
    this.context.log(
      `settings: timeout ${after.timeoutSeconds} s, max rows ${after.maxRows}, default database ${after.defaultDatabase || '(none)'}, ` +
        `timing ${after.timingMode}${after.timingMode === 'official' ? ` (${after.timingIterations} iterations)` : ''}, ` +
        `scales [${after.scales.join(', ')}], techniques [${after.techniques.join(', ')}], embeddings ${after.embeddingsProvider}${after.embeddingsProvider === 'openai' ? ` at ${after.embeddingsUrl}` : ''}, ` +
        `engine ${engineChoiceText(after)}`,
    );
    return { diagnostics, lenses: diagnostics || changed('codeLensEnabled'), databases };
  }

  /**
   * The dataset's databases connected anew, as the settings and the stored password say now (after an engine
   * setting changed, or a password was set or cleared): everything derived from the previous ones is forgotten.
   */
  async reconnect(): Promise<DatasetSummary> {
    this.hints.forgetAll();
    this.targets.forgetPreviews();
    this.judges.forgetDatabases();
    return this.datasets.reconnect();
  }

  setTrust(trusted: boolean): void {
    this.context.trusted = trusted;
    this.hints.forgetAll();
  }

  /** A new dataset (or none): everything derived from the previous one is forgotten. */
  attach(dataset: Dataset | null) {
    this.hints.forgetAll();
    this.targets.forgetPreviews();
    this.judges.forgetDatabases();
    return this.datasets.attach(dataset);
  }

  dispose(): Promise<void> {
    return this.context.state.closeAll();
  }

  // ---- the features, each its provider's ---------------------------------------------------------------------

  readonly summary = () => this.datasets.summary();
  readonly questions: DatasetProvider['questions'] = (dbId) => this.datasets.questions(dbId);
  readonly questionDocument: DatasetProvider['questionDocument'] = (questionId) => this.datasets.questionDocument(questionId);

  readonly diagnostics: HintsProvider['diagnostics'] = (document) => this.hints.diagnostics(document);
  readonly codeActions: HintsProvider['codeActions'] = (document, diagnostics) => this.hints.codeActions(document, diagnostics);
  readonly codeLenses: HintsProvider['codeLenses'] = (document, whenHintsReady) => this.hints.codeLenses(document, whenHintsReady);
  readonly hover: HintsProvider['hover'] = (document, position) => this.hints.hover(document, position);
  readonly forget: HintsProvider['forget'] = (uri) => this.hints.forget(uri);
  readonly verifyHint: HintsProvider['verifyHint'] = (params, signal) => this.hints.verifyHint(params, signal);
  readonly ruleHints: HintsProvider['ruleHints'] = (params) => this.hints.ruleHints(params);

  readonly score: ScoreProvider['score'] = (params, signal, progress) => this.scores.score(params, signal, progress);
  readonly counterexample: ScoreProvider['counterexample'] = (params, signal, progress) =>
    this.scores.counterexample(params, signal, progress);
  readonly explain: PlanProvider['explain'] = (params, signal) => this.plans.explain(params, signal);
  readonly timeQuery: PlanProvider['timeQuery'] = (params, signal, progress) => this.plans.timeQuery(params, signal, progress);
  readonly optimize: OptimizeProvider['optimize'] = (params, signal, progress) => this.optimizer.optimize(params, signal, progress);
  readonly indexAdvice: OptimizeProvider['indexAdvice'] = (params, signal) => this.optimizer.indexAdvice(params, signal);
  readonly judge: JudgeProvider['judge'] = (params, signal, progress) => this.judges.judge(params, signal, progress);
  readonly evaluateFile: ReportProvider['evaluateFile'] = (params, signal, onRows) => this.reports.evaluateFile(params, signal, onRows);
  readonly compareReports: ReportProvider['compareReports'] = (params) => this.reports.compareReports(params);
  readonly auditGold: AuditProvider['auditGold'] = (params, signal, progress) => this.audits.auditGold(params, signal, progress);
}
