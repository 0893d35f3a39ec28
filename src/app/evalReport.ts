/**
 * A finished eval run as the report `ves-lens eval --json` writes (core's evalReport, `complete` beside `tool`), for
 * every face: the CLI writes it, the editor's Report panel saves it (Export JSON), Compare reads either back.
 */
import { completeness, EvalInputs, evalReport, ToolInfo } from '../core/eval/reportJson';
import type { FinishedEvalRun } from './evalRun';

export function finishedEvalReport(tool: ToolInfo, inputs: Omit<EvalInputs, 'gold_cache'>, finished: FinishedEvalRun, total: number) {
  const { results, summary, problems } = finished;
  const withCache = { ...inputs, gold_cache: finished.goldCache?.counts() ?? null };
  return completeness(evalReport(tool, withCache, summary, problems, results), finished.complete, total);
}
