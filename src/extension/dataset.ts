import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { goldMismatch } from '../app/goldForEngine';
import { DetectedDataset, JsonFileKind, jsonFileKinds, workspaceDatasets } from '../app/workspaceDatasets';
import { Commands, Dataset, DatasetSummary, SetDatasetRequest } from '../shared/protocol';
import { Ctx, DATASET_KEY } from './ctx';
import { showError } from './errors';

/** Whether a file's first bytes fit one of `kinds` (app/workspaceDatasets.ts tells them). */
export const isFileOf = (head: string, kinds: readonly JsonFileKind[]) => jsonFileKinds(head).some((kind) => kinds.includes(kind));

/** The first 4000 bytes of a file as text ('' if it cannot be read): enough to tell what kind of file it is. */
export function fileHead(file: string): string {
  try {
    const handle = fs.openSync(file, 'r');
    const buffer = Buffer.alloc(4000);
    const read = fs.readSync(handle, buffer, 0, buffer.length, 0);
    fs.closeSync(handle);
    return buffer.subarray(0, read).toString('utf8');
  } catch {
    return '';
  }
}

/** The workspace's JSON files whose first bytes fit one of `kinds` (outside node_modules), sorted. */
export async function workspaceJsonFiles(kinds: readonly JsonFileKind[]): Promise<string[]> {
  const uris = await vscode.workspace.findFiles('**/*.json', '**/node_modules/**', 500);
  return uris
    .map((uri) => uri.fsPath)
    .filter((file) => isFileOf(fileHead(file), kinds))
    .sort();
}

/** BIRD's layout in the workspace: question files (JSON lists with db_id and SQL), gold files, database roots. */
export async function detectDatasets(): Promise<DetectedDataset[]> {
  const found = async (glob: string, most: number) =>
    (await vscode.workspace.findFiles(glob, '**/node_modules/**', most)).map((uri) => uri.fsPath);
  return workspaceDatasets({
    questionFiles: (await found('**/*.json', 500)).filter((file) => isFileOf(fileHead(file), ['questions'])),
    sqliteFiles: await found('**/*.sqlite', 500),
    goldFiles: await found('**/*gold*.sql', 100),
  });
}

const relative = (file?: string) => (file ? vscode.workspace.asRelativePath(file) : "the questions' SQL field");

const goldDescription = (dataset: DetectedDataset) =>
  dataset.goldCandidates ? `gold: to choose (${dataset.goldCandidates.length} could be its own)` : `gold: ${relative(dataset.goldFile)}`;

/**
 * The dataset to attach: a detected one whose gold could not be told from the names asks which gold file is
 * its own (or the questions' SQL field). undefined: the person cancelled.
 */
async function settleGold(detected: DetectedDataset): Promise<Dataset | undefined> {
  const { goldCandidates, ...dataset } = detected;
  if (!goldCandidates) return dataset;
  type Pick = vscode.QuickPickItem & { goldFile?: string };
  const picks: Pick[] = [
    ...goldCandidates.map((goldFile) => ({
      label: `$(file) ${path.basename(goldFile)}`,
      description: relative(path.dirname(goldFile)),
      goldFile,
    })),
    { label: "$(list-flat) The questions' own SQL field", description: 'no gold file' },
  ];
  const pick = await vscode.window.showQuickPick(picks, {
    title: `Gold SQL of ${path.basename(detected.questionsFile)}`,
    placeHolder: 'Its name does not say which gold file is its own (name and version): choose it',
    ignoreFocusOut: true,
  });
  return pick && { ...dataset, goldFile: pick.goldFile };
}

/** The attach flow: a detected dataset in one pick, or the three files chosen by hand. undefined: nothing chosen; null: detach. */
export async function pickDataset(ctx: Ctx): Promise<Dataset | null | undefined> {
  const detected = await detectDatasets();
  const picks: (vscode.QuickPickItem & { dataset?: DetectedDataset; action?: 'browse' | 'detach' })[] = [
    ...detected.map((dataset) => ({
      label: `$(database) ${relative(dataset.questionsFile)}`,
      description: goldDescription(dataset),
      detail: `databases: ${relative(dataset.dbRoot)}`,
      dataset,
    })),
    { label: '$(folder-opened) Choose the files...', action: 'browse' as const },
    ...(ctx.savedDataset ? [{ label: '$(close) Detach the dataset', action: 'detach' as const }] : []),
  ];
  const pick = await vscode.window.showQuickPick(picks, {
    title: 'Attach a BIRD dataset',
    placeHolder: detected.length ? 'Detected in this workspace' : 'No BIRD layout detected: choose the files',
  });
  if (!pick) return undefined;
  if (pick.action === 'detach') return null;
  if (pick.dataset) return settleGold(pick.dataset);
  const questions = await vscode.window.showOpenDialog({
    title: 'BIRD question file (mini_dev_sqlite.json, dev.json)',
    filters: { JSON: ['json'] },
    canSelectMany: false,
  });
  if (!questions?.[0]) return undefined;
  const gold = await vscode.window.showOpenDialog({
    title: "Gold SQL file (optional: cancel to use the questions' SQL field)",
    filters: { SQL: ['sql'] },
    canSelectMany: false,
  });
  const root = await vscode.window.showOpenDialog({
    title: 'Folder with <db_id>/<db_id>.sqlite',
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
  });
  if (!root?.[0]) return undefined;
  return { questionsFile: questions[0].fsPath, goldFile: gold?.[0]?.fsPath, dbRoot: root[0].fsPath };
}

