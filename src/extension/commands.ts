import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  CommandArguments,
  Commands,
  Dataset,
  QuestionInfo,
  RuleHintsRequest,
  VerifyHintParams,
  VerifyHintRequest,
} from '../shared/protocol';
import { Ctx } from './ctx';
import { attachDataset, isFileOf, pickDataset } from './dataset';
import { clearEmbeddingsApiKey, setEmbeddingsApiKey } from './embeddingsKey';
import { showError } from './errors';
import { JudgeRunner } from './judge';
import { clearPostgresPassword, setPostgresPassword } from './postgresPassword';
import { BirdExplorer } from './explorer';
import { GoldAudits } from './panels/auditPanel';
import { ReportComparisons } from './panels/comparePanel';
import { OptimizePanel } from './panels/optimizePanel';
import { PlanPanel } from './panels/planPanel';
import { ReportPanels } from './panels/reportPanel';
import { ScorePanel } from './panels/scorePanel';
import { QuestionDocuments } from './questionDocuments';
import { isReadOnlyDocument, readOnlyRewriteMessage, rewrittenCopy, TextEdit } from './readOnlyRewrite';

/** What the commands act through. */
export interface CommandTargets {
  score: ScorePanel;
  plan: PlanPanel;
  optimize: OptimizePanel;
  reports: ReportPanels;
  questions: QuestionDocuments;
  judge: JudgeRunner;
  audits: GoldAudits;
  comparisons: ReportComparisons;
  explorer: BirdExplorer;
}

/** A BIRD explorer item, or the question itself (from a lens or another command). */
type QuestionArgument = { question: QuestionInfo } | QuestionInfo;
const questionOf = (argument: QuestionArgument) =>
  'question' in argument && typeof argument.question === 'object' ? argument.question : (argument as QuestionInfo);

/** Verifies one rewrite on the database and applies it when it should be (or when the person says so). */
async function applyVerifiedRewrite(ctx: Ctx, params: VerifyHintParams, ask = true): Promise<boolean> {
  const client = await ctx.client();
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `VES Lens: verifying the ${params.rule} rewrite on the database` },
    () => client.sendRequest(VerifyHintRequest, params),
  );
  if (!result.edit) {
    if (ask) void vscode.window.showWarningMessage(`VES Lens: ${params.rule} rewrite not applied: ${result.message}`);
    return false;
  }
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(params.uri));
  if (isReadOnlyDocument(document.uri.scheme, vscode.workspace.fs.isWritableFileSystem(document.uri.scheme))) {
    if (ask) void offerReadOnlyRewrite(params, result.edit, result.message, result.recommended, document);
    return false;
  }
  if (!result.recommended) {
    if (!ask) return false;
    // Same rows, but not measured faster: show what was measured and let the person decide.
    const choice = await vscode.window.showWarningMessage(
      `VES Lens: ${params.rule} rewrite not applied: ${result.message}`,
      'Apply anyway',
    );
    if (choice !== 'Apply anyway') return false;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(
    document.uri,
    new vscode.Range(document.positionAt(result.edit.start), document.positionAt(result.edit.end)),
    result.edit.text,
  );
  await vscode.workspace.applyEdit(edit);
  if (ask) void vscode.window.showInformationMessage(`VES Lens: ${params.rule} rewrite applied: ${result.message}`);
  return true;
}

/** A rewrite verified on a read-only document: copy it, or open it in a new untitled SQL editor. */
async function offerReadOnlyRewrite(
  params: VerifyHintParams,
  edit: TextEdit,
  verdict: string,
  recommended: boolean,
  document: vscode.TextDocument,
): Promise<void> {
  const copy = 'Copy Rewritten SQL';
  const open = 'Open in New Editor';
  const message = readOnlyRewriteMessage(params.rule, verdict, recommended);
  const choice = recommended
    ? await vscode.window.showInformationMessage(message, copy, open)
    : await vscode.window.showWarningMessage(message, copy, open);
  const rewritten = rewrittenCopy(document.getText(), params.statementStart, edit);
  if (choice === copy) {
    await vscode.env.clipboard.writeText(rewritten.statement);
    void vscode.window.showInformationMessage(`VES Lens: the rewritten SQL (${params.rule}) is on the clipboard.`);
  } else if (choice === open) {
    const untitled = await vscode.workspace.openTextDocument({ language: 'sql', content: rewritten.document });
    await vscode.window.showTextDocument(untitled, { preview: false });
  }
}

/** The prediction file to evaluate: the one clicked, else the one in the editor, else one chosen. Never a question file. */
async function predictionFile(uri?: vscode.Uri): Promise<string | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  // A prediction file in the editor (or a question file, to be refused with a reason rather than a file dialog).
  const head = active?.uri.scheme === 'file' && active.languageId === 'json' ? active.getText().slice(0, 4000) : '';
  const activePredictions = head && isFileOf(head, ['predictions', 'questions']) ? active!.uri.fsPath : undefined;
  const file =
    uri?.fsPath ??
    activePredictions ??
    (await vscode.window.showOpenDialog({ title: 'Prediction file to evaluate', filters: { Predictions: ['json', 'sql', 'txt'] } }))?.[0]
      ?.fsPath;
  if (!file) return undefined;
  try {
    const handle = fs.openSync(file, 'r');
    const head = Buffer.alloc(4000);
    const read = fs.readSync(handle, head, 0, head.length, 0);
    fs.closeSync(handle);
    if (isFileOf(head.subarray(0, read).toString('utf8'), ['questions'])) {
      void showError(
        new Error(
          `${vscode.workspace.asRelativePath(file)} is a BIRD question file (every item has "question" and the gold "SQL"), not a prediction file: evaluating it would score the gold against itself. Choose a prediction file ({"0": "SQL\\t----- bird -----\\tdb_id"} or a list with "predicted_sql").`,
        ),
      );
      return undefined;
    }
  } catch {
    // unreadable: the server names the problem
  }
  return file;
}

