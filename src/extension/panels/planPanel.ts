import * as path from 'path';
import * as vscode from 'vscode';
import { ExplainRequest, QueryTarget, StepProgress, TimeQueryRequest } from '../../shared/protocol';
import { PlanPanelMessage, PlanPanelRequest } from '../../shared/webviewMessages';
import { Ctx } from '../ctx';
import { isCancellation, showError } from '../errors';
import { PanelKind } from './panel';

/** The Plan panel's view type, and the Timing panel's (a query timed alone): package.json activates on both. */
export const PLAN_VIEW_TYPE = 'vesLens.plan';
export const TIMING_VIEW_TYPE = 'vesLens.timing';

/** Where a statement is now, after edits before it: an offset moved by every change that ends at or before it. */
export function followOffset(offset: number, changes: readonly { rangeOffset: number; rangeLength: number; text: string }[]): number {
  let at = offset;
  // VS Code reports a change event's edits against the document before the event, last edit first.
  for (const change of [...changes].sort((a, b) => b.rangeOffset - a.rangeOffset)) {
    if (change.rangeOffset + change.rangeLength <= at) at += change.text.length - change.rangeLength;
    else if (change.rangeOffset < at) at = change.rangeOffset; // the edit swallowed the statement's start
  }
  return at;
}

/** One panel of a kind, reused: created on first use, forgotten when closed, its title saying what it shows. */
class ReusedPanel {
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    readonly kind: PanelKind<PlanPanelMessage, PlanPanelRequest>,
    onClosed: () => void,
    subscriptions: vscode.Disposable[],
  ) {
    subscriptions.push(
      kind.onDidCreate((panel) => {
        this.panel = panel;
        panel.onDidDispose(() => {
          if (this.panel !== panel) return;
          this.panel = undefined;
          onClosed();
        });
      }),
    );
  }

  show(title: string): vscode.WebviewPanel {
    const panel = this.panel ?? this.kind.create(title);
    panel.title = title;
    panel.reveal(undefined, true);
    return panel;
  }

  /** With a title: shown (created if closed) and brought forward; without: to the open panel only, where it is. */
  post(message: PlanPanelMessage, title?: string): void {
    const panel = title === undefined ? this.panel : this.show(title);
    if (panel) this.kind.post(panel, message);
  }
}

/**
 * The plan panel: one, reused. It says which query it shows (document and line, or the question's gold) and
 * follows the statement as it is edited: the plan is explained again a moment after each change. A query timed
 * alone ("Time the Gold SQL") shows in a Timing panel of its own beside it, so the plan being read stays.
 */
export class PlanPanel implements vscode.Disposable {
  private readonly plans: ReusedPanel;
  private readonly timings: ReusedPanel;
  /** The document statement the panel follows, if it shows one. */
  private followed: (QueryTarget & { uri: string; offset: number }) | undefined;
  /** The query the plan panel shows, for its "Run EXPLAIN ANALYZE" button. */
  private shown: QueryTarget | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    const noRequests = () => {};
    // The plan page asks for one request: the plan shown, measured (EXPLAIN ANALYZE runs the query once, read-only).
    const analyze = (_panel: vscode.WebviewPanel, request: PlanPanelRequest) => {
      if (request.type === 'analyze' && this.shown) void this.explain(this.shown, false, true);
    };
    this.plans = new ReusedPanel(
      new PanelKind(ctx, PLAN_VIEW_TYPE, 'plan.js', analyze),
      () => (this.followed = undefined),
      this.subscriptions,
    );
    // The same page draws a timing: a second view type gives it its own tab (and its own restore after a reload).
    this.timings = new ReusedPanel(new PanelKind(ctx, TIMING_VIEW_TYPE, 'plan.js', noRequests), noRequests, this.subscriptions);
    this.subscriptions.push(vscode.workspace.onDidChangeTextDocument((event) => this.documentChanged(event)));
  }

  private documentChanged(event: vscode.TextDocumentChangeEvent): void {
    const followed = this.followed;
    if (!followed || event.document.uri.toString() !== followed.uri || event.contentChanges.length === 0) return;
    followed.offset = followOffset(followed.offset, event.contentChanges);
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.explain(followed, true), 400);
  }

  async explain(target: QueryTarget, following = false, analyze = false): Promise<void> {
    try {
      const client = await this.ctx.client();
      if (analyze) this.plans.post({ type: 'running', what: 'running the query with EXPLAIN ANALYZE (read-only)' });
      const explain = await client.sendRequest(ExplainRequest, { ...target, analyze });
      this.shown = target;
      const where = explain.source
        ? `${path.basename(vscode.Uri.parse(explain.source.uri).path)}:${explain.source.line}`
        : explain.question
          ? `gold of question ${explain.question.questionId}`
          : 'query';
      this.followed =
        target.uri !== undefined && target.offset !== undefined ? { ...target, uri: target.uri, offset: target.offset } : undefined;
      this.plans.post({ type: 'plan', explain, following: Boolean(this.followed) }, `Plan: ${where}`);
    } catch (error) {
      // While following edits, a statement that does not parse yet is no reason for a notification.
      if (following) {
        this.plans.post({ type: 'error', message: (error as Error).message });
      } else void showError(error);
    }
  }

  /** One query timed alone, with its plan and first rows ("Time the Gold SQL"), in the Timing panel: the plan shown stays. */
  async time(target: QueryTarget, label: string): Promise<void> {
    const client = await this.ctx.client().catch((error) => void showError(error));
    if (!client) return;
    const title = `Time: ${label}`;
    this.timings.post({ type: 'running', what: `timing ${label}` }, title);
    const progressToken = `vesLens-time-${Date.now()}`;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `VES Lens: timing ${label}`, cancellable: true },
      async (progress, token) => {
        const steps = client.onProgress(StepProgress, progressToken, ({ message }) => progress.report({ message }));
        try {
          const timing = await client.sendRequest(TimeQueryRequest, { ...target, progressToken }, token);
          this.timings.post({ type: 'timing', timing });
        } catch (error) {
          this.timings.post({ type: 'error', message: isCancellation(error) ? 'cancelled' : (error as Error).message });
          if (!isCancellation(error)) void showError(error);
        } finally {
          steps.dispose();
        }
      },
    );
  }

  dispose(): void {
    clearTimeout(this.debounce);
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
