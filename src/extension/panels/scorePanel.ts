import * as vscode from 'vscode';
import { Commands, QueryTarget, ScoreParams, ScoreRequest, ScoreResult, StepProgress } from '../../shared/protocol';
import { ScoreContext, ScorePanelMessage, ScorePanelRequest } from '../../shared/webviewMessages';
import { OUTCOME_LABELS } from '../../core/text/evalLabels';
import { Ctx, currentSettings } from '../ctx';
import { isCancellation, showError } from '../errors';
import { PanelKind } from './panel';
import { CounterexampleRun } from './scoreCounterexample';
import { PanelShows, panelTitle, questionLabel, showsAfterJudge } from './scorePanelTitle';

/**
 * The Score panel: one, reused (a second score replaces the first's content rather than stacking tabs).
 * Correctness first (a first answer in well under two seconds), then the timing rounds.
 */
export class ScorePanel implements vscode.Disposable {
  private readonly kind: PanelKind<ScorePanelMessage, ScorePanelRequest>;
  private panel: vscode.WebviewPanel | undefined;
  private running: vscode.CancellationTokenSource | undefined;
  /** What the panel shows now (its title says it); unknown for a panel restored after a reload. */
  private shows: PanelShows | undefined;
  /** The Judge's handlers (src/extension/judge.ts): the panel's own Judge and Cancel buttons. */
  onJudge: ((context: ScoreContext) => void) | undefined;
  onCancelJudge: (() => void) | undefined;
  /** "Find a faster equivalent" of the prediction shown (the Optimize panel, wired in extension.ts). */
  onOptimize: ((target: QueryTarget, label?: string) => void) | undefined;
  /** "Look for a database where they differ" (scoreCounterexample.ts). */
  private readonly counterexamples: CounterexampleRun;

  constructor(private readonly ctx: Ctx) {
    this.counterexamples = new CounterexampleRun(ctx.extension.globalStorageUri.fsPath);
    this.kind = new PanelKind(ctx, 'vesLens.score', 'score.js', (_panel, message) => {
      if (message.type === 'cancel') this.running?.cancel();
      if (message.type === 'rerun') void this.score(message.context, true);
      if (message.type === 'judge') this.onJudge?.(message.context);
      if (message.type === 'cancel-judge') this.onCancelJudge?.();
      if (message.type === 'optimize') {
        const { target, questionId } = message.context;
        // A prediction from a document is named by its place there; one given as SQL, by its question.
        const label = 'uri' in target ? undefined : `prediction for question ${questionId ?? ''}`.trim();
        this.onOptimize?.({ ...target, dbId: message.dbId, questionId }, label);
      }
      if (message.type === 'counterexample') void this.lookForCounterexample(message.context, message.budgetSeconds);
      if (message.type === 'cancel-counterexample') this.counterexamples.cancel();
      if (message.type === 'witness') void this.counterexamples.witness(message.action, message.database);
      if (message.type === 'setUpEmbeddings') {
        if (message.action === 'key') void vscode.commands.executeCommand(Commands.setEmbeddingsApiKey);
        else void vscode.commands.executeCommand('workbench.action.openSettings', 'vesLens.embeddings');
      }
    });
    ctx.extension.subscriptions.push(this.kind.onDidCreate((panel) => this.track(panel)));
  }

  private track(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.onDidDispose(() => {
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.shows = undefined;
    });
  }

  /** The panel (created if there is none) showing `shows`, its title saying so, brought forward. */
  private show(shows: PanelShows): vscode.WebviewPanel {
    this.shows = shows;
    const title = panelTitle(shows);
    const panel = this.panel ?? this.kind.create(title);
    panel.title = title;
    panel.reveal(undefined, true);
    return panel;
  }

  /** A message of the Judge's section: the panel opens (or comes forward) for it; a score of the same prediction stays. */
  postJudge(context: ScoreContext, message: ScorePanelMessage): void {
    const panel = this.show(showsAfterJudge(this.shows, context, this.panel?.title));
    this.kind.post(panel, message);
  }

