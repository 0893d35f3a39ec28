import * as vscode from 'vscode';
import { Ctx, currentSettings } from './ctx';
import { askForSecret, clearSecret, SECRET_KEYS } from './secrets';

/**
 * "VES Lens: Set Embeddings API Key" and "... Clear Embeddings API Key": the key of the OpenAI-compatible
 * endpoint the semantic techniques embed with, kept in SecretStorage. The server asks for it when a score
 * needs it (SecretRequest), so a new or removed key counts from the next score on.
 */
export async function setEmbeddingsApiKey(ctx: Ctx): Promise<void> {
  const stored = await askForSecret(
    ctx.extension,
    SECRET_KEYS.embeddingsApiKey,
    `The API key of the embeddings endpoint (vesLens.embeddings.url: ${currentSettings().embeddingsUrl}). Kept in VS Code's secret storage, never in settings.`,
    'VES Lens: Embeddings API Key',
  );
  if (!stored) return;
  if (currentSettings().embeddingsProvider === 'openai') {
    void vscode.window.showInformationMessage(
      "VES Lens: the embeddings API key is stored in VS Code's secret storage; the next score uses it.",
    );
    return;
  }
  const use = 'Use OpenAI-compatible Embeddings';
  const choice = await vscode.window.showInformationMessage(
    `VES Lens: the embeddings API key is stored in VS Code's secret storage. vesLens.embeddings.provider is "${currentSettings().embeddingsProvider}", so no score uses it yet.`,
    use,
  );
  if (choice === use)
    await vscode.workspace.getConfiguration('vesLens').update('embeddings.provider', 'openai', vscode.ConfigurationTarget.Global);
}

export async function clearEmbeddingsApiKey(ctx: Ctx): Promise<void> {
  await clearSecret(ctx.extension, SECRET_KEYS.embeddingsApiKey);
  void vscode.window.showInformationMessage("VES Lens: the embeddings API key is removed from VS Code's secret storage.");
}
