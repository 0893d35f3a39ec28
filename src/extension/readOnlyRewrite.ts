/**
 * A verified rewrite of SQL shown in a read-only document (a question's gold, `ves-lens-question:`): it cannot be
 * applied there (nothing could save it, and a reload would lose it), so the editor offers what is possible: the
 * rewritten statement to copy, or the whole document rewritten, opened in a new untitled SQL editor (its
 * `-- bird:` comment still binds it to the question, so its lenses score and time it). No vscode import: tested
 * with node:test.
 */
import { QUESTION_SCHEME } from '../shared/protocol';

export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Whether a document's rewrites cannot be applied in place: a question document, or a read-only file system's. */
export function isReadOnlyDocument(scheme: string, writableFileSystem: boolean | undefined): boolean {
  return scheme === QUESTION_SCHEME || writableFileSystem === false;
}

/** The document with the rewrite applied, and the rewritten statement alone (from its start to the document's end or `;`). */
export function rewrittenCopy(text: string, statementStart: number, edit: TextEdit): { document: string; statement: string } {
  const document = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  const rest = document.slice(statementStart);
  const statementEnd = rest.lastIndexOf(';');
  const statement = (statementEnd === -1 ? rest : rest.slice(0, statementEnd)).trim();
  return { document, statement };
}

/** Why the rewrite is offered rather than applied, with what was measured. */
export function readOnlyRewriteMessage(rule: string, verdict: string, recommended: boolean): string {
  const measured = recommended ? `verified: ${verdict}` : `same rows, but not measured faster: ${verdict}`;
  return (
    `VES Lens: ${rule} rewrite ${measured}. It is not applied: this gold is the question file's read-only view, ` +
    'which cannot be edited or saved. Copy the rewritten SQL, or open it in a new editor.'
  );
}