/** Every command of the extension, registered before the language server starts (each waits for it or says why it cannot). */
export function registerCommands(ctx: Ctx, targets: CommandTargets): void {
  type Handler = (...args: never[]) => unknown;
  const table: Record<string, Handler> = {
    [Commands.attachDataset]: async (preset?: Dataset | null) => {
      const chosen = preset !== undefined ? preset : await pickDataset(ctx);
      if (chosen !== undefined) await attachDataset(ctx, chosen);
    },
    [Commands.evaluatePredictionFile]: async (uri?: vscode.Uri) => {
      const file = await predictionFile(uri);
      if (file) await targets.reports.evaluate(file);
    },
    // From the palette, or the Explorer's context menu on two or more selected files (the clicked one, then all selected).
    [Commands.compareReports]: (uri?: vscode.Uri, selected?: vscode.Uri[]) => targets.comparisons.run(uri, selected),
    [Commands.scoreAgainstGold]: (...[uri, offset, questionId, questionIndex]: CommandArguments['vesLens.scoreAgainstGold']) =>
      targets.score.score({ target: { uri, offset }, questionId, questionIndex }),
    [Commands.judge]: (...[uri, offset, questionId, questionIndex]: CommandArguments['vesLens.judge']) =>
      targets.judge.judge({ target: { uri, offset }, questionId, questionIndex }),
    [Commands.setJudgeApiKey]: () => targets.judge.setKey(),
    [Commands.clearJudgeApiKey]: () => targets.judge.clearKey(),
    [Commands.explain]: (...[uri, offset, dbId]: CommandArguments['vesLens.explain']) => targets.plan.explain({ uri, offset, dbId }),
    // From a lens (a statement of a document), or the palette on the statement at the cursor.
    [Commands.findFasterEquivalent]: (...[uri, offset, dbId]: Partial<CommandArguments['vesLens.findFasterEquivalent']>) => {
      const editor = vscode.window.activeTextEditor;
      if (uri !== undefined && offset !== undefined) return targets.optimize.find({ uri, offset, dbId });
      if (!editor) return void vscode.window.showWarningMessage('VES Lens: open a SQL statement to find a faster equivalent of it.');
      return targets.optimize.find({ uri: editor.document.uri.toString(), offset: editor.document.offsetAt(editor.selection.active) });
    },
    [Commands.showHints]: async (...[uri, line]: CommandArguments['vesLens.showHints']) => {
      const editor = await vscode.window.showTextDocument(vscode.Uri.parse(uri));
      editor.selection = new vscode.Selection(line, 0, line, 0);
      await vscode.commands.executeCommand('workbench.actions.view.problems');
    },
    [Commands.applyVerifiedRewrite]: (...[params]: CommandArguments['vesLens.applyVerifiedRewrite']) => applyVerifiedRewrite(ctx, params),
    [Commands.applyAllRewrites]: async (...[uri, rule]: CommandArguments['vesLens.applyAllRewrites']) => {
      const client = await ctx.client();
      // Last first: applying one never moves the offsets of those before it.
      const hints = await client.sendRequest(RuleHintsRequest, { uri, rule });
      let applied = 0;
      for (const params of hints) if (await applyVerifiedRewrite(ctx, params, false)) applied++;
      void vscode.window.showInformationMessage(
        `VES Lens: ${applied} of ${hints.length} ${rule} rewrites applied (only those with the same rows that measured faster); the others stay, with their hint.`,
      );
    },
    [Commands.openQuestion]: (question: QuestionInfo) => targets.questions.open(question),
    [Commands.explainGold]: (argument: QuestionArgument) => {
      const q = questionOf(argument);
      return targets.plan.explain({ sql: q.gold, dbId: q.dbId, questionId: q.questionId });
    },
    [Commands.timeGold]: (argument: QuestionArgument) => {
      const q = questionOf(argument);
      return targets.plan.time({ sql: q.gold, dbId: q.dbId, questionId: q.questionId }, `gold of question ${q.questionId}`);
    },
    [Commands.setEmbeddingsApiKey]: () => setEmbeddingsApiKey(ctx),
    [Commands.clearEmbeddingsApiKey]: () => clearEmbeddingsApiKey(ctx),
    [Commands.setPostgresPassword]: () => setPostgresPassword(ctx),
    [Commands.clearPostgresPassword]: () => clearPostgresPassword(ctx),
    [Commands.auditGold]: () => targets.audits.run(),
    [Commands.showGoldAudit]: () => targets.audits.show(),
    [Commands.showFlaggedOnly]: () => targets.explorer.setFlaggedOnly(true),
    [Commands.showAllQuestions]: () => targets.explorer.setFlaggedOnly(false),
    [Commands.showOutput]: () => ctx.output.show(),
    [Commands.restartServer]: () => ctx.restart(),
  };
  for (const [id, handler] of Object.entries(table)) {
    ctx.extension.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: never[]) => {
        try {
          return await handler(...args);
        } catch (error) {
          void showError(error);
        }
      }),
    );
  }
}
