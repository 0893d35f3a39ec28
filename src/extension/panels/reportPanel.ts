import * as fs from 'fs';
import * as vscode from 'vscode';
import { counted } from '../../core/text/numberText';
import { EvaluateFileRequest, EvaluationProgress, ReportRow } from '../../shared/protocol';
import { ReportPanelMessage, ReportPanelRequest } from '../../shared/webviewMessages';
import { Ctx } from '../ctx';
import { isCancellation, showError } from '../errors';
import { JudgeStore } from '../judgeStore';
import { PanelKind } from './panel';

/** The columns a CSV export has, in order: the JSON contract's names. */
const CSV_COLUMNS: (keyof ReportRow)[] = [
  'index',
  'question_id',
  'db_id',
  'difficulty',
  'outcome',
  'ex',
  'f1',
  'ves',
  'rves',
  'rves_reward',
  'time_ratio',
  'rves_time_ratio',
  'gold_ms',
  'pred_ms',
  'same_program',
  'reason',
  'error',
  'predicted_sql',
];

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows as CSV (RFC 4180: quoted where needed, CRLF line ends). */
export function reportCsv(rows: readonly ReportRow[]): string {
  return [CSV_COLUMNS.join(','), ...rows.map((row) => CSV_COLUMNS.map((column) => csvCell(row[column])).join(','))].join('\r\n') + '\r\n';
}

/**
 * Evaluation reports: one panel per prediction file (several can be open side by side). Results stream in
 * as they become final; a cancelled run keeps what it scored and says so.
 */
export class ReportPanels implements vscode.Disposable {
  private readonly kind: PanelKind<ReportPanelMessage, ReportPanelRequest>;
  private readonly panels = new Map<string, vscode.WebviewPanel>();
  private readonly running = new Map<vscode.WebviewPanel, vscode.CancellationTokenSource>();

  constructor(
    private readonly ctx: Ctx,
    private readonly openScore: (questionId: number | string, sql: string) => void,
    private readonly judgements?: JudgeStore,
  ) {
    // No charts or highlighting on this page: without those libraries (240 KB parsed before it can say `ready`) its first row comes sooner.
    this.kind = new PanelKind(ctx, 'vesLens.report', 'report.js', (panel, message) => void this.onMessage(panel, message), []);
    // Every report page (restored after a reload too) shows the judgements, and each new one at once.
    const open = new Set<vscode.WebviewPanel>();
    ctx.extension.subscriptions.push(
      this.kind.onDidCreate((panel) => {
        open.add(panel);
        panel.onDidDispose(() => open.delete(panel));
        this.postJudgements(panel);
      }),
    );
    if (judgements) ctx.extension.subscriptions.push(judgements.onDidChange(() => open.forEach((panel) => this.postJudgements(panel))));
  }

  private postJudgements(panel: vscode.WebviewPanel): void {
    if (this.judgements) this.kind.post(panel, { type: 'judgements', byQuestion: this.judgements.all() });
  }

  private async onMessage(panel: vscode.WebviewPanel, message: ReportPanelRequest): Promise<void> {
    if (message.type === 'open') this.openScore(message.questionId, message.sql);
    if (message.type === 'cancel') this.running.get(panel)?.cancel();
    if (message.type === 'jump') {
      const position = new vscode.Position(message.line, message.character);
      await vscode.window.showTextDocument(vscode.Uri.file(message.file), {
        selection: new vscode.Range(position, position),
        viewColumn: vscode.ViewColumn.One,
      });
    }
    if (message.type === 'export') {
      const base = message.file.replace(/\.[^.]+$/, '');
      const target = await vscode.window.showSaveDialog({
        title: `Export ${counted(message.rows.length, 'question')} as CSV`,
        defaultUri: vscode.Uri.file(`${base}.report.csv`),
        filters: { CSV: ['csv'] },
      });
      if (!target) return;
      await vscode.workspace.fs.writeFile(target, Buffer.from(reportCsv(message.rows), 'utf8'));
      void vscode.window.showInformationMessage(
        `VES Lens: ${message.rows.length} questions written to ${vscode.workspace.asRelativePath(target)}`,
      );
    }
    if (message.type === 'exportReport') {
      const base = message.file.replace(/\.[^.]+$/, '');
      const questions = message.report.questions.length;
      const target = await vscode.window.showSaveDialog({
        title: `Export the eval report (${counted(questions, 'question')}, as ves-lens eval --json writes it)`,
        defaultUri: vscode.Uri.file(`${base}.eval.json`),
        filters: { 'Eval report': ['json'] },
      });
      if (!target) return;
      await vscode.workspace.fs.writeFile(target, Buffer.from(`${JSON.stringify(message.report, null, 2)}\n`, 'utf8'));
      void vscode.window.showInformationMessage(
        `VES Lens: eval report of ${counted(questions, 'question')} written to ${vscode.workspace.asRelativePath(target)}; Compare Evaluation Reports reads it`,
      );
    }
  }

  async evaluate(file: string): Promise<void> {
    const client = await this.ctx.client().catch((error) => void showError(error));
    if (!client) return;
    if (!fs.existsSync(file)) return void showError(new Error(`${file}: no such file`));
    const title = `Report: ${vscode.workspace.asRelativePath(file)}`;
    let panel = this.panels.get(file);
    if (!panel) {
      panel = this.kind.create(title);
      this.panels.set(file, panel);
      const created = panel;
      panel.onDidDispose(() => {
        this.running.get(created)?.cancel();
        if (this.panels.get(file) === created) this.panels.delete(file);
      });
    }
    panel.reveal(undefined, true);
    this.running.get(panel)?.cancel();
    const cancel = new vscode.CancellationTokenSource();
    this.running.set(panel, cancel);
    this.kind.post(panel, { type: 'start', file });
    const progressToken = `vesLens-eval-${Date.now()}`;
    const target = panel;
    try {
      const result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `VES Lens: evaluating ${vscode.workspace.asRelativePath(file)}`,
          cancellable: true,
        },
        (progress, token) => {
          token.onCancellationRequested(() => cancel.cancel());
          let last = 0;
          const listener = client.onProgress(EvaluationProgress, progressToken, (value) => {
            progress.report({ message: value.message, increment: value.percentage - last });
            last = value.percentage;
            this.kind.post(target, { type: 'rows', rows: value.rows, message: value.message, percentage: value.percentage });
          });
          return client
            .sendRequest(EvaluateFileRequest, { predictionsFile: file, progressToken }, cancel.token)
            .finally(() => listener.dispose());
        },
      );
      this.kind.post(target, { type: 'report', file, result });
      this.postJudgements(target);
      if (result.partial)
        void vscode.window.showInformationMessage(
          `VES Lens: evaluation cancelled; the report keeps the ${result.questions.length} questions scored so far.`,
        );
    } catch (error) {
      this.kind.post(target, {
        type: 'failed',
        file,
        message: isCancellation(error) ? 'cancelled before any question was scored' : (error as Error).message,
      });
      if (!isCancellation(error)) void showError(error);
    } finally {
      if (this.running.get(target) === cancel) this.running.delete(target);
      cancel.dispose();
    }
  }

  dispose(): void {
    for (const cancel of this.running.values()) cancel.cancel();
  }
}
