import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { registerCommands } from './commands';
import { Ctx } from './ctx';
import { offerDetectedDataset } from './dataset';
import { BirdExplorer } from './explorer';
import { PlanPanel } from './panels/planPanel';
import { ReportPanels } from './panels/reportPanel';
import { ScorePanel } from './panels/scorePanel';
import { QuestionDocuments } from './questionDocuments';
import { StatusBar } from './statusBar';

let ctx: Ctx | undefined;

/**
 * Activation: the views, panels (with their serializers) and every command first, so that nothing a person
 * clicks is "command not found" while the server starts or after it failed; then the language server.
 */
export async function activate(context: vscode.ExtensionContext): Promise<{ client(): Promise<LanguageClient> }> {
  const current = (ctx = new Ctx(context));
  const statusBar = new StatusBar(current);
  new BirdExplorer(current);
  const score = new ScorePanel(current);
  const plan = new PlanPanel(current);
  const reports = new ReportPanels(current, (questionId, sql) => void score.score({ target: { sql }, questionId }));
  const questions = new QuestionDocuments(current);
  context.subscriptions.push(score, plan, reports);
  registerCommands(current, { score, plan, reports, questions });
  try {
    await current.start();
    void offerDetectedDataset(current);
  } catch (error) {
    statusBar.failed((error as Error)?.message ?? String(error));
  }
  return { client: () => current.client() };
}

export async function deactivate(): Promise<void> {
  const current = ctx;
  ctx = undefined;
  await current?.shutdown();
}
