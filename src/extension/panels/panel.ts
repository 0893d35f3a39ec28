import * as vscode from 'vscode';
import { Ctx } from '../ctx';
import { PAGE_LIBRARIES, panelOptions, webviewHtml } from '../webview';

/**
 * One kind of webview panel: creates its pages with the same HTML and options, wires their messages, and
 * restores them after a reload (a WebviewPanelSerializer: the page keeps its last message in its own state
 * and draws it again; see src/webview/common/vscodeApi.ts). Each panel's disposables are disposed with it.
 */
export class PanelKind<Incoming, Outgoing> {
  private readonly created = new vscode.EventEmitter<vscode.WebviewPanel>();
  /** A panel of this kind came to be (created or restored after a reload). */
  readonly onDidCreate = this.created.event;

  constructor(
    private readonly ctx: Ctx,
    readonly viewType: string,
    private readonly script: string,
    private readonly onMessage: (panel: vscode.WebviewPanel, message: Outgoing) => void,
    /** The libraries its page loads before its script (each one more blocking load before the page can say `ready`). */
    private readonly libraries: readonly string[] = PAGE_LIBRARIES,
  ) {
    ctx.extension.subscriptions.push(
      this.created,
      vscode.window.registerWebviewPanelSerializer(viewType, {
        deserializeWebviewPanel: async (panel) => this.adopt(panel, panel.title),
      }),
    );
  }

  create(title: string, column = vscode.ViewColumn.Beside): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel(
      this.viewType,
      title,
      { viewColumn: column, preserveFocus: true },
      panelOptions(this.ctx.extension.extensionUri),
    );
    this.adopt(panel, title);
    return panel;
  }

  /** Messages for pages that have not said `ready` yet (a message posted before the page listens is lost). */
  private readonly waiting = new Map<vscode.WebviewPanel, Incoming[]>();

  private adopt(panel: vscode.WebviewPanel, title: string): void {
    panel.webview.options = panelOptions(this.ctx.extension.extensionUri);
    this.waiting.set(panel, []);
    panel.webview.html = webviewHtml(panel.webview, this.ctx.extension.extensionUri, this.script, title, this.libraries);
    const listener = panel.webview.onDidReceiveMessage((message: Outgoing | { type: 'ready' }) => {
      if ((message as { type: string }).type === 'ready') {
        const queued = this.waiting.get(panel) ?? [];
        this.waiting.delete(panel);
        for (const waiting of queued) void panel.webview.postMessage(waiting);
      } else this.onMessage(panel, message as Outgoing);
    });
    panel.onDidDispose(() => {
      listener.dispose();
      this.waiting.delete(panel);
    });
    this.created.fire(panel);
  }

  post(panel: vscode.WebviewPanel, message: Incoming): void {
    const queue = this.waiting.get(panel);
    if (queue) queue.push(message);
    else void panel.webview.postMessage(message);
  }
}
