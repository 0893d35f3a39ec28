import * as vscode from 'vscode';
import { WorkDoneProgress } from 'vscode-languageclient/node';
import {
  Commands,
  EvaluateFileResult,
  QuestionInfo,
  Requests,
  ScoreParams,
  ScoreResult,
  VerifyHintParams,
  VerifyHintResult,
} from '../shared/protocol';
import type { Context } from './extension';
import { webviewHtml } from './webview';

/** One panel of a kind, reused: a second "Score" replaces the first panel's content rather than stacking tabs. */
class Panel {
  private panel: vscode.WebviewPanel | undefined;
  private onMessage: (message: { type: string; [key: string]: unknown }) => void = () => {};

  constructor(
    private readonly ctx: Context,
    private readonly viewType: string,
    private readonly script: string,
  ) {}

  show(title: string, onMessage: Panel['onMessage']): vscode.Webview {
    this.onMessage = onMessage;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(this.viewType, title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist', 'media')],
      });
      this.panel.webview.html = webviewHtml(this.panel.webview, this.ctx.extension.extensionUri, this.script, title);
      this.panel.webview.onDidReceiveMessage((message) => this.onMessage(message));
      this.panel.onDidDispose(() => (this.panel = undefined));
    }
    this.panel.title = title;
    this.panel.reveal(undefined, true);
    return this.panel.webview;
  }
}

function isCancellation(error: unknown): boolean {
  return (error as { code?: number })?.code === -32800 || /cancel/i.test(String((error as Error)?.message));
}

