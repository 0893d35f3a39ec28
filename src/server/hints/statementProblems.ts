/**
 * What is wrong with a .sql file's statements before any hint applies, as diagnostics: an error where the engine
 * (SQLite, PostgreSQL) cannot compile a statement (its own message), a warning on the `-- bird:` / `-- db:`
 * comment when the question is not in the attached question file or its database is not there.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { Diagnostic, DiagnosticSeverity, Range } from 'vscode-languageserver-types';
import { StatementCompiles } from '../../app/statementHints';
import type { SqlUnit } from '../../core/sql/documentUnits';
import { BindingProblem, QueryTargets } from '../queryTargets';
import { editorText } from '../editorText';

/** The diagnostics' codes, so a person (or a test) tells them from the rules' VL00N. */
export const StatementProblemCodes = {
  compileError: 'sql-error',
  unknownQuestion: 'unknown-question',
  missingDatabase: 'missing-database',
} as const;

const BINDING_COMMENT: Record<NonNullable<BindingProblem['comment']>, RegExp> = { bird: /--\s*bird:/i, db: /--\s*db:/i };

export class StatementProblems {
  private readonly compiles = new StatementCompiles();

  constructor(private readonly targets: QueryTargets) {}

  /** A new dataset or trust: compile results are no longer known to hold. */
  forgetAll(): void {
    this.compiles.forgetAll();
  }

  async diagnostics(document: TextDocument, units: readonly SqlUnit[]): Promise<Diagnostic[]> {
    const diagnostics: Diagnostic[] = [];
    for (const unit of units) {
      if (unit.role !== 'query') continue;
      const bindings = await this.targets.bindingProblems(unit);
      for (const problem of bindings) diagnostics.push(bindingDiagnostic(document, unit, problem));
      if (bindings.some((problem) => problem.kind === 'missing-database')) continue;
      const compiled = await this.compileError(unit);
      if (compiled) {
        diagnostics.push({
          range: rangeOf(document, unit.start, unit.end),
          severity: DiagnosticSeverity.Error,
          code: StatementProblemCodes.compileError,
          source: 'VES Lens',
          message: `${compiled.engine}: ${editorText(compiled.error)}`,
        });
      }
    }
    return diagnostics;
  }

  /** The engine's message when the statement does not compile on its database; nothing without one (or untrusted). */
  private async compileError(unit: SqlUnit): Promise<{ engine: string; error: string } | undefined> {
    const database = await this.targets.unitDatabase(unit);
    return database && this.compiles.compileError(database, unit.sql);
  }
}

function rangeOf(document: TextDocument, start: number, end: number): Range {
  return { start: document.positionAt(start), end: document.positionAt(end) };
}

/** A binding problem on the comment that binds (the statement's first line when the default database does). */
function bindingDiagnostic(document: TextDocument, unit: SqlUnit, problem: BindingProblem): Diagnostic {
  const comment = problem.comment && unit.statement?.leadingComments.find((token) => BINDING_COMMENT[problem.comment!].test(token.text));
  const lineEnd = document.getText().indexOf('\n', unit.start);
  const firstLineEnd = lineEnd === -1 ? unit.end : Math.min(lineEnd, unit.end);
  const range = comment ? rangeOf(document, comment.start, comment.end) : rangeOf(document, unit.start, firstLineEnd);
  const code = problem.kind === 'unknown-question' ? StatementProblemCodes.unknownQuestion : StatementProblemCodes.missingDatabase;
  return { range, severity: DiagnosticSeverity.Warning, code, source: 'VES Lens', message: problem.message };
}
