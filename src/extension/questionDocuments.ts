import * as vscode from 'vscode';
import { QUESTION_SCHEME, QuestionDocumentRequest, QuestionInfo } from '../shared/protocol';
import { Ctx } from './ctx';

/** `ves-lens-question:/superhero/question 717.sql`: one read-only document per question, whatever the clicks. */
export function questionUri(question: Pick<QuestionInfo, 'dbId' | 'questionId'>): vscode.Uri {
  return vscode.Uri.from({ scheme: QUESTION_SCHEME, path: `/${question.dbId || 'no database'}/question ${question.questionId}.sql` });
}

export function questionIdOf(uri: vscode.Uri): string | undefined {
  return /question (.+)\.sql$/.exec(uri.path)?.[1];
}

/**
 * The question documents: the question's text and evidence as comments, then its gold SQL formatted, served
 * by the language server. Read-only (a content provider's documents are), never dirty, one tab per question.
 */
export class QuestionDocuments implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly ctx: Ctx) {
    ctx.extension.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(QUESTION_SCHEME, this),
      this.changed,
      // Another dataset: the open question documents show its questions.
      ctx.onDatasetChanged(() => {
        for (const document of vscode.workspace.textDocuments) if (document.uri.scheme === QUESTION_SCHEME) this.changed.fire(document.uri);
      }),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = questionIdOf(uri);
    if (id === undefined) return `-- not a question document: ${uri.toString()}\n`;
    try {
      const client = await this.ctx.client();
      return await client.sendRequest(QuestionDocumentRequest, { questionId: /^\d+$/.test(id) ? Number(id) : id });
    } catch (error) {
      return `-- question ${id}: ${(error as Error).message}\n`;
    }
  }

  async open(question: QuestionInfo): Promise<void> {
    const document = await vscode.workspace.openTextDocument(questionUri(question));
    await vscode.window.showTextDocument(document, { preview: true });
  }
}
