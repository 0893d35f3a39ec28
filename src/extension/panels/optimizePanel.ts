import * as path from 'path';
import * as vscode from 'vscode';
import { IndexAdviceRequest, OptimizeRequest, OptimizeResult, QueryTarget, StepProgress } from '../../shared/protocol';
import { OptimizePanelMessage, OptimizePanelRequest, RewriteAction } from '../../shared/webviewMessages';
import { Ctx } from '../ctx';
import { isCancellation, showError } from '../errors';
import { isReadOnlyDocument } from '../readOnlyRewrite';
import { PanelKind } from './panel';

export const OPTIMIZE_VIEW_TYPE = 'vesLens.optimize';

/**
 * The Optimize panel ("Find a faster equivalent", issue 28): one, reused. A search runs through the language
 * server (vesLens/optimize) in a cancellable notification, its steps shown in the panel too; a new search cancels
 * the one running. Apply replaces the statement in its document when the document is still as it was searched
 * (else the person is told to search again); a read-only gold offers Copy only. Index advice is asked for from
 * the panel (vesLens/indexAdvice), kept apart from the rewrites.
 */
export class OptimizePanel implements vscode.Disposable {
  private readonly kind: PanelKind<OptimizePanelMessage, OptimizePanelRequest>;
  private panel: vscode.WebviewPanel | undefined;
  /** The statement searched last (for Search again and index advice), and what the search returned. */
  private target: QueryTarget | undefined;
  private label = '';
  private result: OptimizeResult | undefined;
  private running: vscode.CancellationTokenSource | undefined;
  constructor(private readonly ctx: Ctx) {
    this.kind = new PanelKind(ctx, OPTIMIZE_VIEW_TYPE, 'optimize.js', (_panel, request) => void this.onRequest(request));
    ctx.extension.subscriptions.push(
      this.kind.onDidCreate((panel) => {
        this.panel = panel;
        panel.onDidDispose(() => {
          if (this.panel === panel) this.panel = undefined;
        });
      }),
    );
  }

  private post(message: OptimizePanelMessage): void {
    if (this.panel) this.kind.post(this.panel, message);
  }

  private show(title: string): void {
    const panel = this.panel ?? this.kind.create(title);
    panel.title = title;
    panel.reveal(undefined, true);
  }

  /** Which statement, in words: the document and line, a question's gold, or "query". */
  private static labelOf(target: QueryTarget): string {
    if (target.uri && target.offset !== undefined) {
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.uri);
      const name = path.basename(vscode.Uri.parse(target.uri).path);
      return document ? `${name}, line ${document.positionAt(target.offset).line + 1}` : name;
    }
    return target.questionId !== undefined ? `question ${target.questionId}` : 'query';
  }

  /** "Find a faster equivalent" of one statement: the search, cancellable, then its result in the panel. */
  async find(target: QueryTarget, label = OptimizePanel.labelOf(target)): Promise<void> {
    const client = await this.ctx.client().catch((error) => void showError(error));
    if (!client) return;
    this.running?.cancel();
    const cancel = new vscode.CancellationTokenSource();
    this.running = cancel;
    this.target = target;
    this.label = label;
    this.result = undefined;
    const config = vscode.workspace.getConfiguration('vesLens');
    this.show(`Faster: ${label}`);
    this.post({
      type: 'running',
      label,
      bounds: {
        scale: config.get<number>('optimize.scale') ?? 1,
        budgetSeconds: config.get<number>('optimize.budgetSeconds') ?? 60,
        timeoutSeconds: config.get<number>('optimize.timeoutSeconds') ?? 30,
        counterexampleSeconds: config.get<number>('optimize.counterexampleSeconds') ?? 5,
      },
    });
    const progressToken = `vesLens-optimize-${Date.now()}`;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `VES Lens: looking for a faster equivalent of ${label}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => cancel.cancel());
        const steps = client.onProgress(StepProgress, progressToken, ({ message }) => {
          progress.report({ message });
          this.post({ type: 'step', message });
        });
        try {
          const result = await client.sendRequest(OptimizeRequest, { ...target, progressToken }, cancel.token);
          if (this.running !== cancel) return;
          this.result = result;
          this.post({ type: 'result', label, result, action: await this.actionFor(result) });
        } catch (error) {
          if (this.running !== cancel) return;
          if (isCancellation(error)) this.post({ type: 'cancelled' });
          else {
            this.post({ type: 'error', message: (error as Error).message });
            void showError(error);
          }
        } finally {
          steps.dispose();
          if (this.running === cancel) this.running = undefined;
          cancel.dispose();
        }
      },
    );
  }

  /** Apply where the statement's document can be edited; Copy for a read-only one (a question's gold). */
  private async actionFor(result: OptimizeResult): Promise<RewriteAction> {
    if (!result.edit) return 'none';
    const uri = vscode.Uri.parse(result.edit.uri);
    return isReadOnlyDocument(uri.scheme, vscode.workspace.fs.isWritableFileSystem(uri.scheme)) ? 'copy' : 'apply';
  }

  private async onRequest(request: OptimizePanelRequest): Promise<void> {
    try {
      if (request.type === 'cancel') this.running?.cancel();
      else if (request.type === 'rerun' && this.target) await this.find(this.target, this.label);
      else if (request.type === 'apply') await this.apply();
      else if (request.type === 'copy') await this.copy();
      else if (request.type === 'indexAdvice') await this.indexAdvice(request.measure);
      else if (request.type === 'witness') await this.witness(request.database);
      else if (request.type === 'settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'vesLens.optimize');
    } catch (error) {
      void showError(error);
    }
  }

  /** The rewrite in place of the statement, if the document is still the one searched. */
  private async apply(): Promise<void> {
    const edit = this.result?.edit;
    if (!edit) return;
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(edit.uri));
    if (document.version !== edit.version) {
      void vscode.window.showWarningMessage(
        'VES Lens: the document changed since the search, so the rewrite is not applied: search again (or Copy it).',
      );
      return;
    }
    const change = new vscode.WorkspaceEdit();
    change.replace(document.uri, new vscode.Range(document.positionAt(edit.start), document.positionAt(edit.end)), edit.text);
    if (!(await vscode.workspace.applyEdit(change))) throw new Error('VS Code did not apply the rewrite');
    const best = this.result!.optimization.best!;
    this.post({ type: 'applied', message: `applied (${best.patterns.join(' + ')}): undo with Ctrl+Z` });
  }

  private async copy(): Promise<void> {
    const best = this.result?.optimization.best;
    if (!best) return;
    await vscode.env.clipboard.writeText(best.sql);
    void vscode.window.showInformationMessage(`VES Lens: the faster equivalent (${best.patterns.join(' + ')}) is on the clipboard.`);
  }

  private async indexAdvice(measure: boolean): Promise<void> {
    if (!this.target) return;
    const client = await this.ctx.client();
    this.post({ type: 'index-running', measure });
    try {
      const advice = await client.sendRequest(IndexAdviceRequest, { ...this.target, measure });
      this.post({ type: 'index-advice', advice });
    } catch (error) {
      this.post({ type: 'index-failed', message: (error as Error).message });
    }
  }

  /** The database that shows a rejected rewrite's other rows: its path copied (only one the last search named). */
  private async witness(database: string): Promise<void> {
    if (!this.result?.optimization.rejected.some((r) => r.witness === database)) return;
    await vscode.env.clipboard.writeText(database);
    void vscode.window.showInformationMessage(`VES Lens: copied ${database}`);
  }

  dispose(): void {
    this.running?.cancel();
  }
}
