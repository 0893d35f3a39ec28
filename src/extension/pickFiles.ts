import * as vscode from 'vscode';

/** A workspace file offered in a pick, with what it is when that helps choosing. */
export interface OfferedFile {
  file: string;
  description?: string;
}

/**
 * A multi-select pick of workspace files plus "Other files...", which opens a file dialog for more. Returns the
 * chosen paths in the pick's order, then the dialog's; undefined when the person cancels either step.
 */
export async function pickFiles(
  offered: readonly OfferedFile[],
  pick: { title: string; placeHolder: string },
  dialog: { title: string; filters: Record<string, string[]> },
): Promise<string[] | undefined> {
  type Item = vscode.QuickPickItem & { file?: string; browse?: boolean };
  const items: Item[] = [
    ...offered.map(({ file, description }) => ({ label: `$(file) ${vscode.workspace.asRelativePath(file)}`, description, file })),
    { label: '$(folder-opened) Other files...', browse: true },
  ];
  const picks = await vscode.window.showQuickPick(items, { ...pick, canPickMany: true, ignoreFocusOut: true });
  if (!picks) return undefined;
  const files = picks.flatMap((p) => (p.file ? [p.file] : []));
  if (picks.some((p) => p.browse)) {
    const more = await vscode.window.showOpenDialog({ ...dialog, canSelectMany: true });
    if (!more) return undefined;
    files.push(...more.map((uri) => uri.fsPath));
  }
  return files;
}
