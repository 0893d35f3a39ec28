import * as vscode from 'vscode';
import { LSPErrorCodes } from 'vscode-languageclient/node';

export function isCancellation(error: unknown): boolean {
  return (error as { code?: number })?.code === LSPErrorCodes.RequestCancelled || /^cancel/i.test(String((error as Error)?.message));
}

/** An error as a notification: `VES Lens: <message>` (the server's messages already say what to do). */
export async function showError(error: unknown, ...actions: string[]): Promise<string | undefined> {
  const message = (error as Error)?.message ?? String(error);
  return vscode.window.showErrorMessage(`VES Lens: ${message}`, ...actions);
}
