import * as vscode from 'vscode';
import { Commands, DatasetSummary, QuestionInfo, QuestionsRequest } from '../shared/protocol';
import { Ctx } from './ctx';

type Node =
  | { kind: 'database'; dbId: string; present: boolean; questions: number }
  | { kind: 'difficulty'; dbId: string; difficulty: string; questions: QuestionInfo[] }
  | { kind: 'question'; question: QuestionInfo }
  | { kind: 'error'; message: string };

const DIFFICULTY_ORDER = ['simple', 'moderate', 'challenging'];

/** The BIRD explorer: databases → difficulty → questions; a question opens its read-only document. */
export class BirdExplorer implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private summary: DatasetSummary | undefined;

  constructor(private readonly ctx: Ctx) {
    ctx.extension.subscriptions.push(
      this.changed,
      vscode.window.registerTreeDataProvider('vesLens.explorer', this),
      ctx.onDatasetChanged((summary) => {
        this.summary = summary;
        this.changed.fire();
      }),
    );
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'error') {
      // A dataset that could not be read says why, where the questions would be.
      const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('error');
      item.tooltip = node.message;
      item.command = { title: 'Attach a dataset', command: Commands.attachDataset };
      return item;
    }
    if (node.kind === 'database') {
      const item = new vscode.TreeItem(node.dbId, vscode.TreeItemCollapsibleState.Collapsed);
      item.description = `${node.questions} questions${node.present ? '' : ' · database missing'}`;
      item.iconPath = new vscode.ThemeIcon(node.present ? 'database' : 'warning');
      item.contextValue = 'database';
      return item;
    }
    if (node.kind === 'difficulty') {
      const item = new vscode.TreeItem(node.difficulty || 'no difficulty', vscode.TreeItemCollapsibleState.Collapsed);
      item.description = String(node.questions.length);
      return item;
    }
    const q = node.question;
    const item = new vscode.TreeItem(`${q.questionId}: ${q.question}`, vscode.TreeItemCollapsibleState.None);
    item.tooltip = new vscode.MarkdownString(`**${q.question}**\n\n*Evidence:* ${q.evidence || '—'}\n\n\`\`\`sql\n${q.gold}\n\`\`\``);
    item.contextValue = 'question';
    item.iconPath = new vscode.ThemeIcon('question');
    item.command = { title: 'Open question', command: Commands.openQuestion, arguments: [q] };
    return item;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!this.summary?.dataset) return [];
    if (!node) {
      if (this.summary.error) return [{ kind: 'error', message: this.summary.error }];
      return this.summary.databases.map((d) => ({ kind: 'database', ...d }));
    }
    if (node.kind === 'database') {
      const questions = await (await this.ctx.client()).sendRequest(QuestionsRequest, { dbId: node.dbId });
      const groups = new Map<string, QuestionInfo[]>();
      for (const q of questions) groups.set(q.difficulty, [...(groups.get(q.difficulty) ?? []), q]);
      const rank = (d: string) => (DIFFICULTY_ORDER.includes(d) ? DIFFICULTY_ORDER.indexOf(d) : 9);
      return [...groups].sort(([a], [b]) => rank(a) - rank(b)).map(([difficulty, qs]) => ({ kind: 'difficulty', dbId: node.dbId, difficulty, questions: qs }));
    }
    if (node.kind === 'difficulty') return node.questions.map((question) => ({ kind: 'question', question }));
    return [];
  }
}
