import { randomBytes } from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import { CompareReportsRequest, CompareReportsResult } from '../../shared/protocol';
import { ComparePageState, ComparePanelRequest } from '../../shared/webviewMessages';
import { Ctx } from '../ctx';
import { workspaceJsonFiles } from '../dataset';
import { showError } from '../errors';
import { pickFiles } from '../pickFiles';
import { escapeText, REPORT_PAGE_STYLESHEET, reportWebviewPage } from '../reportPage';
import { panelOptions } from '../webview';
import { comparisonBar, comparisonTitle, secondReport, selectedReports } from './compareSummary';

const VIEW_TYPE = 'vesLens.compare';

const REPORT_DIALOG = { title: 'Eval JSON reports (ves-lens eval --json)', filters: { 'Eval reports': ['json'] } };

/**
 * Eval reports to compare: those of the workspace, or others (the file dialog takes several); the first is the
 * baseline. One chosen: the others of the workspace are offered to compare it with, or what is missing is said.
 */
async function pickReports(): Promise<string[] | undefined> {
  const reports = await workspaceJsonFiles(['eval-report']);
  const files = await pickFiles(
    reports.map((file) => ({ file })),
    {
      title: 'Compare Evaluation Reports: two or more eval JSON reports of the same question file',
      placeHolder: 'Check two or more; the first in this list is the baseline. OK compares them.',
    },
    REPORT_DIALOG,
  );
  if (!files || files.length !== 1) return files;
  const second = secondReport(files[0], reports);
  if ('missing' in second) throw new Error(second.missing);
  const more = await pickFiles(
    second.offer.map((file) => ({ file })),
    {
      title: `Compare ${path.basename(files[0])} (the baseline) with: one or more other eval reports`,
      placeHolder: 'Check one or more. OK compares them with the report chosen first.',
    },
    REPORT_DIALOG,
  );
  return more && [...files, ...more.filter((file) => file !== files[0])];
}

/**
 * "Compare Two Evaluation Reports...": the comparison `ves-lens compare` gives (each metric with a paired
 * bootstrap interval of the difference, McNemar's p for EX, what became correct, wrong, faster or slower), as
 * core's HTML page in a webview (the webview's CSP and nonce, the theme's colours). The language server reads
 * and compares the reports; one panel, reused, compares its reports again after a reload.
 */
export class ReportComparisons {
  private panel: vscode.WebviewPanel | undefined;
  private shown: { files: string[]; result: CompareReportsResult } | undefined;

  constructor(private readonly ctx: Ctx) {
    ctx.extension.subscriptions.push(
      vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: Partial<ComparePageState> | undefined) => {
          this.adopt(panel);
          const files = state?.files ?? [];
          if (files.length < 2) return this.say('Nothing compared yet: run "VES Lens: Compare Two Evaluation Reports...".');
          await this.compare(files).catch((error) => this.say(`These reports could not be compared again: ${(error as Error).message}`));
        },
      }),
    );
  }

  /** From the command: an Explorer selection of two or more JSON files, else a pick. */
  async run(clicked?: vscode.Uri, selected?: readonly vscode.Uri[]): Promise<void> {
    const files =
      selectedReports(
        clicked?.fsPath,
        selected?.map((uri) => uri.fsPath),
      ) ?? (await pickReports());
    if (!files) return;
    if (files.length === 0) throw new Error('no eval report was chosen: check two or more to compare them');
    if (files.length < 2) throw new Error(`only ${files[0]} was chosen: check a second eval report to compare it with`);
    await this.compare(files);
  }

  private async compare(files: string[]): Promise<void> {
    const client = await this.ctx.client();
    const names = files.map((file) => path.basename(file)).join(', ');
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `VES Lens: comparing ${names}` },
      () => client.sendRequest(CompareReportsRequest, { files }),
    );
    this.shown = { files, result };
    if (!this.panel) {
      const options = { viewColumn: vscode.ViewColumn.Active, preserveFocus: false };
      this.adopt(
        vscode.window.createWebviewPanel(VIEW_TYPE, comparisonTitle(result.labels), options, panelOptions(this.ctx.extension.extensionUri)),
      );
    }
    this.render();
    this.panel?.reveal(undefined, false);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel?.dispose();
    this.panel = panel;
    panel.webview.options = panelOptions(this.ctx.extension.extensionUri);
    const listener = panel.webview.onDidReceiveMessage(
      (message: ComparePanelRequest) => void this.onMessage(message).catch((error) => void showError(error)),
    );
    panel.onDidDispose(() => {
      listener.dispose();
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.shown = undefined;
    });
  }

  /** A line in the panel instead of a comparison (nothing to compare after a reload, or the reports are gone). */
  private say(text: string): void {
    if (this.panel) this.panel.webview.html = `<!DOCTYPE html><html><body><p>${escapeText(text)}</p></body></html>`;
  }

  private render(): void {
    const { panel, shown } = this;
    if (!panel || !shown) return;
    panel.title = comparisonTitle(shown.result.labels);
    const webview = panel.webview;
    const media = (file: string) =>
      webview.asWebviewUri(vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist', 'media', file)).toString();
    webview.html = reportWebviewPage(shown.result.html, {
      nonce: randomBytes(16).toString('base64'),
      cspSource: webview.cspSource,
      media,
      stylesheet: REPORT_PAGE_STYLESHEET,
      script: 'compare.js',
      bar: comparisonBar(shown.result, shown.files),
    });
  }

  private async onMessage(message: ComparePanelRequest): Promise<void> {
    if (message.type === 'pick') await this.run();
    if (message.type === 'save' && this.shown) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const target = await vscode.window.showSaveDialog({
        title: 'Save the comparison as one self-contained HTML file',
        defaultUri: folder ? vscode.Uri.joinPath(folder, 'comparison.html') : undefined,
        filters: { HTML: ['html'] },
      });
      if (!target) return;
      // The page `ves-lens compare --html` writes, as the server rendered it: not the webview's adaptation.
      await vscode.workspace.fs.writeFile(target, Buffer.from(this.shown.result.html, 'utf8'));
      void vscode.window.showInformationMessage(`VES Lens: comparison written to ${vscode.workspace.asRelativePath(target)}`);
    }
  }
}
