import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { Dataset } from '../shared/protocol';

export function savedDataset(context: vscode.ExtensionContext): Dataset | null {
  return context.workspaceState.get<Dataset>('vesLens.dataset') ?? null;
}

/** A folder holding `<db_id>/<db_id>.sqlite` for at least one database. */
function isDatabaseRoot(folder: string): boolean {
  try {
    return fs.readdirSync(folder, { withFileTypes: true }).some((e) => e.isDirectory() && fs.existsSync(path.join(folder, e.name, `${e.name}.sqlite`)));
  } catch {
    return false;
  }
}

/** BIRD's layout in the workspace: question files (JSON lists with db_id and SQL), gold files, database roots. */
export async function detectDatasets(): Promise<Dataset[]> {
  const jsonFiles = await vscode.workspace.findFiles('**/*.json', '**/node_modules/**', 500);
  const questionFiles = jsonFiles
    .map((uri) => uri.fsPath)
    .filter((file) => {
      try {
        const head = fs.readFileSync(file, 'utf8').slice(0, 4000).trimStart();
        return head.startsWith('[') && /"db_id"\s*:/.test(head) && /"SQL"\s*:/.test(head);
      } catch {
        return false;
      }
    });
  const sqliteFiles = await vscode.workspace.findFiles('**/*.sqlite', '**/node_modules/**', 500);
  const roots = [...new Set(sqliteFiles.map((uri) => path.dirname(path.dirname(uri.fsPath))))].filter(isDatabaseRoot);
  const goldFiles = (await vscode.workspace.findFiles('**/*gold*.sql', '**/node_modules/**', 100)).map((uri) => uri.fsPath);
  const datasets: Dataset[] = [];
  for (const questionsFile of questionFiles) {
    const stem = path.basename(questionsFile, '.json');
    const goldFile = goldFiles.find((g) => path.basename(g).startsWith(stem)) ?? goldFiles.find((g) => path.dirname(g) === path.dirname(questionsFile));
    // The nearest database root: the one sharing the longest path with the question file.
    const dbRoot = roots.sort((a, b) => commonPrefix(b, questionsFile) - commonPrefix(a, questionsFile))[0];
    if (dbRoot) datasets.push({ questionsFile, goldFile, dbRoot });
  }
  return datasets;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

/** The attach flow: a detected dataset in one pick, or the three files chosen by hand. */
export async function attachDataset(context: vscode.ExtensionContext): Promise<Dataset | null | undefined> {
  const detected = await detectDatasets();
  const relative = (file?: string) => (file ? vscode.workspace.asRelativePath(file) : 'questions\' SQL field');
  const picks: (vscode.QuickPickItem & { dataset?: Dataset; action?: 'browse' | 'detach' })[] = [
    ...detected.map((dataset) => ({ label: `$(database) ${relative(dataset.questionsFile)}`, description: `gold: ${relative(dataset.goldFile)}`, detail: `databases: ${relative(dataset.dbRoot)}`, dataset })),
    { label: '$(folder-opened) Choose the files...', action: 'browse' as const },
    ...(savedDataset(context) ? [{ label: '$(close) Detach the dataset', action: 'detach' as const }] : []),
  ];
  const pick = await vscode.window.showQuickPick(picks, { title: 'Attach a BIRD dataset', placeHolder: detected.length ? 'Detected in this workspace' : 'No BIRD layout detected: choose the files' });
  if (!pick) return undefined;
  if (pick.action === 'detach') return null;
  if (pick.dataset) return pick.dataset;
  const questions = await vscode.window.showOpenDialog({ title: 'BIRD question file (mini_dev_sqlite.json, dev.json)', filters: { JSON: ['json'] }, canSelectMany: false });
  if (!questions?.[0]) return undefined;
  const gold = await vscode.window.showOpenDialog({ title: 'Gold SQL file (optional: cancel to use the questions\' SQL field)', filters: { SQL: ['sql'] }, canSelectMany: false });
  const root = await vscode.window.showOpenDialog({ title: 'Folder with <db_id>/<db_id>.sqlite', canSelectFolders: true, canSelectFiles: false, canSelectMany: false });
  if (!root?.[0]) return undefined;
  return { questionsFile: questions[0].fsPath, goldFile: gold?.[0]?.fsPath, dbRoot: root[0].fsPath };
}
