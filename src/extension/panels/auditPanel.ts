import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { AuditGoldRequest, AuditGoldResult, AuditProgress, Dataset } from '../../shared/protocol';
import { AuditPanelRequest } from '../../shared/webviewMessages';
import { Ctx, currentSettings } from '../ctx';
import { fileHead, isFileOf, workspaceJsonFiles } from '../dataset';
import { isCancellation, showError } from '../errors';
import { pickFiles } from '../pickFiles';
import { QuestionMark } from '../explorer';
import { questionUri } from '../questionDocuments';
import { escapeText, REPORT_PAGE_STYLESHEET, reportWebviewPage } from '../reportPage';
import { panelOptions } from '../webview';
import { auditDoneMessage, auditStatusLine } from '../../app/auditSummary';

const VIEW_TYPE = 'vesLens.goldAudit';
/** The last audit, in the workspace's storage: marks and panel survive a reload. */
const STORE = 'gold-audit.json';

const sameDataset = (a: Dataset | null | undefined, b: Dataset | null | undefined) =>
  Boolean(a && b && a.questionsFile === b.questionsFile && (a.goldFile ?? '') === (b.goldFile ?? '') && a.dbRoot === b.dbRoot);

/** Markdown's special characters escaped: reasons hold SQL (`"t" ("c")`, `*`, `_`). */
const markdownText = (text: string) => text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');

/** Prediction files and eval reports of the workspace, offered in the pick (a person may choose others too). */
const workspacePredictionFiles = () => workspaceJsonFiles(['predictions', 'eval-report']);

/** undefined: the person cancelled; []: audit the gold alone. */
async function pickPredictionFiles(): Promise<string[] | undefined> {
  return pickFiles(
    (await workspacePredictionFiles()).map((file) => ({
      file,
      description: isFileOf(fileHead(file), ['eval-report']) ? 'eval report' : 'prediction file',
    })),
    {
      title: 'Audit Gold SQL: prediction files whose correct predictions ≥2× faster than the gold count (optional)',
      placeHolder: 'None checked: the gold alone. OK starts the audit.',
    },
    { title: 'Prediction files or eval --json reports', filters: { Predictions: ['json', 'sql', 'txt'] } },
  );
}

/**
 * "Audit Gold SQL": runs core's gold audit of the attached dataset in the language server (cancellable, a step
 * per question; a cancelled run keeps what it measured), shows core's HTML page in a webview (the webview's CSP,
 * the theme's colours, question ids that open the question's gold), marks the flagged questions in the BIRD
 * explorer, and keeps the last audit in the workspace's storage so marks and page come back after a reload.
 */
