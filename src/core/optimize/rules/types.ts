import { StatementContext } from '../../hints/types';

/** A whole statement a rule proposes in place of the one it read, and why. */
export interface RewriteCandidate {
  sql: string;
  /** The rule (VL0nn) or source (`model`) that proposed it. */
  rule: string;
  /** What was changed, in a sentence. */
  note: string;
}

/**
 * An optimizer rule: reads one statement (with the database's schema) and proposes equivalent forms that may
 * run faster. A rule checks the conditions its docs/rules/VL0nn.md page states (the proof conditions); the
 * optimizer still keeps a form only when it returns the same rows and is measured faster.
 */
export interface RewriteRule {
  id: string;
  title: string;
  rewrite(context: StatementContext): RewriteCandidate[];
}