/**
 * Attaches a dataset (or detaches, with null) and says what went wrong in a notification that names the file
 * and what was expected: a wrong file never leaves a silent, empty explorer. A dataset that cannot be used is
 * not remembered.
 */
export async function attachDataset(ctx: Ctx, dataset: Dataset | null): Promise<DatasetSummary | undefined> {
  const client = await ctx.client().catch((error) => void showError(error));
  if (!client) return undefined;
  const summary = await client.sendRequest(SetDatasetRequest, dataset);
  await ctx.refreshDataset(summary);
  if (summary.error) {
    await ctx.extension.workspaceState.update(DATASET_KEY, undefined);
    // BIRD's layout in the workspace: offer it in the same notification.
    const detected = (await detectDatasets()).find((d) => d.questionsFile !== dataset?.questionsFile);
    const attachDetected = detected ? `Attach ${path.basename(detected.questionsFile)}` : undefined;
    void showError(
      new Error(`cannot attach this dataset: ${summary.error}`),
      ...(attachDetected ? [attachDetected] : []),
      'Choose Another...',
    ).then((choice) => {
      if (choice && choice === attachDetected) void settleGold(detected!).then((chosen) => chosen && attachDataset(ctx, chosen));
      else if (choice) void vscode.commands.executeCommand('vesLens.attachDataset');
    });
    return summary;
  }
  await ctx.extension.workspaceState.update(DATASET_KEY, dataset ?? undefined);
  const missing = summary.databases.filter((d) => !d.present);
  if (dataset && summary.engineError) {
    void showEngineProblem(summary.engineError);
  } else if (dataset && missing.length === summary.databases.length && missing.length > 0) {
    void vscode.window.showWarningMessage(
      summary.engine?.engine === 'postgres'
        ? `VES Lens: none of the ${missing.length} databases of ${path.basename(dataset.questionsFile)} is on ${summary.engine.line} (looked for ${missing[0].location}; build them with ves-lens load --from ${dataset.dbRoot} --to <url>).`
        : `VES Lens: none of the ${missing.length} databases of ${path.basename(dataset.questionsFile)} is under ${dataset.dbRoot} (expected <db_id>/<db_id>.sqlite, e.g. ${missing[0].dbId}/${missing[0].dbId}.sqlite).`,
    );
  }
  return summary;
}

/** The dataset is attached but its engine cannot run SQL: said once, with the two things that fix it. */
async function showEngineProblem(problem: string): Promise<void> {
  const password = 'Set PostgreSQL Password';
  const settings = 'Open Settings';
  const choice = await vscode.window.showWarningMessage(
    `VES Lens: the dataset is attached, but its SQL cannot run: ${problem}`,
    password,
    settings,
  );
  if (choice === password) await vscode.commands.executeCommand(Commands.setPostgresPassword);
  if (choice === settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'vesLens.postgres');
}

/** With no dataset attached and BIRD's layout in the workspace, offers to attach it (once per workspace unless accepted). */
export async function offerDetectedDataset(ctx: Ctx): Promise<void> {
  if (ctx.savedDataset || ctx.extension.workspaceState.get('vesLens.offerDeclined')) return;
  const [dataset] = await detectDatasets();
  if (!dataset) return;
  const choice = await vscode.window.showInformationMessage(
    `VES Lens: this workspace has a BIRD dataset (${relative(dataset.questionsFile)}, databases in ${relative(dataset.dbRoot)}). Attach it?`,
    'Attach',
    'Not Now',
  );
  if (choice === 'Attach') {
    const chosen = await settleGold(dataset);
    if (chosen) await attachDataset(ctx, chosen);
  }
  if (choice === 'Not Now') await ctx.extension.workspaceState.update('vesLens.offerDeclined', true);
}

/** The (gold, engine) pairs already offered this session: a refusal is not asked again at every refresh. */
const goldOffered = new Set<string>();

/**
 * The engine changed (or a dataset was attached) and the attached gold is of another dialect: offers the gold of the
 * engine's dialect found beside it (mini-dev's three golds sit in one folder), or warns that none is there.
 */
export async function offerGoldForEngine(ctx: Ctx, summary: DatasetSummary): Promise<void> {
  const dataset = summary.dataset;
  const engine = summary.engine?.engine;
  if (!dataset?.goldFile || !engine || summary.error) return;
  const mismatch = goldMismatch(dataset.goldFile, engine);
  const key = `${dataset.goldFile}\0${engine}`;
  if (!mismatch || goldOffered.has(key)) return;
  goldOffered.add(key);
  const fitting = mismatch.fitting[0];
  const use = fitting ? `Use ${path.basename(fitting)}` : undefined;
  const choice = await vscode.window.showWarningMessage(
    `VES Lens: ${mismatch.message}.`,
    ...(use ? [use] : []),
    'Choose Another Dataset...',
  );
  if (choice && choice === use) await attachDataset(ctx, { ...dataset, goldFile: fitting });
  else if (choice) await vscode.commands.executeCommand('vesLens.attachDataset');
}
