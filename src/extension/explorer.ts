import * as vscode from 'vscode';
import { Commands, DatasetSummary, QuestionInfo, QuestionsRequest } from '../shared/protocol';
import { Ctx } from './ctx';
import { DatabaseRow, databaseRows } from './explorerDatabases';

type Node =
  | ({ kind: 'database' } & DatabaseRow)
  | { kind: 'difficulty'; dbId: string; difficulty: string; questions: QuestionInfo[] }
  | { kind: 'question'; question: QuestionInfo }
  | { kind: 'error'; message: string };

const DIFFICULTY_ORDER = ['simple', 'moderate', 'challenging'];

/** A note one feature puts on a question (the judge's gold-fault flag, an audit finding): a word in the description, a line in the tooltip. */
export interface QuestionMark {
  text: string;
  tooltip: string;
}

/** The BIRD explorer: databases → difficulty → questions; a question opens its read-only document. */
export class BirdExplorer implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private summary: DatasetSummary | undefined;
  /** Marks per question id, per source ('judge', 'audit'...): each feature replaces only its own. */
  private readonly marks = new Map<string, Map<string, QuestionMark>>();
  /** "Show flagged questions only": questions with a mark of any source; groups without one are left out. */
  private flaggedOnly = false;

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

  /** Replaces every mark of one source (question id → mark) and redraws the tree. */
  setMarks(source: string, byQuestion: ReadonlyMap<string, QuestionMark>): void {
    for (const marks of this.marks.values()) marks.delete(source);
    for (const [questionId, mark] of byQuestion) {
      if (!this.marks.has(questionId)) this.marks.set(questionId, new Map());
      this.marks.get(questionId)!.set(source, mark);
    }
    this.changed.fire();
  }

  setFlaggedOnly(on: boolean): void {
    this.flaggedOnly = on;
    void vscode.commands.executeCommand('setContext', 'vesLens.flaggedOnly', on);
    this.changed.fire();
  }

  private isMarked(question: QuestionInfo): boolean {
    return (this.marks.get(String(question.questionId))?.size ?? 0) > 0;
  }

  /** Flagged questions per present database (a missing one has nothing run, so nothing flagged). */
  private async flaggedCounts(): Promise<Map<string, number>> {
    const client = await this.ctx.client();
    const counts = new Map<string, number>();
    for (const database of this.summary?.databases.filter((d) => d.present) ?? []) {
      const questions = await client.sendRequest(QuestionsRequest, { dbId: database.dbId });
      counts.set(database.dbId, questions.filter((q) => this.isMarked(q)).length);
    }
    return counts;
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
      item.description = node.description;
      item.tooltip = node.tooltip;
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
    const marks = [...(this.marks.get(String(q.questionId))?.values() ?? [])];
    if (marks.length) item.description = marks.map((m) => m.text).join(' · ');
    const markLines = marks.map((m) => `$(warning) ${m.tooltip}\n\n`).join('');
    item.tooltip = new vscode.MarkdownString(
      `${markLines}**${q.question}**\n\n*Evidence:* ${q.evidence || '—'}\n\n\`\`\`sql\n${q.gold}\n\`\`\``,
      true,
    );
    item.contextValue = 'question';
    item.iconPath = marks.length
      ? new vscode.ThemeIcon('flag', new vscode.ThemeColor('list.warningForeground'))
      : new vscode.ThemeIcon('question');
    item.command = { title: 'Open question', command: Commands.openQuestion, arguments: [q] };
    return item;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!this.summary?.dataset) return [];
    if (!node) {
      if (this.summary.error) return [{ kind: 'error', message: this.summary.error }];
      const flagged = this.flaggedOnly ? await this.flaggedCounts() : undefined;
      return databaseRows(this.summary.databases, this.summary.dataset.dbRoot, flagged).map((row) => ({ kind: 'database', ...row }));
    }
    if (node.kind === 'database') {
      const all = await (await this.ctx.client()).sendRequest(QuestionsRequest, { dbId: node.dbId });
      const questions = this.flaggedOnly ? all.filter((q) => this.isMarked(q)) : all;
      const groups = new Map<string, QuestionInfo[]>();
      for (const q of questions) groups.set(q.difficulty, [...(groups.get(q.difficulty) ?? []), q]);
      const rank = (d: string) => (DIFFICULTY_ORDER.includes(d) ? DIFFICULTY_ORDER.indexOf(d) : 9);
      return [...groups]
        .sort(([a], [b]) => rank(a) - rank(b))
        .map(([difficulty, qs]) => ({ kind: 'difficulty', dbId: node.dbId, difficulty, questions: qs }));
    }
    if (node.kind === 'difficulty') return node.questions.map((question) => ({ kind: 'question', question }));
    return [];
  }
}
