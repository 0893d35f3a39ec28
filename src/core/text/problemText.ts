/**
 * How a problem of an input is worded and ordered in every face and report: its file, where in it, what is wrong;
 * headline problems first. Structural, so that the faces word core/bird's InputProblem with this layer alone.
 */
export interface ProblemText {
  file: string;
  where?: string;
  message: string;
  headline?: boolean;
}

/** Headline problems first (in their order), then the others: the order every report lists them in. */
export function orderProblems<P extends ProblemText>(problems: readonly P[]): P[] {
  return [...problems.filter((p) => p.headline), ...problems.filter((p) => !p.headline)];
}

export function formatProblem(problem: ProblemText): string {
  return `${problem.file}${problem.where ? ` (${problem.where})` : ''}: ${problem.message}`;
}

/** A value as a message quotes it: in JSON quotes (control characters visible), at most 40 characters. */
export function quoted(text: string | number): string {
  const value = String(text);
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
