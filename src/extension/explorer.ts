import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { Commands, DatasetSummary, QuestionInfo, Requests } from '../shared/protocol';

type Node =
  | { kind: 'database'; dbId: string; present: boolean; questions: number }
  | { kind: 'difficulty'; dbId: string; difficulty: string; questions: QuestionInfo[] }
  | { kind: 'question'; question: QuestionInfo };

const DIFFICULTY_ORDER = ['simple', 'moderate', 'challenging'];

/** The BIRD explorer: databases → difficulty → questions; a question opens its text, evidence and gold SQL. */
export class BirdExplorer implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private summary: DatasetSummary | undefined;

  constructor(private readonly client: LanguageClient) {}

  refresh(summary: DatasetSummary): void {
    this.summary = summary;
    void vscode.commands.executeCommand('setContext', 'vesLens.datasetAttached', Boolean(summary.dataset));
    this.changed.fire();
  }

  getTreeItem(node: Node): vscode.TreeItem {
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
    if (!node) return this.summary.databases.map((d) => ({ kind: 'database', ...d }));
    if (node.kind === 'database') {
      const questions = await this.client.sendRequest<QuestionInfo[]>(Requests.questions, { dbId: node.dbId });
      const groups = new Map<string, QuestionInfo[]>();
      for (const q of questions) groups.set(q.difficulty, [...(groups.get(q.difficulty) ?? []), q]);
      const rank = (d: string) => (DIFFICULTY_ORDER.includes(d) ? DIFFICULTY_ORDER.indexOf(d) : 9);
      return [...groups].sort(([a], [b]) => rank(a) - rank(b)).map(([difficulty, qs]) => ({ kind: 'difficulty', dbId: node.dbId, difficulty, questions: qs }));
    }
    if (node.kind === 'difficulty') return node.questions.map((question) => ({ kind: 'question', question }));
    return [];
  }
}
