import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CounterexampleRequest, StepProgress, WITNESS_FOLDER } from '../../shared/protocol';
import type { ScoreContext, ScorePanelMessage } from '../../shared/webviewMessages';
import { isCancellation, showError } from '../errors';
import { questionLabel } from './scorePanelTitle';

/**
 * The Score panel's "Look for a database where they differ": the server's CounterexampleRequest with a
 * cancellable notification, its steps also shown in the panel; and what the panel may do with a witness it
 * showed (reveal it, copy its path), for files in the witness folder only.
 */
export class CounterexampleRun implements vscode.Disposable {
  private running: vscode.CancellationTokenSource | undefined;
  /** Where the server writes the witnesses (it is given the same storage folder): the only files the page may name. */
  private readonly witnessFolder: string;

  constructor(storageDir: string) {
    this.witnessFolder = path.join(storageDir, WITNESS_FOLDER);
  }

  cancel(): void {
    this.running?.cancel();
  }

  async search(client: LanguageClient, context: ScoreContext, budgetSeconds: number, post: (message: ScorePanelMessage) => void) {
    this.running?.cancel();
    const cancel = (this.running = new vscode.CancellationTokenSource());
    post({ type: 'counterexample-running', context, budgetSeconds });
    const progressToken = `vesLens-counterexample-${Date.now()}`;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `VES Lens: looking for a database where ${questionLabel(context)}'s prediction and gold differ`,
        cancellable: true,
      },
      async (progress, token) => {
        token.onCancellationRequested(() => cancel.cancel());
        const steps = client.onProgress(StepProgress, progressToken, ({ message }) => {
          progress.report({ message });
          if (this.running === cancel) post({ type: 'counterexample-progress', message });
        });
        try {
          const params = {
            ...context.target,
            questionId: context.questionId,
            questionIndex: context.questionIndex,
            budgetSeconds,
            progressToken,
          };
          const result = await client.sendRequest(CounterexampleRequest, params, cancel.token);
          if (this.running === cancel) post({ type: 'counterexample', result, context });
        } catch (error) {
          const cancelled = isCancellation(error);
          if (this.running === cancel) post({ type: 'counterexample-failed', message: (error as Error).message, cancelled });
          if (!cancelled) void showError(error);
        } finally {
          steps.dispose();
          if (this.running === cancel) this.running = undefined;
          cancel.dispose();
        }
      },
    );
  }

  /** The page's request on a witness it shows: reveal it in the OS's file manager (or say where it is), or copy its path. */
  async witness(action: 'reveal' | 'copy', database: string): Promise<void> {
    if (path.dirname(path.resolve(database)) !== this.witnessFolder) {
      void vscode.window.showWarningMessage(`VES Lens: ${database} is not a counterexample database of VES Lens`);
      return;
    }
    if (!fs.existsSync(database)) {
      void vscode.window.showWarningMessage(`VES Lens: the counterexample database is gone (${database}): look for one again`);
      return;
    }
    if (action === 'copy') {
      await vscode.env.clipboard.writeText(database);
      void vscode.window.showInformationMessage(`VES Lens: copied ${database}`);
      return;
    }
    try {
      // A desktop command; in a browser (code-server) there is no file manager to reveal in.
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(database));
    } catch {
      const copy = 'Copy path';
      const choice = await vscode.window.showInformationMessage(`VES Lens: the counterexample database is ${database}`, copy);
      if (choice === copy) await vscode.env.clipboard.writeText(database);
    }
  }

  dispose(): void {
    this.running?.cancel();
  }
}
