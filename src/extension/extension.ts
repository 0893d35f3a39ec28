import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import type { SecretName } from '../shared/protocol';
import { registerCommands } from './commands';
import { Ctx } from './ctx';
import { offerDetectedDataset, offerGoldForEngine } from './dataset';
import { BirdExplorer } from './explorer';
import { JudgeRunner } from './judge';
import { JudgeStore } from './judgeStore';
import { ChatModelSource, useChatModelsForTests } from './languageModels';
import { PlanPanel } from './panels/planPanel';
import { ReportPanels } from './panels/reportPanel';
import { GoldAudits } from './panels/auditPanel';
import { ReportComparisons } from './panels/comparePanel';
import { OptimizePanel } from './panels/optimizePanel';
import { ScorePanel } from './panels/scorePanel';
import { QuestionDocuments } from './questionDocuments';
import { offerToMovePasswordFromUrl } from './postgresPassword';
import { secretStorageKey } from './secrets';
import { SETTING_KEYS } from '../shared/settings';
import { StatusBar } from './statusBar';
import { activateJsonLensProviders } from './lensWarmUp';

let ctx: Ctx | undefined;

/**
 * Activation: the views, panels (with their serializers) and every command first, so that nothing a person
 * clicks is "command not found" while the server starts or after it failed; then the language server.
 */
export async function activate(context: vscode.ExtensionContext): Promise<{
  client(): Promise<LanguageClient>;
  useChatModelsForTests(models: ChatModelSource | undefined): void;
  storeSecretForTests?(name: SecretName, value: string, scope?: string): Thenable<void>;
}> {
  const current = (ctx = new Ctx(context));
  const statusBar = new StatusBar(current);
  const explorer = new BirdExplorer(current);
  const score = new ScorePanel(current);
  const plan = new PlanPanel(current);
  const optimize = new OptimizePanel(current);
  // The Score panel's "Find a faster equivalent": the prediction scored, on its question's database.
  score.onOptimize = (target, label) => void optimize.find(target, label);
  const judgements = new JudgeStore(context.workspaceState);
  const reports = new ReportPanels(current, (questionId, sql) => void score.score({ target: { sql }, questionId }), judgements);
  const questions = new QuestionDocuments(current);
  const judge = new JudgeRunner(current, score, judgements);
  // The Refuter's flags for annotators: on the question in the explorer (and in a report's judge column).
  explorer.setMarks('judge', judgements.marks());
  context.subscriptions.push(
    score,
    plan,
    optimize,
    reports,
    judge,
    judgements,
    judgements.onDidChange(() => explorer.setMarks('judge', judgements.marks())),
  );
  const audits = new GoldAudits(current, (source, marks) => explorer.setMarks(source, marks));
  context.subscriptions.push(audits);
  const comparisons = new ReportComparisons(current);
  registerCommands(current, { score, plan, optimize, reports, questions, judge, audits, explorer, comparisons });
  // A password written into the URL setting: offered to be moved to SecretStorage (now, and whenever the URL changes).
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`vesLens.${SETTING_KEYS.postgresUrl}`)) void offerToMovePasswordFromUrl(current);
    }),
  );
  void offerToMovePasswordFromUrl(current);
  // Another engine, or a dataset attached: a gold of another dialect is said, and the engine's gold beside it offered.
  context.subscriptions.push(current.onDatasetChanged((summary) => void offerGoldForEngine(current, summary)));
  activateJsonLensProviders((message) => current.output.appendLine(message));
  try {
    await current.start();
    void offerDetectedDataset(current);
  } catch (error) {
    statusBar.failed((error as Error)?.message ?? String(error));
  }
  // useChatModelsForTests: the extension-host test's stand-in for vscode.lm (see languageModels.ts).
  // storeSecretForTests: the extension-host test stores a key as the Set ... API Key commands do (their password
  // box cannot be typed into from the extension host); only in an extension test run, never for other extensions.
  const testing =
    context.extensionMode === vscode.ExtensionMode.Test
      ? {
          storeSecretForTests: async (name: SecretName, value: string, scope?: string) => {
            const key = secretStorageKey(name, scope);
            if (!key) throw new Error(`no secret ${name}${scope ? ` for ${scope}` : ''}`);
            await context.secrets.store(key, value);
          },
        }
      : {};
  return { client: () => current.client(), useChatModelsForTests, ...testing };
}

export async function deactivate(): Promise<void> {
  const current = ctx;
  ctx = undefined;
  await current?.shutdown();
}
