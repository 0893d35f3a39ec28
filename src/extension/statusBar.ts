import * as path from 'path';
import * as vscode from 'vscode';
import { Commands, DatasetSummary } from '../shared/protocol';
import { Ctx } from './ctx';

/** The attached dataset and the SQLite version, in the status bar; a click attaches another. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('vesLens.dataset', vscode.StatusBarAlignment.Left, 50);

  constructor(ctx: Ctx) {
    this.item.name = 'VES Lens dataset';
    this.item.command = Commands.attachDataset;
    this.item.text = '$(sync~spin) VES Lens';
    this.item.show();
    ctx.extension.subscriptions.push(
      this,
      ctx.onDatasetChanged((summary) => this.show(summary)),
    );
  }

  show(summary: DatasetSummary): void {
    const present = summary.databases.filter((d) => d.present).length;
    this.item.backgroundColor = undefined;
    if (summary.dataset && summary.error) {
      this.item.text = `$(error) ${path.basename(summary.dataset.questionsFile)}: not a question file · SQLite ${summary.sqlite}`;
      this.item.tooltip = `${summary.error}\n\nClick to attach another dataset.`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (summary.dataset) {
      this.item.text = `$(database) ${path.basename(summary.dataset.questionsFile)} · ${summary.questionCount} q · ${present}/${summary.databases.length} db · SQLite ${summary.sqlite}`;
      this.item.tooltip = new vscode.MarkdownString(
        `**VES Lens dataset**\n\nQuestions: \`${summary.dataset.questionsFile}\`\n\nGold: \`${summary.dataset.goldFile ?? "the questions' SQL field"}\`\n\nDatabases: \`${summary.dataset.dbRoot}\` (${present} of ${summary.databases.length} present)\n\nSQLite ${summary.sqlite}${summary.problems.length ? `\n\n${summary.problems.length} input problem(s): ${summary.problems.slice(0, 3).join('; ')}` : ''}\n\nClick to attach another dataset.`,
      );
    } else {
      this.item.text = `$(database) VES Lens: attach a dataset · SQLite ${summary.sqlite}`;
      this.item.tooltip = 'Attach a BIRD dataset (question file, gold SQL, databases) to score and explain SQL against it';
    }
    this.item.show();
  }

  /** The server did not start: say so where the dataset would be. */
  failed(message: string): void {
    this.item.text = '$(error) VES Lens: server failed';
    this.item.tooltip = `${message}\n\nClick to see the log.`;
    this.item.command = Commands.showOutput;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
  }

  dispose(): void {
    this.item.dispose();
  }
}
