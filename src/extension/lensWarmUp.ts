import * as vscode from 'vscode';

/**
 * Built-in extensions that activate on the first JSON file opened in a window and then register a code-lens
 * provider (npm: its package.json script lenses). VS Code restarts every editor's lenses when any provider is
 * registered: the first prediction file opened would lose the lenses it was about to draw and wait for a second
 * round (about a second). Activated with VES Lens instead, they register before any file is open.
 */
const JSON_LENS_EXTENSIONS = ['vscode.npm'];

/** Activates them now: the work VS Code does at the first JSON file anyway, done before it, so lenses come once. */
export function activateJsonLensProviders(log: (message: string) => void): void {
  for (const id of JSON_LENS_EXTENSIONS) {
    const extension = vscode.extensions.getExtension(id);
    if (!extension || extension.isActive) continue;
    extension.activate().then(undefined, (error: unknown) => log(`${id} did not activate: ${(error as Error)?.message ?? error}`));
  }
}
