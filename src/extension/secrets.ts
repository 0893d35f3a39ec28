import * as vscode from 'vscode';
import type { SecretName } from '../shared/protocol';

/**
 * API keys and passwords kept in VS Code's SecretStorage (the OS keychain), never in settings, logs or the
 * workspace. One small helper shared by every secret the extension holds (embeddings, LLM judge, PostgreSQL):
 * ask with a password box, read, clear. Keys are named `vesLens.<purpose>.apiKey` (see SECRET_KEYS); the
 * PostgreSQL password is kept per server URL (secretStorageKey).
 */

/** The SecretStorage keys the extension uses (one per purpose; the PostgreSQL password's is followed by its URL). */
export const SECRET_KEYS: Record<SecretName, string> = {
  embeddingsApiKey: 'vesLens.embeddings.apiKey',
  judgeApiKey: 'vesLens.judge.apiKey',
  postgresPassword: 'vesLens.postgres.password',
};

/**
 * Where a secret is stored: its name's key, followed for the PostgreSQL password by the server URL it is for
 * (settings.ts's passwordScope), so it is never sent to another server. undefined: no such secret.
 */
export function secretStorageKey(name: SecretName, scope?: string): string | undefined {
  if (!Object.hasOwn(SECRET_KEYS, name)) return undefined;
  if (name !== 'postgresPassword') return SECRET_KEYS[name];
  return scope ? `${SECRET_KEYS.postgresPassword}:${scope}` : undefined;
}

/** What the box asks for: an API key (trimmed: pasted keys often carry a space) or a password (taken as typed). */
export type SecretKind = 'API key' | 'password';

/**
 * Asks for a secret in a password input box and stores it. Returns true when one was stored, false when the
 * person cancelled (nothing changes). An empty answer is refused in the box itself: clearing has its own command.
 */
export async function askForSecret(
  context: vscode.ExtensionContext,
  key: string,
  prompt: string,
  title?: string,
  kind: SecretKind = 'API key',
): Promise<boolean> {
  const value = await vscode.window.showInputBox({
    title,
    prompt,
    password: true,
    ignoreFocusOut: true,
    placeHolder: kind,
    validateInput: (text) =>
      text.trim() ? undefined : `Enter a ${kind === 'API key' ? 'key' : kind} (to remove the stored one, use the Clear command)`,
  });
  if (value === undefined) return false;
  await context.secrets.store(key, kind === 'API key' ? value.trim() : value);
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
