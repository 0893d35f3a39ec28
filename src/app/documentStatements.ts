/**
 * The SQL of a document open in the editor: its units (a .sql file's statements, the SQL strings of a BIRD question
 * or prediction file), the one under an offset, and which of them the editor's hints and checks cover.
 */
import { documentKind, sqlUnits, type SqlUnit } from '../core/sql/documentUnits';

/** A document as the editor holds it (a TextDocument is one). */
export interface EditorDocument {
  languageId: string;
  getText(): string;
}

/** Every SQL unit of the document, in document order. */
export function documentStatements(document: EditorDocument): SqlUnit[] {
  return sqlUnits(document.languageId, document.getText());
}

/** The unit whose span holds `offset` (its end included: the cursor just after a statement is on it). */
export function statementAt(document: EditorDocument, offset: number): SqlUnit | undefined {
  return documentStatements(document).find((unit) => unit.start <= offset && offset <= unit.end);
}

/** Whether the document's hints are shown: a question file's (every gold SQL of it) only when `inQuestionFiles`. */
export function showsHints(document: EditorDocument, inQuestionFiles: boolean): boolean {
  return inQuestionFiles || documentKind(document.languageId, document.getText()) !== 'bird-questions';
}

/** Whether the document is a .sql file, whose statements are also checked before they run (compiled, their bindings found). */
export function isSqlDocument(document: EditorDocument): boolean {
  return documentKind(document.languageId, document.getText()) === 'sql';
}
