/**
 * A finished eval run as the report `ves-lens eval --json` writes (core's evalReport, `complete` beside `tool`), for
 * every face: the CLI writes it, the editor's Report panel saves it (Export JSON), Compare reads either back.
 */
import { completeness, EvalInputs, evalReport, ToolInfo } from '../core/eval/reportJson';
import { fromRunFailure } from '../core/eval/runFailure';
import type { FinishedEvalRun } from './evalRun';

export function finishedEvalReport(tool: ToolInfo, inputs: Omit<EvalInputs, 'gold_cache'>, finished: FinishedEvalRun, total: number) {
  const { results, summary, problems, interrupted } = finished;
  // Complete only when every question was scored by a working engine (none left by the run's failure).
  const complete = !interrupted && !results.some(fromRunFailure);
  const withCache = { ...inputs, gold_cache: finished.goldCache?.counts() ?? null };
  return completeness(evalReport(tool, withCache, summary, problems, results), complete, total);
}
