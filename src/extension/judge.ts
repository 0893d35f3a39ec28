import * as path from 'path';
import * as vscode from 'vscode';
import {
  ChatCompletionRequest,
  JudgeConsentParams,
  JudgeConsentRequest,
  JudgeModelSpec,
  JudgeRequest,
  JudgeResult,
  StepProgress,
  VesLensErrorCodes,
} from '../shared/protocol';
import { JudgeSettings, readJudgeSettings } from '../shared/settings';
import { ScoreContext } from '../shared/webviewMessages';
import { Ctx } from './ctx';
import { isCancellation, showError } from './errors';
import { answerChatCompletion, chooseChatModel, LanguageModelUnavailable } from './languageModels';
import { JudgeStore } from './judgeStore';
import { ScorePanel } from './panels/scorePanel';
import { askForSecret, clearSecret, SECRET_KEYS } from './secrets';

export function currentJudgeSettings(): JudgeSettings {
  const configuration = vscode.workspace.getConfiguration('vesLens');
  return readJudgeSettings((key) => configuration.get(key));
}

/** Consent to send prompts to an endpoint, asked once per URL (VS Code asks itself for its own chat models). */
const CONSENT_KEY = 'vesLens.judge.consentedEndpoints';

/** A problem with the judge's settings: the notification offers to open them. */
class JudgeSetupError extends Error {}

/**
 * "Judge" on a prediction: does it answer its question? The server runs core's cascade (ROSE's Prover and
 * Refuter by default) with the chat model the settings name; this picks the model, asks consent, passes the
 * key, shows progress with Cancel, and puts the verdict in the Score panel's Judge section. Replies are cached
 * in the extension's global storage, so judging the same prediction again costs nothing.
 */
export class JudgeRunner implements vscode.Disposable {
  private running: vscode.CancellationTokenSource | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly score: ScorePanel,
    private readonly store: JudgeStore,
  ) {
    ctx.onClientStarted((client) => client.onRequest(ChatCompletionRequest, (params, token) => answerChatCompletion(params, token)));
    ctx.onClientStarted((client) => client.onRequest(JudgeConsentRequest, (params) => this.askConsent(params)));
    score.onJudge = (context) => void this.judge(context);
    score.onCancelJudge = () => this.running?.cancel();
  }

  /** The model the settings name. Its key (if one is stored) the server asks for itself, sealed (SecretRequest in ctx.ts). */
  private async model(settings: JudgeSettings): Promise<JudgeModelSpec> {
    if (settings.provider === 'vscode-lm') return chooseChatModel(settings);
    if (!settings.model)
      throw new JudgeSetupError(
        'set vesLens.judge.model to the model the endpoint serves (e.g. gpt-4o), and vesLens.judge.url to its base URL',
      );
    return { provider: 'openai', url: settings.url, model: settings.model };
  }

  private consented(url: string): boolean {
    return (this.ctx.extension.globalState.get<string[]>(CONSENT_KEY) ?? []).includes(url);
  }

  /**
   * Consent to send prompts to an endpoint not used before: the server asks (JudgeConsentRequest) only just before
   * a request would really go out, never for a cached reply or a pair with nothing to judge.
   */
  private async askConsent({ url, model }: JudgeConsentParams): Promise<boolean> {
    if (this.consented(url)) return true;
    const allow = 'Allow';
    const choice = await vscode.window.showWarningMessage(
      'VES Lens: the Judge sends the question, its evidence, both SQL queries, the tables they use (columns and three sample values each) ' +
        `and the first 20 rows of both results to ${url} (model ${model}). Allow this endpoint?`,
      { modal: true },
      allow,
    );
    if (choice !== allow) return false;
    const consented = this.ctx.extension.globalState.get<string[]>(CONSENT_KEY) ?? [];
    await this.ctx.extension.globalState.update(CONSENT_KEY, [...consented, url]);
    return true;
  }

  /** Judges and shows the verdict; also returns it, or what went wrong (for scripts and tests: the command returns it too). */
  async judge(context: ScoreContext): Promise<{ result?: JudgeResult; error?: string }> {
    const client = await this.ctx.client().catch((error) => void showError(error));
    if (!client) return { error: 'no language server' };
    const settings = currentJudgeSettings();
    let model: JudgeModelSpec;
    try {
      model = await this.model(settings);
    } catch (error) {
      if (error instanceof JudgeSetupError || error instanceof LanguageModelUnavailable) {
        // Not awaited: the command ends while the notification waits for the person.
        void showError(error, 'Open Settings').then(
          (choice) => choice && vscode.commands.executeCommand('workbench.action.openSettings', 'vesLens.judge'),
        );
        return { error: error.message };
      }
      throw error;
    }
    this.running?.cancel();
    const cancel = (this.running = new vscode.CancellationTokenSource());
    const label = `question ${context.questionId ?? `#${context.questionIndex}`}`;
    const modelName = model.provider === 'vscode-lm' ? model.name : model.model;
    const post = (message: Parameters<ScorePanel['postJudge']>[1]) => {
      if (this.running === cancel) this.score.postJudge(context, message);
    };
    post({ type: 'judging', context, model: modelName });
    const progressToken = `vesLens-judge-${Date.now()}`;
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `VES Lens: judging ${label} with ${modelName}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => cancel.cancel());
        const steps = client.onProgress(StepProgress, progressToken, ({ message }) => progress.report({ message }));
        try {
          const result = await client.sendRequest(
            JudgeRequest,
            {
              ...context.target,
              questionId: context.questionId,
              questionIndex: context.questionIndex,
              method: settings.method,
              model: model!,
              cacheDir: path.join(this.ctx.extension.globalStorageUri.fsPath, 'judge-replies'),
              askConsent: model.provider === 'openai' && !this.consented(model.url) ? true : undefined,
              progressToken,
            },
            cancel.token,
          );
          post({ type: 'judgement', judgement: result, context });
          await this.store.record(result);
          return { result };
        } catch (error) {
          // A declined consent is the person's own choice: said in the panel, as a cancellation, not as an error.
          const declined = (error as { code?: number }).code === VesLensErrorCodes.consentDeclined;
          const cancelled = isCancellation(error) || declined;
          const message = declined ? (error as Error).message : cancelled ? 'cancelled' : (error as Error).message;
          post({ type: 'judge-failed', message, cancelled });
          if (!cancelled) void showError(error);
          return { error: message };
        } finally {
          steps.dispose();
          if (this.running === cancel) this.running = undefined;
          cancel.dispose();
        }
      },
    );
  }

  async setKey(): Promise<void> {
    const stored = await askForSecret(
      this.ctx.extension,
      SECRET_KEYS.judgeApiKey,
      "The API key of the Judge's OpenAI-compatible endpoint (vesLens.judge.url). Kept in VS Code's secret storage, never in settings.",
      'VES Lens: Judge API Key',
    );
    if (stored) void vscode.window.showInformationMessage("VES Lens: the Judge's API key is stored in VS Code's secret storage.");
  }

  async clearKey(): Promise<void> {
    await clearSecret(this.ctx.extension, SECRET_KEYS.judgeApiKey);
    void vscode.window.showInformationMessage("VES Lens: the Judge's API key is removed.");
  }

  dispose(): void {
    this.running?.cancel();
  }
}
