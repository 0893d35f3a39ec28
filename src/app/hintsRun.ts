/**
 * The hints use case (`ves-lens hints`, cli/hintsCommand.ts): the rewrite rules over every statement of a SQL
 * text, each hint placed by line and column, and with `verify` each hint's rewrite run against the original on the
 * database (same rows? measured faster?). Notes where the analysis stepped aside are kept apart from real syntax
 * errors. `prepareHintsRun` refuses what the engine cannot do before any work; `runHintsRun` returns typed results.
 */
import { lineAndColumn } from '../core/bird/problems';
import type { DatabaseConnection } from '../core/db/engine';
import { analyzeSql } from '../core/hints/analyze';
import type { Hint } from '../core/hints/types';
import { Verdict, verifyHint, VerifyLimits } from '../core/hints/verify';
import type { SchemaInfo } from '../core/sql/catalog';
import type { StatementSpan } from '../core/sql/statements';
import { analysisBoundNote } from '../core/sql/textBounds';
import { checkEngineNeeds } from './engineRules';

export interface HintsRunSettings {
  /** Run each rewrite against the original and time it. */
  verify?: boolean;
  /** Verification's bounds (with `scales`, the scaled copies each rewrite is timed on too). */
  limits: VerifyLimits;
}

/** A line and column in the text, both from 1. */
export interface TextPosition {
  line: number;
  column: number;
}

export interface HintedStatement {
  statement: StatementSpan;
  at: TextPosition;
  hints: { hint: Hint; at: TextPosition; /** With `verify`. */ verdict?: Verdict }[];
  /** Why no rule ran: the statement is past the bounds of SQL analysis. */
  notAnalysed?: string;
  /** node-sql-parser stepped aside past the bounds of its tree (the token rules still ran): a note, not a syntax error. */
  parserNote?: string;
  /** node-sql-parser cannot read the statement (the token rules still ran). */
  parseError?: string;
  /** Rules that threw on this statement (a bug to report; the others still ran). */
  failedRules: string[];
}

/** Refuses scaled copies on an engine that has none (the engine rule, RunRefused naming --scales). */
export function prepareHintsRun(db: DatabaseConnection, settings: HintsRunSettings): void {
  checkEngineNeeds(db.engine.name, { scales: settings.limits.scales !== undefined });
}

/** The hints of every statement of `text`, verified in order with `verify`. */
export async function runHintsRun(
  database: { db: DatabaseConnection; schema: SchemaInfo },
  text: string,
  settings: HintsRunSettings,
): Promise<HintedStatement[]> {
  const statements = [];
  for (const { statement, hints, parseError, failedRules, notAnalysed } of analyzeSql(text, {
    schema: database.schema,
    reportParseErrors: true,
  })) {
    // node-sql-parser's "error" past the bounds of its tree (sql/ast.ts) is its step-aside: said as such.
    const parserNote = parseError ? analysisBoundNote(statement.text, 'node-sql-parser') : undefined;
    const hinted = [];
    for (const hint of hints)
      hinted.push({
        hint,
        at: lineAndColumn(text, hint.range.start),
        verdict: settings.verify ? await verifyHint(database.db, statement.text, hint, settings.limits) : undefined,
      });
    statements.push({
      statement,
      at: lineAndColumn(text, statement.start),
      hints: hinted,
      notAnalysed,
      parserNote,
      parseError: parserNote ? undefined : parseError,
      failedRules: failedRules ?? [],
    });
  }
  return statements;
}
