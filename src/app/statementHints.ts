/**
 * The editor's hints on a statement: the rules' hints in document offsets, a hint's rewrite verified on the database
 * (and, when applied, the edit that keeps the statement's layout), and whether a statement compiles on its database.
 * Messages are core's words; the face words them for its reader.
 */
import type { OpenDatabase } from '../core/db/connectionCache';
import { dialectOf, runnableBody } from '../core/db/readQuery';
import { hintsForStatement } from '../core/hints/analyze';
import type { Hint } from '../core/hints/types';
import { verifyHint, type VerdictStatus } from '../core/hints/verify';
import { DIALECT_NAMES } from '../core/sql/dialect';
import { documentOffset, type SqlUnit } from '../core/sql/documentUnits';
import type { SchemaInfo } from '../core/sql/catalog';
import { documentEdit, type TextEdit } from './sqlLayout';

/** The hints of one unit, in document offsets (a JSON string's SQL maps through its escapes). */
export function statementHints(unit: SqlUnit, schema: SchemaInfo | undefined): Hint[] {
  if (unit.statement) return hintsForStatement(unit.statement, schema).hints;
  const { hints } = hintsForStatement({ start: 0, end: unit.sql.length, text: unit.sql, leadingComments: [] }, schema);
  const map = (range: { start: number; end: number }) => ({
    start: documentOffset(unit, range.start),
    end: documentOffset(unit, range.end),
  });
  return hints.map((hint) => ({
    ...hint,
    range: map(hint.range),
    rewrite: hint.rewrite && { ...hint.rewrite, range: map(hint.rewrite.range) },
  }));
}

/** A hint's rewrite as measured: the verdict, the edit when it may be applied, and whether to apply it without asking. */
export interface VerifiedRewrite {
  status: VerdictStatus;
  message: string;
  /** Only when the rows agree (or a correctness hazard is confirmed). */
  edit?: TextEdit;
  /** Same rows and measured faster, or a correctness hazard confirmed. */
  recommended: boolean;
}

/**
 * A hint's rewrite run against the original on the database, and its edit of the document when the rows agree
 * (documentEdit: a .sql statement keeps its layout).
 */
export async function verifyRewrite(
  database: OpenDatabase,
  document: { languageId: string; text: string },
  unit: SqlUnit,
  hint: Hint,
  limits: { timeoutMs: number; maxRows: number },
): Promise<VerifiedRewrite> {
  const verdict = await verifyHint(database.db, unit.sql, hint, limits);
  const confirmedHazard = hint.kind === 'correctness' && verdict.status === 'changes-results';
  const rowsAgree = verdict.sameSet === true && verdict.status !== 'changes-results' && verdict.status !== 'failed';
  if (!rowsAgree && !confirmedHazard) return { status: verdict.status, message: verdict.message, recommended: false };
  const rewrite = verdict.rewrite ?? hint.rewrite!;
  const splice = { start: rewrite.range.start, end: rewrite.range.end, text: rewrite.text };
  const edit = documentEdit(document, unit, splice, database);
  return {
    status: verdict.status,
    message: verdict.message,
    edit,
    recommended: hint.kind === 'correctness' || verdict.status === 'faster',
  };
}

/** Compile results kept at most (a typing-sized edit recompiles only the statement it touched). */
const COMPILES_KEPT = 5000;

/** Whether statements compile on their databases, each database and statement asked once. */
export class StatementCompiles {
  /** The engine's compile error (or '' when it compiles) per database target and statement. */
  private readonly compiled = new Map<string, string>();

  /** A new dataset or trust: compile results are no longer known to hold. */
  forgetAll(): void {
    this.compiled.clear();
  }

  /** The engine's name and message when the statement does not compile; nothing for one that does, or is refused. */
  async compileError(database: OpenDatabase, sql: string): Promise<{ engine: string; error: string } | undefined> {
    const dialect = dialectOf(database.db.engine);
    const runnable = runnableBody(sql, dialect);
    // A refused statement (a write, several statements) is said when it is run, not as a syntax error.
    if (!('body' in runnable) || runnable.body === '') return undefined;
    const key = `${database.path}\n${runnable.body}`;
    let error = this.compiled.get(key);
    if (error === undefined) {
      error = await database.db.columnCount(runnable.body).then(
        () => '',
        (failure: Error) => failure.message,
      );
      this.compiled.set(key, error);
      if (this.compiled.size > COMPILES_KEPT) this.compiled.delete(this.compiled.keys().next().value!);
    }
    return error ? { engine: DIALECT_NAMES[dialect], error } : undefined;
  }
}
