import * as path from 'path';
import * as vscode from 'vscode';
import { Commands, DatasetSummary } from '../shared/protocol';

/** The attached dataset and the SQLite version, in the status bar; a click attaches another. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('vesLens.dataset', vscode.StatusBarAlignment.Left, 50);

  constructor() {
    this.item.name = 'VES Lens dataset';
    this.item.command = Commands.attachDataset;
  }

  show(summary: DatasetSummary): void {
    const present = summary.databases.filter((d) => d.present).length;
    if (summary.dataset) {
      this.item.text = `$(database) ${path.basename(summary.dataset.questionsFile)} · ${summary.questionCount} q · ${present}/${summary.databases.length} db · SQLite ${summary.sqlite}`;
      this.item.tooltip = new vscode.MarkdownString(
        `**VES Lens dataset**\n\nQuestions: \`${summary.dataset.questionsFile}\`\n\nGold: \`${summary.dataset.goldFile ?? 'the questions\' SQL field'}\`\n\nDatabases: \`${summary.dataset.dbRoot}\` (${present} of ${summary.databases.length} present)\n\nSQLite ${summary.sqlite}${summary.problems.length ? `\n\n${summary.problems.length} input problem(s): ${summary.problems.slice(0, 3).join('; ')}` : ''}\n\nClick to attach another dataset.`,
      );
    } else {
      this.item.text = `$(database) VES Lens: attach a dataset · SQLite ${summary.sqlite}`;
      this.item.tooltip = 'Attach a BIRD dataset (question file, gold SQL, databases) to score and explain SQL against it';
    }
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
