import { formatProblem } from '../text/problemText';

/** A problem found in an input file: where it is, and what is wrong. The run goes on without that entry. */
export interface InputProblem {
  file: string;
  /** `line 12`, `key "17"`, `item 3`: whatever locates the entry in that file. */
  where?: string;
  message: string;
  /**
   * A problem of the whole file or of many entries at once (files mis-paired, predictions missing, another
   * gold): shown at the top of a report and again under its tables, never cut off.
   */
  headline?: boolean;
}

// Worded and ordered in core/text/ (the faces' wording layer); kept here for core's callers.
export { formatProblem, orderProblems } from '../text/problemText';

/** Thrown when a whole file cannot be used (missing, not JSON, wrong shape). */
export class InputFileError extends Error {
  constructor(readonly problem: InputProblem) {
    super(formatProblem(problem));
  }
}

/** Line and column (1-based) of a character offset, for messages that point into a file. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
