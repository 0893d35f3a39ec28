import * as path from 'path';
import * as vscode from 'vscode';
import { goldLabel, goldMismatch } from '../app/goldForEngine';
import { engineShortLabel } from '../core/text/engineText';
import { Commands, DatasetSummary } from '../shared/protocol';
import { Ctx } from './ctx';

/** The attached dataset and what runs its SQL (engine and version), in the status bar; a click attaches another. */
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
    } else if (summary.dataset && summary.engineError) {
      // The dataset stays attached: its questions and documents are there, its SQL cannot run until the engine answers.
      this.item.text = `$(warning) ${path.basename(summary.dataset.questionsFile)} · ${summary.questionCount} q · database engine unavailable`;
      this.item.tooltip = `${summary.engineError}\n\nClick to attach another dataset.`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else if (summary.dataset) {
      const engine = summary.engine;
      // The gold in use, with its dialect: one of another dialect than the engine's is a warning (issue 30).
      const gold = goldLabel(summary.dataset.goldFile);
      const mismatch = engine ? goldMismatch(summary.dataset.goldFile, engine.engine) : undefined;
      this.item.text = `${mismatch ? '$(warning)' : '$(database)'} ${path.basename(summary.dataset.questionsFile)} · ${gold} · ${summary.questionCount} q · ${present}/${summary.databases.length} db · ${engineShortLabel(summary.engine, summary.sqlite)}`;
      if (mismatch) this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      // A server's databases are on it; SQLite's, and an embedded engine's copies, come from the dataset's folder.
      const where = engine?.engine === 'postgres' && engine.runs === 'server' ? `on ${engine.location}` : `\`${summary.dataset.dbRoot}\``;
      this.item.tooltip = new vscode.MarkdownString(
        `**VES Lens dataset**\n\nQuestions: \`${summary.dataset.questionsFile}\`\n\nGold: \`${summary.dataset.goldFile ?? "the questions' SQL field"}\` (${gold})\n\nDatabases: ${where} (${present} of ${summary.databases.length} present)${mismatch ? `\n\n⚠ ${mismatch.message}` : ''}\n\nSQL runs on ${engine?.line ?? `SQLite ${summary.sqlite}`}${engine?.note ? `\n\n${engine.note}` : ''}${summary.problems.length ? `\n\n${summary.problems.length} input problem(s): ${summary.problems.slice(0, 3).join('; ')}` : ''}\n\nClick to attach another dataset.`,
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
