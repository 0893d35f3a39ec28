import * as vscode from 'vscode';

/**
 * API keys kept in VS Code's SecretStorage (the OS keychain), never in settings, logs or the workspace.
 * One small helper shared by every key the extension holds (embeddings, LLM judge): ask with a password box,
 * read, clear. Keys are named `vesLens.<purpose>.apiKey` (see SECRET_KEYS).
 */

/** The SecretStorage keys the extension uses (one per purpose). */
export const SECRET_KEYS = {
  embeddingsApiKey: 'vesLens.embeddings.apiKey',
  judgeApiKey: 'vesLens.judge.apiKey',
} as const;

/**
 * Asks for a secret in a password input box and stores it. Returns true when one was stored, false when the
 * person cancelled (nothing changes). An empty answer is refused in the box itself: clearing has its own command.
 */
export async function askForSecret(context: vscode.ExtensionContext, key: string, prompt: string, title?: string): Promise<boolean> {
  const value = await vscode.window.showInputBox({
    title,
    prompt,
    password: true,
    ignoreFocusOut: true,
    placeHolder: 'API key',
    validateInput: (text) => (text.trim() ? undefined : 'Enter a key (to remove the stored one, use the Clear command)'),
  });
  if (value === undefined) return false;
  await context.secrets.store(key, value.trim());
  return true;
}

/** The stored secret, or undefined when none is stored (or the keychain cannot be read). */
export async function readSecret(context: vscode.ExtensionContext, key: string): Promise<string | undefined> {
  try {
    const value = await context.secrets.get(key);
    return value ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the stored secret (nothing happens when there is none). */
export async function clearSecret(context: vscode.ExtensionContext, key: string): Promise<void> {
  await context.secrets.delete(key);
}
