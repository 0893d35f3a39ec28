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
