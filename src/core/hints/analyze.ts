import { SchemaInfo } from '../db/schema';
import { parseSql } from '../sql/ast';
import { significantTokens } from '../sql/lexer';
import { splitStatements, StatementSpan } from '../sql/statements';
import { analysisBoundNote } from '../sql/textBounds';
import { RULES } from './rules';
import { Hint, HintRule, StatementContext } from './types';

export interface StatementHints {
  statement: StatementSpan;
  hints: Hint[];
  /** node-sql-parser's complaint, when asked for and it cannot read the statement (the token rules still ran). */
  parseError?: string;
  /** Rules that threw on this statement (a bug to report; the others still ran). */
  failedRules?: string[];
  /** Why no rule ran: the statement is past the bounds of SQL analysis (sql/textBounds.ts). */
  notAnalysed?: string;
}

/** Rule ids silenced by `-- ves-lens-ignore VL001 VL003` (or all rules by a bare `-- ves-lens-ignore`) before a statement. */
export function ignoredRules(statement: StatementSpan): Set<string> | 'all' {
  const ids = new Set<string>();
  for (const comment of statement.leadingComments) {
    const m = /ves-lens-ignore\b([^\n*]*)/.exec(comment.text);
    if (!m) continue;
    const listed = m[1].match(/VL\d{3}/gi);
    if (!listed) return 'all';
    for (const id of listed) ids.add(id.toUpperCase());
  }
  return ids;
}

function shift(hint: Hint, offset: number): Hint {
  const moved = { ...hint, range: { start: hint.range.start + offset, end: hint.range.end + offset } };
  if (hint.rewrite)
    moved.rewrite = { ...hint.rewrite, range: { start: hint.rewrite.range.start + offset, end: hint.rewrite.range.end + offset } };
  return moved;
}

/** Runs every rule on one statement; ranges come back in document offsets. */
export function hintsForStatement(
  statement: StatementSpan,
  schema?: SchemaInfo,
  rules: readonly HintRule[] = RULES,
): { hints: Hint[]; failedRules: string[]; notAnalysed?: string } {
  const notAnalysed = analysisBoundNote(statement.text, 'hints', 'tokens');
  if (notAnalysed) return { hints: [], failedRules: [], notAnalysed };
  const ignored = ignoredRules(statement);
  const context: StatementContext = { text: statement.text, offset: statement.start, tokens: significantTokens(statement.text), schema };
  const hints: Hint[] = [];
  const failedRules: string[] = [];
  for (const rule of rules) {
    if (ignored === 'all' || ignored.has(rule.id)) continue;
    try {
      for (const found of rule.check(context))
        hints.push(
          shift({ rule: rule.id, title: rule.title, kind: rule.kind, ...(rule.note ? { note: true } : {}), ...found }, statement.start),
        );
    } catch {
      failedRules.push(rule.id); // never let one rule's bug take the others (or the editor) down
    }
  }
  return { hints, failedRules };
}

/** Hints for every statement of a SQL text. */
export function analyzeSql(text: string, options: { schema?: SchemaInfo; reportParseErrors?: boolean } = {}): StatementHints[] {
  return splitStatements(text).map((statement) => {
    const { hints, failedRules, notAnalysed } = hintsForStatement(statement, options.schema);
    const result: StatementHints = { statement, hints };
    if (failedRules.length) result.failedRules = failedRules;
    if (notAnalysed) result.notAnalysed = notAnalysed;
    else if (options.reportParseErrors) {
      const parsed = parseSql(statement.text);
      if (!parsed.ok) result.parseError = parsed.error;
    }
    return result;
  });
}
