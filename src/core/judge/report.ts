import Table from 'cli-table3';
import pc from 'picocolors';
import { clip } from '../report/terminal';
import { TABLE_STYLE } from '../text/tableStyle';
import { JudgedQuestion, JudgeSummary } from './judgeSummary';

const score = (value: number | null) => (value === null ? '-' : value.toFixed(2));

/** The per-difficulty table: EX as `eval` prints it, the judge's score beside it, and what the judge overturns. */
export function judgeTable(summary: JudgeSummary): string {
  const groups = summary.groups;
  const table = new Table({
    head: ['', ...groups.map((g) => g.group)],
    style: TABLE_STYLE,
    colAligns: ['left', ...groups.map(() => 'right' as const)],
  });
  table.push(['count', ...groups.map((g) => String(g.count))]);
  table.push(['EX', ...groups.map((g) => score(g.ex))]);
  table.push(['Judge', ...groups.map((g) => score(g.judge))]);
  table.push(['judged', ...groups.map((g) => String(g.judged))]);
  if (groups.some((g) => g.judge_errors)) table.push(['no verdict', ...groups.map((g) => String(g.judge_errors))]);
  table.push(['EX 1 → judge 0', ...groups.map((g) => String(g.ex_correct_judge_incorrect))]);
  table.push(['EX 0 → judge 1', ...groups.map((g) => String(g.ex_incorrect_judge_correct))]);
  return table.toString();
}

const BRANCH_LABELS: Record<string, string> = {
  results_match: 'results match → Refuter alone',
  results_differ: 'results differ → Prover (→ Refuter if it passed)',
  prediction_failed: 'prediction failed → 0, no call',
  no_prediction: 'no prediction → 0, no call',
  gold_failed: 'gold failed or missing → Prover alone',
  prover_only: 'Prover alone (prover-only)',
  flex: 'one FLEX call',
};

const reasonOf = (q: JudgedQuestion) =>
  q.judge?.refuter?.judgement || q.judge?.prover?.reason || q.judge?.flex?.reason || q.judge?.notes[0] || '';

/** Which way the pairs went, where the judge and EX part, the Refuter's flags for annotators, errors, and the cost. */
export function judgeDetails(questions: readonly JudgedQuestion[], summary: JudgeSummary, limit = 8): string {
  const lines: string[] = [];
  const branchText = Object.entries(summary.branches).map(([branch, n]) => `${n} ${BRANCH_LABELS[branch] ?? branch}`);
  if (branchText.length) lines.push(`${pc.bold('cascade')}: ${branchText.join(' · ')}`);
  const list = (title: string, hits: readonly JudgedQuestion[], text: (q: JudgedQuestion) => string) => {
    if (hits.length === 0) return;
    lines.push(pc.bold(`${title} (${hits.length})`));
    for (const q of hits.slice(0, limit)) lines.push(`  question ${q.question_id} (${q.db_id}): ${clip(text(q), 200)}`);
    if (hits.length > limit) lines.push(pc.dim(`  ... and ${hits.length - limit} more (all in --json)`));
  };
  const judged = questions.filter((q) => q.judge && q.judge.score !== null);
  list(
    'EX 1, judged 0',
    judged.filter((q) => q.ex === 1 && q.judge!.score === 0),
    reasonOf,
  );
  list(
    'EX 0, judged 1',
    judged.filter((q) => q.ex === 0 && q.judge!.score === 1),
    reasonOf,
  );
  list(
    'the Refuter says the gold is wrong',
    questions.filter((q) => q.judge?.refuter?.gold_correct === false),
    (q) => q.judge!.refuter!.judgement,
  );
  list(
    'the Refuter finds ambiguity',
    questions.filter((q) => q.judge?.refuter && q.judge.refuter.ambiguity !== 'na'),
    (q) => `${q.judge!.refuter!.ambiguity}: ${q.judge!.refuter!.judgement}`,
  );
  list(
    'no verdict',
    questions.filter((q) => q.judge && q.judge.score === null),
    (q) => q.judge!.error ?? '',
  );
  return lines.join('\n');
}

/** One line of cost: requests, the cached share, tokens. */
export function usageLine(model: string, summary: JudgeSummary): string {
  const fresh = summary.calls - summary.cached_calls;
  const tokens = summary.usage.prompt_tokens + summary.usage.completion_tokens;
  return `${pc.bold('model')} ${model}: ${summary.calls} request${summary.calls === 1 ? '' : 's'} (${summary.cached_calls} from the cache, ${fresh} sent) · ${summary.usage.prompt_tokens.toLocaleString('en-US')} prompt + ${summary.usage.completion_tokens.toLocaleString('en-US')} completion = ${tokens.toLocaleString('en-US')} tokens`;
}