  async score(context: ScoreContext, thorough = false): Promise<void> {
    const client = await this.ctx.client().catch((error) => void showError(error));
    if (!client) return;
    this.running?.cancel();
    // A search for a counterexample would disturb the timing: it gives way.
    this.counterexamples.cancel();
    const cancel = (this.running = new vscode.CancellationTokenSource());
    const label = questionLabel(context);
    const panel = this.show({ kind: 'score', context });
    // A re-run keeps the numbers on screen until the new ones arrive; a new score replaces the panel.
    this.kind.post(panel, { type: thorough ? 'rerunning' : 'running' });
    // A run superseded by a newer one (another lens clicked) must not post its cancellation over the newer panel.
    const post = (message: ScorePanelMessage) => {
      if (this.running !== cancel) return;
      // A judgement of another prediction may have taken the panel meanwhile: the score is on screen again.
      if (message.type === 'result' && this.shows?.kind !== 'score') panel.title = panelTitle((this.shows = { kind: 'score', context }));
      this.kind.post(panel, message);
    };
    const progressToken = `vesLens-score-${Date.now()}`;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: thorough ? `VES Lens: re-timing ${label} with more iterations` : `VES Lens: scoring ${label}`,
        cancellable: true,
      },
      async (progress, token) => {
        token.onCancellationRequested(() => cancel.cancel());
        // The correctness result, once known, stays in front of the timing's steps.
        let firstResult = '';
        const steps = client.onProgress(StepProgress, progressToken, ({ message }) =>
          progress.report({ message: firstResult ? `${firstResult} · ${message}` : message }),
        );
        const base: ScoreParams = {
          ...context.target,
          questionId: context.questionId,
          questionIndex: context.questionIndex,
          progressToken,
        };
        try {
          if (!thorough) {
            const first = await client.sendRequest(ScoreRequest, { ...base, phase: 'correctness' }, cancel.token);
            post({ type: 'result', result: first, partial: first.ex === 1, context });
            // Shown at once where the person looks: a panel created by this click may need a second more to load
            // its page (VS Code's webview service worker), the notification does not.
            firstResult = firstResultText(first);
            progress.report({ message: first.ex === 1 ? `${firstResult} · timing…` : firstResult });
            if (first.ex !== 1) return; // nothing to time: only a correct prediction has a VES
          }
          // vesLens.scales: also re-time the pair on scaled copies of its database (the panel draws the ratio against the scale).
          const scales = currentSettings().scales;
          const full = await client.sendRequest(
            ScoreRequest,
            { ...base, phase: 'full', thorough: thorough || undefined, scales: scales.length ? scales : undefined },
            cancel.token,
          );
          post({ type: 'result', result: full, partial: false, context });
        } catch (error) {
          if (isCancellation(error)) post({ type: 'cancelled', rerun: thorough });
          else {
            post({ type: 'error', message: (error as Error).message, rerun: thorough });
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

  /** The search's messages go to the panel that asked (its page shows them only beside the same prediction's score). */
  private async lookForCounterexample(context: ScoreContext, budgetSeconds: number): Promise<void> {
    const client = await this.ctx.client().catch((error) => void showError(error));
    const panel = this.panel;
    if (!client || !panel) return;
    await this.counterexamples.search(client, context, budgetSeconds, (message) => {
      if (this.panel === panel) this.kind.post(panel, message);
    });
  }

  dispose(): void {
    this.running?.cancel();
    this.counterexamples.dispose();
  }
}

/** "correct: EX 1, Soft-F1 1.000", as the panel's cards say it. */
export function firstResultText(result: Pick<ScoreResult, 'outcome' | 'ex' | 'f1'>): string {
  const f1 = result.f1 === null ? '–' : result.f1.toFixed(3);
  return `${OUTCOME_LABELS[result.outcome] ?? result.outcome}: EX ${result.ex}, Soft-F1 ${f1}`;
}
