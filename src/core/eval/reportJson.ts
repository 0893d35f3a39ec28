import { formatProblem, InputProblem, orderProblems } from '../bird/problems';
import type { EngineDescription } from '../db/source';
import { EvalSummary } from './evalSummary';
import type { GoldCacheCounts } from './goldResultCache';
import { Metric, QuestionResult, TimingMode } from './types';

export interface ToolInfo {
  name: string;
  version: string;
  sqlite: string;
}

export interface EvalInputs {
  questions: string;
  predictions: string;
  prediction_format: string;
  pairing: string;
  gold: string | null;
  /** Where the gold SQL came from: `questions`, `gold-file` or `predictions` (--gold-from). */
  gold_from: string;
  /** The SQLite folder; null when the databases are on a server. */
  db_root: string | null;
  /** What ran the SQL: engine, version, embedded or server, where (never a password), the server's layout. */
  engine?: EngineDescription;
  metrics: readonly Metric[];
  timing: TimingMode;
  /** `plan-cost`: each question's plan_cost also holds BIRD-Critic's Total Cost verdict (eval --efficiency plan-cost). */
  efficiency?: 'timed' | 'plan-cost';
  timeout_s: number;
  max_rows: number;
  /** With --techniques: which ones, penalize_extra_columns, and the embeddings used (never the key). */
  techniques?: object;
  /** Gold results kept between runs (eval on SQLite): where, how many this run took and stored; null when off. */
  gold_cache?: GoldCacheCounts | null;
}

/** The --json document: tool, inputs, summary (per difficulty and total), problems, and every question. */
export function evalReport(
  tool: ToolInfo,
  inputs: EvalInputs,
  summary: EvalSummary,
  problems: readonly InputProblem[],
  questions: readonly QuestionResult[],
) {
  const groups = Object.fromEntries(
    summary.groups.map((g) => [
      g.group,
      { count: g.count, ...g.scores, outcomes: g.outcomes, ...(g.techniques ? { techniques: g.techniques } : {}) },
    ]),
  );
  return {
    tool,
    inputs,
    summary: { ...groups, skipped: summary.skipped, ...(summary.robustness ? { robustness: summary.robustness } : {}) },
    problems: orderProblems(problems).map(formatProblem),
    /** The problems that explain many results at once (also the first entries of `problems`). */
    headline_problems: problems.filter((p) => p.headline).map(formatProblem),
    questions,
  };
}

/**
 * The report with `complete` beside `tool`: false for the partial report of an interrupted run, which then says
 * how many questions the whole run has (`expected_questions`, for "N of M" wherever the report is shown).
 */
export function completeness<R extends { tool?: unknown }>(report: R, complete: boolean, expected?: number): R & { complete: boolean } {
  const { tool, ...rest } = report;
  return { tool, complete, ...(!complete && expected !== undefined ? { expected_questions: expected } : {}), ...rest } as R & {
    complete: boolean;
  };
}
