import { summarize } from '../eval/evalSummary';
import { QuestionResult } from '../eval/types';
import { JudgeBranch, JudgeOutcome, TokenUsage } from './types';

/** One question of `ves-lens judge --json`: the eval contract, the two SQLs, and the judge's verdict (null when skipped). */
export interface JudgedQuestion extends QuestionResult {
  predicted_sql: string | null;
  gold_sql: string | null;
  judge: JudgeOutcome | null;
}

export interface JudgeGroupSummary {
  group: string;
  /** Scored questions (skipped ones not counted), as in `eval`. */
  count: number;
  /** EX × 100 over `count`, as `eval` prints it. */
  ex: number | null;
  /** Judge × 100: the share the judge scores 1, over the questions it gave a score (`judged`). */
  judge: number | null;
  judged: number;
  /** Questions without a judge score: judge_error or model_error. */
  judge_errors: number;
  /** EX verdicts the judge overturns: EX 1 but judged 0, and EX 0 but judged 1. */
  ex_correct_judge_incorrect: number;
  ex_incorrect_judge_correct: number;
  /** Refuter flags for annotators (never part of the score): the gold looks wrong; the question or schema is ambiguous. */
  gold_flagged: number;
  ambiguous: number;
}

export interface JudgeSummary {
  groups: JudgeGroupSummary[];
  branches: Partial<Record<JudgeBranch, number>>;
  calls: number;
  cached_calls: number;
  usage: TokenUsage;
}

function group(name: string, questions: readonly JudgedQuestion[], ex: number | null, count: number): JudgeGroupSummary {
  const judged = questions.filter((q) => q.judge && q.judge.score !== null);
  const ones = judged.filter((q) => q.judge!.score === 1).length;
  return {
    group: name,
    count,
    ex,
    judge: judged.length ? (ones / judged.length) * 100 : null,
    judged: judged.length,
    judge_errors: questions.filter((q) => q.judge && q.judge.score === null).length,
    ex_correct_judge_incorrect: judged.filter((q) => q.ex === 1 && q.judge!.score === 0).length,
    ex_incorrect_judge_correct: judged.filter((q) => q.ex === 0 && q.judge!.score === 1).length,
    gold_flagged: questions.filter((q) => q.judge?.refuter?.gold_correct === false).length,
    ambiguous: questions.filter((q) => q.judge?.refuter && q.judge.refuter.ambiguity !== 'na').length,
  };
}

/** The judge's summary per difficulty and in total, beside EX (from the engine's own summary). */
export function summarizeJudge(questions: readonly JudgedQuestion[]): JudgeSummary {
  const exSummary = summarize(questions, ['ex']);
  const groups = exSummary.groups.map((g) =>
    group(g.group, g.group === 'total' ? questions : questions.filter((q) => q.difficulty === g.group), g.scores.ex ?? null, g.count),
  );
  const branches: Partial<Record<JudgeBranch, number>> = {};
  let calls = 0;
  let cached = 0;
  const usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0 };
  for (const q of questions) {
    if (!q.judge) continue;
    branches[q.judge.branch] = (branches[q.judge.branch] ?? 0) + 1;
    calls += q.judge.calls;
    cached += q.judge.cached_calls;
    usage.prompt_tokens += q.judge.usage.prompt_tokens;
    usage.completion_tokens += q.judge.usage.completion_tokens;
  }
  return { groups, branches, calls, cached_calls: cached, usage };
}
