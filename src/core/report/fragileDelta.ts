import type { ReportQuestion } from '../eval/reportFile';
import { fragileReason } from '../eval/robustnessSummary';

/**
 * Notes for `compare`: how many of the questions whose EX changed between the first run and a later one rest
 * on something EX cannot settle (an EX-correct side with a counterexample database, an EX-fragile mismatch),
 * so a Δ made of them says less than it seems. `questions[r]` are run r's results, aligned by position.
 */
export function fragileDeltaNotes(labels: readonly string[], questions: readonly (readonly ReportQuestion[])[]): string[] {
  const notes: string[] = [];
  for (let r = 1; r < questions.length; r++) {
    let changed = 0;
    let fragile = 0;
    questions[r].forEach((later, i) => {
      const first = questions[0][i];
      if (!first || first.ex === later.ex) return;
      changed++;
      if (fragileReason(first) || fragileReason(later)) fragile++;
    });
    if (fragile > 0)
      notes.push(
        `${fragile} of the ${changed} questions whose EX differs between ${labels[0]} and ${labels[r]} rest on a counterexample database or an EX-fragile mismatch (eval --counterexamples): that part of the EX Δ is not settled by the data`,
      );
  }
  return notes;
}
