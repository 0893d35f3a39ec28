import type { QuestionResult } from './types';

/** How far EX can be trusted over a file (eval --counterexamples): the JSON's `summary.robustness`. */
export interface RobustnessSummary {
  ex_correct: number;
  /** EX-correct pairs proved equivalent from the SQL and the schema. */
  provably_equivalent: number;
  /** EX-correct pairs searched for a counterexample, and those the search found one for (each re-checked). */
  searched: number;
  with_counterexample: number;
  /** EX-correct pairs not searched for lack of time (the whole search's budget). */
  not_searched_budget: number;
  /** Seconds the counterexample searches took, together. */
  search_seconds: number;
  mismatches: number;
  /** Mismatches that rest only on float digits or on the physical row order. */
  ex_fragile: number;
  ex_fragile_by_kind: Record<string, number>;
  /** Present (false) when the run was interrupted during the check: `not_checked` pairs were not looked at. */
  complete?: false;
  not_checked?: number;
}

/** The summary of a check that an interruption cut short: marked incomplete, with the pairs it did not reach. */
export function interruptedRobustness(summary: RobustnessSummary, notChecked: number): RobustnessSummary {
  return { ...summary, complete: false, not_checked: notChecked };
}

/** The robustness counts of a run, or undefined when it was not checked (no question carries the fields). */
export function robustnessSummary(results: readonly Partial<QuestionResult>[]): RobustnessSummary | undefined {
  const checked = results.some((r) => r.equivalence || r.counterexample_search || r.ex_fragile);
  if (!checked) return undefined;
  const correct = results.filter((r) => r.outcome === 'correct');
  const searched = correct.filter((r) => r.counterexample_search && r.counterexample_search.result !== 'not_searched');
  const byKind: Record<string, number> = {};
  for (const r of results) if (r.ex_fragile) byKind[r.ex_fragile.kind] = (byKind[r.ex_fragile.kind] ?? 0) + 1;
  return {
    ex_correct: correct.length,
    provably_equivalent: correct.filter((r) => r.equivalence?.verdict === 'equivalent').length,
    searched: searched.length,
    with_counterexample: correct.filter((r) => r.counterexample).length,
    not_searched_budget: correct.filter(
      (r) => r.counterexample_search?.result === 'not_searched' && /budget/.test(r.counterexample_search.note ?? ''),
    ).length,
    search_seconds: Number(searched.reduce((sum, r) => sum + (r.counterexample_search?.seconds ?? 0), 0).toFixed(1)),
    mismatches: results.filter((r) => r.outcome === 'mismatch').length,
    ex_fragile: Object.values(byKind).reduce((a, b) => a + b, 0),
    ex_fragile_by_kind: byKind,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The summary in sentences, for the terminal and the HTML report. */
export function robustnessLines(summary: RobustnessSummary): string[] {
  const kinds = Object.entries(summary.ex_fragile_by_kind).map(([kind, n]) => `${n} ${kind.replace(/_/g, ' ')}`);
  return [
    ...(summary.complete === false
      ? [
          `incomplete: the run was interrupted during the check; ${plural(summary.not_checked ?? 0, 'pair')} not checked ` +
            '(the scores are complete)',
        ]
      : []),
    `${summary.with_counterexample} of ${summary.searched} searched (${plural(summary.ex_correct, 'EX-correct prediction')}) ` +
      'return a different result from the gold on a counterexample database, a small variation of the real one ' +
      `(${summary.search_seconds} s of search)` +
      (summary.not_searched_budget ? `; ${summary.not_searched_budget} not searched (time budget spent)` : ''),
    `${summary.provably_equivalent} of ${summary.ex_correct} are provably equivalent to the gold (the rest agree on this data only)`,
    `${summary.ex_fragile} of ${summary.mismatches} mismatch${summary.mismatches === 1 ? '' : 'es'} are EX-fragile${kinds.length ? ` (${kinds.join(', ')})` : ''}: the results differ only in float digits or through the physical row order`,
  ];
}

/** One key per question of a compared report: what a change of EX there rests on, if anything fragile. */
export function fragileReason(question: Partial<QuestionResult>): string | undefined {
  if (question.counterexample) return 'an EX-correct pair with a counterexample';
  if (question.ex_fragile) return `an EX-fragile mismatch (${question.ex_fragile.kind.replace(/_/g, ' ')})`;
  return undefined;
}