export class GoldAudits implements vscode.Disposable {
  private last: AuditGoldResult | undefined;
  private panel: vscode.WebviewPanel | undefined;
  private running: vscode.CancellationTokenSource | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly setMarks: (source: string, marks: ReadonlyMap<string, QuestionMark>) => void,
  ) {
    this.last = this.load();
    ctx.extension.subscriptions.push(
      vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, { deserializeWebviewPanel: async (panel) => this.adopt(panel) }),
      // The marks belong to the dataset audited: another dataset shows none, the same one again shows them.
      ctx.onDatasetChanged((summary) => this.mark(summary.dataset)),
    );
  }

  private get storeFile(): string {
    return path.join((this.ctx.extension.storageUri ?? this.ctx.extension.globalStorageUri).fsPath, STORE);
  }

  private load(): AuditGoldResult | undefined {
    try {
      const saved = JSON.parse(fs.readFileSync(this.storeFile, 'utf8')) as AuditGoldResult;
      return saved?.audit && Array.isArray(saved.marks) && typeof saved.html === 'string' ? saved : undefined;
    } catch {
      return undefined; // none yet, or unreadable: no marks
    }
  }

  private async keep(result: AuditGoldResult): Promise<void> {
    this.last = result;
    try {
      fs.mkdirSync(path.dirname(this.storeFile), { recursive: true });
      fs.writeFileSync(this.storeFile, JSON.stringify(result));
    } catch (error) {
      this.ctx.output.appendLine(`the gold audit could not be kept for the next session: ${(error as Error).message}`);
    }
    this.mark(this.ctx.lastSummary?.dataset);
  }

  private mark(dataset: Dataset | null | undefined): void {
    const current = this.last && sameDataset(this.last.dataset, dataset) ? this.last : undefined;
    const marks = new Map<string, QuestionMark>();
    for (const m of current?.marks ?? []) {
      const reasons = m.reasons.map((r) => `- ${markdownText(r)}`).join('\n');
      marks.set(m.questionId, {
        text: `gold: ${m.headline}`,
        tooltip: `**Gold audit #${m.rank}** (score ${m.score.toFixed(1)})\n\n${reasons}`,
      });
    }
    this.setMarks('audit', marks);
    void vscode.commands.executeCommand('setContext', 'vesLens.goldAuditAvailable', Boolean(current));
  }

  async run(): Promise<void> {
    const client = await this.ctx.client();
    const summary = this.ctx.lastSummary;
    if (!summary?.dataset || summary.error)
      throw new Error('no dataset is attached: attach a BIRD dataset (VES Lens: Attach a BIRD Dataset...) to audit its gold SQL');
    if (this.running)
      return void vscode.window.showInformationMessage('VES Lens: the gold audit is already running (see its notification to cancel it).');
    const predictionFiles = await pickPredictionFiles();
    if (predictionFiles === undefined) return;
    const scales = currentSettings().scales;
    const cancel = (this.running = new vscode.CancellationTokenSource());
    const progressToken = `vesLens-audit-${Date.now()}`;
    const name = path.basename(summary.dataset.questionsFile);
    try {
      const result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `VES Lens: auditing the gold SQL of ${name}${scales.length ? ` (at scales ${scales.join(', ')})` : ''}`,
          cancellable: true,
        },
        (progress, token) => {
          token.onCancellationRequested(() => cancel.cancel());
          let last = 0;
          const listener = client.onProgress(AuditProgress, progressToken, (value) => {
            const percentage = Math.round((100 * value.done) / Math.max(1, value.total));
            progress.report({ message: value.message, increment: percentage - last });
            last = percentage;
          });
          return client
            .sendRequest(AuditGoldRequest, { predictionFiles, scales, progressToken }, cancel.token)
            .finally(() => listener.dispose());
        },
      );
      await this.keep(result);
      this.show();
      void vscode.window.showInformationMessage(`VES Lens: ${auditDoneMessage(result)}`);
      if (result.problems.length) void vscode.window.showWarningMessage(`VES Lens: ${result.problems.join('; ')}`);
    } catch (error) {
      if (!isCancellation(error)) throw error;
    } finally {
      this.running = undefined;
      cancel.dispose();
    }
  }

  /** Opens (or reveals) the page of the last audit. */
  show(): void {
    if (!this.last) throw new Error('no gold audit yet: run "VES Lens: Audit Gold SQL" first');
    if (this.panel) {
      this.render();
      this.panel.reveal(undefined, false);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      'Gold Audit',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      panelOptions(this.ctx.extension.extensionUri),
    );
    this.adopt(panel);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel?.dispose();
    this.panel = panel;
    panel.webview.options = panelOptions(this.ctx.extension.extensionUri);
    const listener = panel.webview.onDidReceiveMessage(
      (message: AuditPanelRequest) => void this.onMessage(message).catch((error) => void showError(error)),
    );
    panel.onDidDispose(() => {
      listener.dispose();
      if (this.panel === panel) this.panel = undefined;
    });
    this.render();
  }

  private render(): void {
    const panel = this.panel;
    if (!panel) return;
    const result = this.last;
    if (!result) {
      panel.webview.html = '<!DOCTYPE html><html><body><p>No gold audit yet: run "VES Lens: Audit Gold SQL".</p></body></html>';
      return;
    }
    panel.title = `Gold Audit: ${path.basename(result.dataset.questionsFile)}`;
    const status = escapeText(auditStatusLine(result));
    const when = new Date(result.finishedAt).toLocaleString();
    const shownStatus = result.partial ? `<span class="vl-partial">${status}</span>` : status;
    const bar =
      `<div class="vl-bar"><span class="vl-status">${shownStatus} · ${escapeText(when)} · a question id opens its gold</span>` +
      '<button type="button" data-action="save">Save as HTML</button>' +
      '<button type="button" class="secondary" data-action="rerun">Run Again</button></div>';
    const webview = panel.webview;
    const media = (file: string) =>
      webview.asWebviewUri(vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist', 'media', file)).toString();
    webview.html = reportWebviewPage(result.html, {
      nonce: randomBytes(16).toString('base64'),
      cspSource: webview.cspSource,
      media,
      stylesheet: REPORT_PAGE_STYLESHEET,
      script: 'audit.js',
      bar,
    });
  }

  private async onMessage(message: AuditPanelRequest): Promise<void> {
    if (message.type === 'openQuestion') {
      const document = await vscode.workspace.openTextDocument(questionUri({ dbId: message.dbId, questionId: message.questionId }));
      await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One, preview: true });
    }
    if (message.type === 'rerun') await this.run();
    if (message.type === 'save' && this.last) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const target = await vscode.window.showSaveDialog({
        title: 'Save the gold audit as one self-contained HTML file',
        defaultUri: folder ? vscode.Uri.joinPath(folder, 'gold-audit.html') : undefined,
        filters: { HTML: ['html'] },
      });
      if (!target) return;
      // The page `ves-lens audit --html` writes, as the server rendered it: not the webview's adaptation.
      await vscode.workspace.fs.writeFile(target, Buffer.from(this.last.html, 'utf8'));
      void vscode.window.showInformationMessage(`VES Lens: gold audit written to ${vscode.workspace.asRelativePath(target)}`);
    }
  }

  dispose(): void {
    this.running?.cancel();
  }
}
