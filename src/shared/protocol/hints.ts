/** The hints slice: a rule's rewrite verified on the database before it is applied, one or all of a rule. */
import { RequestType } from 'vscode-languageserver-protocol';

export interface VerifyHintParams {
  uri: string;
  /** Offsets of the diagnostic's statement in the document. */
  statementStart: number;
  rule: string;
  hintStart: number;
}

export interface VerifyHintResult {
  status: 'faster' | 'slower' | 'no-difference' | 'same-work' | 'changes-results' | 'failed';
  message: string;
  /** The edit: a range of the document (offsets) and its new text; only when the rows agree. */
  edit?: { start: number; end: number; text: string };
  /**
   * Apply without asking: same rows and measured faster (or a correctness hazard confirmed). Otherwise the client
   * shows the measurement and offers "Apply anyway".
   */
  recommended: boolean;
}

/** Every hint of one rule in a document, for "fix all of this rule". */
export interface RuleHintsParams {
  uri: string;
  rule: string;
}

export const VerifyHintRequest = new RequestType<VerifyHintParams, VerifyHintResult, void>('vesLens/verifyHint');
export const RuleHintsRequest = new RequestType<RuleHintsParams, VerifyHintParams[], void>('vesLens/ruleHints');