export function registerPanelCommands(ctx: Context): void {
  const { client } = ctx;
  const scorePanel = new Panel(ctx, 'vesLens.score', 'score.js');
  const planPanel = new Panel(ctx, 'vesLens.plan', 'plan.js');
  const reportPanel = new Panel(ctx, 'vesLens.report', 'report.js');
  let running: vscode.CancellationTokenSource | undefined;

  /** Correctness first (a first result in well under two seconds), then the timing rounds. */
  /** What to score: SQL given outright, or the statement at an offset of a document as it is now. */
  type Target = { sql: string } | { uri: string; offset: number };
  async function score(target: Target, questionId?: number | string, questionIndex?: number, thorough = false) {
    running?.cancel();
    const cancel = (running = new vscode.CancellationTokenSource());
    const rerun = () => score(target, questionId, questionIndex, true);
    const label = `question ${questionId ?? `#${questionIndex}`}`;
    const webview = scorePanel.show(`Score: ${label}`, (message) => {
      if (message.type === 'cancel') cancel.cancel();
      if (message.type === 'rerun') void rerun();
    });
    // A re-run keeps the numbers on screen until the new ones arrive; a new score replaces the panel.
    void webview.postMessage({ type: thorough ? 'rerunning' : 'running' });
    // A run superseded by a newer one (another lens clicked) must not post its cancellation over the newer panel.
    const post = (message: object) => { if (running === cancel) void webview.postMessage(message); };
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: thorough ? `VES Lens: re-timing ${label} with more iterations` : `VES Lens: scoring ${label}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => cancel.cancel());
        try {
          if (!thorough) {
            progress.report({ message: 'running prediction and gold' });
            const first = await client.sendRequest<ScoreResult>(Requests.score, { ...target, questionId, questionIndex, phase: 'correctness' }, cancel.token);
            post({ type: 'result', result: first, partial: first.ex === 1 });
            if (first.ex !== 1) return; // nothing to time: only a correct prediction has a VES
          }
          progress.report({ message: 'timing prediction and gold (alternating rounds)' });
          // vesLens.scales: also re-time the pair on scaled copies of its database (the panel draws the ratio against the scale).
          const scales = vscode.workspace.getConfiguration('vesLens').get<number[]>('scales') ?? [];
          const params: ScoreParams & { phase: 'full' } = { ...target, questionId, questionIndex, phase: 'full', thorough: thorough || undefined, scales: scales.length ? scales : undefined };
          const full = await client.sendRequest<ScoreResult>(Requests.score, params, cancel.token);
          post({ type: 'result', result: full, partial: false });
        } catch (error) {
          if (isCancellation(error)) post({ type: 'cancelled', rerun: thorough });
          else {
            post({ type: 'error', message: (error as Error).message, rerun: thorough });
            void vscode.window.showErrorMessage(`VES Lens: ${(error as Error).message}`);
          }
        } finally {
          if (running === cancel) running = undefined;
        }
      },
    );
  }

  async function explain(target: Target, dbId?: string) {
    try {
      const plan = await client.sendRequest<{ lines: string[]; rule: number; work: number; error?: string; sqlite: string; dbPath: string; sql: string }>(Requests.explain, { ...target, dbId });
      const webview = planPanel.show('Query plan', () => {});
      void webview.postMessage({ type: 'plan', sql: plan.sql, plan });
    } catch (error) {
      void vscode.window.showErrorMessage(`VES Lens: ${(error as Error).message}`);
    }
  }

  ctx.extension.subscriptions.push(
    vscode.commands.registerCommand(Commands.scoreAgainstGold, (uri: string, offset: number, questionId?: number | string, questionIndex?: number) => score({ uri, offset }, questionId, questionIndex)),
    vscode.commands.registerCommand(Commands.explain, (uri: string, offset: number, dbId?: string) => explain({ uri, offset }, dbId)),
    vscode.commands.registerCommand(Commands.showHints, async (uri: string, line: number) => {
      const editor = await vscode.window.showTextDocument(vscode.Uri.parse(uri));
      editor.selection = new vscode.Selection(line, 0, line, 0);
      await vscode.commands.executeCommand('workbench.actions.view.problems');
    }),
    vscode.commands.registerCommand(Commands.applyVerifiedRewrite, async (params: VerifyHintParams) => {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `VES Lens: verifying the ${params.rule} rewrite on the database` },
        () => client.sendRequest<VerifyHintResult>(Requests.verifyHint, params),
      );
      if (!result.edit) {
        void vscode.window.showWarningMessage(`VES Lens: ${params.rule} rewrite not applied: ${result.message}`);
        return;
      }
      if (!result.recommended) {
        // Same rows, but not measured faster: show what was measured and let the person decide.
        const choice = await vscode.window.showWarningMessage(`VES Lens: ${params.rule} rewrite not applied: ${result.message}`, 'Apply anyway');
        if (choice !== 'Apply anyway') return;
      }
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(params.uri));
      const edit = new vscode.WorkspaceEdit();
      edit.replace(document.uri, new vscode.Range(document.positionAt(result.edit.start), document.positionAt(result.edit.end)), result.edit.text);
      await vscode.workspace.applyEdit(edit);
      void vscode.window.showInformationMessage(`VES Lens: ${params.rule} rewrite applied: ${result.message}`);
    }),
    vscode.commands.registerCommand(Commands.openQuestion, async (question: QuestionInfo) => {
      const content = [
        `-- bird: ${question.questionId}`,
        `-- db: ${question.dbId} · ${question.difficulty || 'no difficulty'}`,
        `-- Question: ${question.question}`,
        `-- Evidence: ${question.evidence || '(none)'}`,
        `-- Gold SQL:`,
        question.gold.trim().endsWith(';') ? question.gold.trim() : `${question.gold.trim()};`,
        '',
      ].join('\n');
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'sql', content }));
    }),
    vscode.commands.registerCommand('vesLens.explainGold', (item: { question: QuestionInfo }) => explain({ sql: item.question.gold }, item.question.dbId)),
    vscode.commands.registerCommand('vesLens.timeGold', (item: { question: QuestionInfo }) => score({ sql: item.question.gold }, item.question.questionId)),
    vscode.commands.registerCommand(Commands.evaluatePredictionFile, async (uri?: vscode.Uri) => {
      // The file clicked in the explorer, else the prediction file open in the editor, else ask.
      const active = vscode.window.activeTextEditor?.document;
      const activePredictions = active?.languageId === 'json' && /----- bird -----|"predicted_sql"/.test(active.getText().slice(0, 4000)) ? active.uri.fsPath : undefined;
      const file = uri?.fsPath ?? activePredictions ?? (await vscode.window.showOpenDialog({ title: 'Prediction file to evaluate', filters: { 'Predictions': ['json', 'sql', 'txt'] } }))?.[0]?.fsPath;
      if (!file) return;
      const progressToken = `vesLens-eval-${Date.now()}`;
      try {
        const result = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `VES Lens: evaluating ${vscode.workspace.asRelativePath(file)}`, cancellable: true },
          (progress, token) => {
            let last = 0;
            const listener = client.onProgress(WorkDoneProgress.type, progressToken, (value) => {
              if (value.kind !== 'report') return;
              progress.report({ message: value.message, increment: value.percentage !== undefined ? value.percentage - last : undefined });
              last = value.percentage ?? last;
            });
            return client.sendRequest<EvaluateFileResult>(Requests.evaluateFile, { predictionsFile: file, progressToken }, token).finally(() => listener.dispose());
          },
        );
        const webview = reportPanel.show(`Report: ${vscode.workspace.asRelativePath(file)}`, (message) => {
          if (message.type === 'open') void score({ sql: String(message.sql) }, message.questionId as number | string);
        });
        void webview.postMessage({ type: 'report', file, result });
      } catch (error) {
        if (!isCancellation(error)) void vscode.window.showErrorMessage(`VES Lens: ${(error as Error).message}`);
      }
    }),
  );
}
