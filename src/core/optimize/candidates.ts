/**
 * Where candidate rewrites come from: the optimizer's own rules (rules/), the speed hints' rewrites
 * (hints/rules/), each applied to the statement and to every SELECT nested in it (a subquery in FROM is a query
 * of its own), and in combination: a rewrite's result is read again by every rule, a few levels deep.
 */
import { SchemaInfo } from '../db/schema';
import { hintsForStatement } from '../hints/analyze';
import { StatementContext } from '../hints/types';
import { closingParen } from '../sql/clauses';
import { wordIs } from '../sql/keywords';
import { significantTokens } from '../sql/lexer';
import { splitStatements } from '../sql/statements';
import { REWRITE_RULES } from './rules';
import { RewriteCandidate, RewriteRule } from './rules/types';

/** A form of the statement reached by one or more rewrites. */
export interface CandidateForm {
  sql: string;
  /** The rules applied, in order (VL0nn, or `model`). */
  patterns: string[];
  notes: string[];
}

/** Whitespace- and case-insensitive identity of a statement's text (outside string literals the case is the same to SQLite). */
export function formKey(sql: string): string {
  return significantTokens(sql)
    .map((t) => (t.kind === 'string' || t.kind === 'quoted' ? t.text : t.text.toLowerCase()))
    .join(' ');
}

function contextOf(text: string, schema?: SchemaInfo): StatementContext {
  return { text, offset: 0, tokens: significantTokens(text), schema };
}

/** The speed hints' rewrites (and each alternative form) as candidates. */
function hintCandidates(text: string, schema?: SchemaInfo): RewriteCandidate[] {
  const statement = splitStatements(text)[0];
  if (!statement) return [];
  const { hints } = hintsForStatement(statement, schema);
  return hints
    .filter((hint) => hint.kind === 'speed' && hint.rewrite)
    .flatMap((hint) =>
      (hint.alternatives?.length ? hint.alternatives : [hint.rewrite!]).map((rewrite) => ({
        sql: rewrite.statement,
        rule: hint.rule,
        note: hint.title,
      })),
    );
}

/** Every rewrite one rule application makes of `text`: at its top level and inside each nested SELECT. */
export function oneStepRewrites(text: string, schema?: SchemaInfo, only?: ReadonlySet<string>): RewriteCandidate[] {
  const rules: readonly RewriteRule[] = only ? REWRITE_RULES.filter((rule) => only.has(rule.id)) : REWRITE_RULES;
  const apply = (sql: string): RewriteCandidate[] => {
    const context = contextOf(sql, schema);
    const out: RewriteCandidate[] = [];
    for (const rule of rules) {
      try {
        out.push(...rule.rewrite(context));
      } catch {
        // A rule's bug never stops the search: the other rules still propose.
      }
    }
    try {
      out.push(...hintCandidates(sql, schema).filter((candidate) => !only || only.has(candidate.rule)));
    } catch {
      // as above
    }
    return out;
  };
  const found = apply(text);
  // Each parenthesised SELECT is a query too (a derived table, a subquery): its rewrites spliced back.
  const tokens = significantTokens(text);
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].text !== '(' || !wordIs(tokens[i + 1], 'SELECT')) continue;
    const close = closingParen(tokens, i);
    if (close < 0) continue;
    const inner = text.slice(tokens[i + 1].start, tokens[close - 1].end);
    for (const candidate of apply(inner))
      found.push({ ...candidate, sql: text.slice(0, tokens[i + 1].start) + candidate.sql + text.slice(tokens[close - 1].end) });
  }
  return found;
}

/**
 * Forms reachable from `start` by up to `depth` rule applications, breadth first, each reached once (by the
 * shortest chain), at most `limit` of them. `keep` decides which forms are expanded further (the search keeps
 * only forms that still return the original's rows).
 */
export function* combinedRewrites(
  start: CandidateForm,
  schema: SchemaInfo | undefined,
  options: { depth: number; limit: number; only?: ReadonlySet<string> },
  seen: Set<string> = new Set([formKey(start.sql)]),
): Generator<CandidateForm, void, boolean | undefined> {
  let level: CandidateForm[] = [start];
  let produced = 0;
  for (let d = 0; d < options.depth && level.length; d++) {
    const next: CandidateForm[] = [];
    for (const form of level) {
      for (const candidate of oneStepRewrites(form.sql, schema, options.only)) {
        const key = formKey(candidate.sql);
        if (seen.has(key)) continue;
        seen.add(key);
        const reached: CandidateForm = {
          sql: candidate.sql,
          patterns: [...form.patterns, candidate.rule],
          notes: [...form.notes, candidate.note],
        };
        if (++produced > options.limit) return;
        // The caller answers whether this form is worth expanding (it returns the original's rows).
        const expand = yield reached;
        if (expand !== false) next.push(reached);
      }
    }
    level = next;
  }
}
