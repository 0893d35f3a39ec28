import { SchemaInfo } from '../db/schema';
import { Token } from '../sql/lexer';

/** A source range: character offsets into the text the statement came from (end exclusive). */
export interface Range {
  start: number;
  end: number;
}

export interface Rewrite {
  /** What to replace (within the document) and with what. */
  range: Range;
  text: string;
  /** The whole statement after the edit: what --verify runs. */
  statement: string;
}

export interface Hint {
  rule: string; // VL001...
  title: string;
  message: string;
  /** Where the pattern is, for the editor's squiggle. */
  range: Range;
  /** `speed`: a faster form may exist; `correctness`: the query may not mean what it says. */
  kind: 'speed' | 'correctness';
  /** An information note, not a warning: the rule's rewrite is rarely faster (see HintRule.note). */
  note?: boolean;
  rewrite?: Rewrite;
  /**
   * Every form a rule proposes for the same range when which one is faster depends on the data and the plan
   * (VL002: `COUNT(*)` and `COUNT(<primary key>)`); `rewrite` is the first of them. Nothing about speed is
   * claimed without a measurement: a verifier runs each on the database (same rows as the original?), times
   * the original against each, and offers only one measured faster than the original; if none is, the
   * original stays ("no faster form here").
   */
  alternatives?: Rewrite[];
  /** What the rewrite may change (ties, NULLs, case): checked by --verify on the database. */
  caveat?: string;
}

/** One statement as the rules see it. */
export interface StatementContext {
  /** The statement's text, without its `;`. */
  text: string;
  /** Where the statement starts in the document: rule ranges are relative to `text` and shifted by this. */
  offset: number;
  tokens: Token[]; // significant tokens, offsets relative to `text`
  /** The attached database's schema, when there is one (rules that need column facts stay silent without). */
  schema?: SchemaInfo;
}

/** A rewrite rule: a stable id, a one-page doc, and a check that finds the pattern. */
export interface HintRule {
  id: string;
  title: string;
  kind: 'speed' | 'correctness';
  /**
   * True for a rule whose rewrite was measured faster in under a quarter of its fires on ×10 copies of the shared
   * databases (bench/results/hints.md): it informs (a form worth measuring), never warns; the editor shows it as
   * a hint-level diagnostic and the command line as a note.
   */
  note?: boolean;
  check(context: StatementContext): Omit<Hint, 'rule' | 'title' | 'kind'>[];
}
