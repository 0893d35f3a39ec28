/**
 * What `ves-lens eval` shows a person (cli/evalCommand.ts writes it): the header (engine, inputs, shard, the timing
 * clock), the gold cache's line, the tables and lists after the run, and the HTML page; built with core's report
 * tables, which the face does not load.
 */
import pc from 'picocolors';
import type { GoldFile } from '../core/bird/gold';
import type { PredictionFile } from '../core/bird/predictions';
import type { InputProblem } from '../core/bird/problems';
import { describeGoldSource, type EvalTask, type GoldSource } from '../core/bird/tasks';
import { dialectOf } from '../core/db/readQuery';
import type { DatabaseEngine } from '../core/db/engine';
import type { EngineDescription } from '../core/db/source';
import type { EvalSummary } from '../core/eval/evalSummary';
import { goldCacheOffLine, goldCacheOffReason } from '../core/eval/goldResultCache';
import { robustnessLines } from '../core/eval/robustnessSummary';
import { type AutoShard, resolveShard, type Shard } from '../core/eval/shard';
import type { Metric, QuestionResult } from '../core/eval/types';
import { evalReportHtml } from '../core/report/htmlReports';
import { plannerCostLines } from '../core/report/planText';
import { techniqueNotes } from '../core/report/techniqueRows';
import {
  efficiencyNotes,
  failureList,
  headlineProblems,
  outcomeTable,
  problemList,
  scoreTable,
  skippedLine,
} from '../core/report/terminal';
import { runClock } from '../core/timing/pythonTimer';
import { engineLine } from '../core/text/engineText';
import { writeOutputFile } from './runOutputs';
import { TOOL_NAME, TOOL_VERSION } from './toolInfo';

/** `--shard i/n` or `auto` (with --shard-count): the shard, none, or the usage error naming its option. */
export function evalShard(
  text: string | undefined,
  countText: string | undefined,
  env: NodeJS.ProcessEnv,
): { shard?: Shard | AutoShard; error?: string } {
  const shard = resolveShard(text, countText, env);
  return shard && 'error' in shard ? { error: `${shard.option}: ${shard.error}` } : { shard };
}

/**
 * The timing clock of `--timing official`/`fast` on SQLite (Python's sqlite3 as the scripts, or VES Lens's own), and the
 * line that says which: the first call starts the Python process (while the inputs are read), later ones find it started.
 */
export async function evalClock(engine: string, timing: string, metrics: readonly string[]) {
  const clock = await runClock(engine, timing, metrics);
  const line = clock.line && (clock.line.fallback ? pc.yellow(`note: ${clock.line.text}`) : clock.line.text);
  return { inputs: clock.inputs, line };
}

export interface EvalHeaderFacts {
  engine: EngineDescription;
  timing: string;
  metrics: readonly Metric[];
  questionsFile: string;
  predictionsFile: string;
  questions: number;
  allQuestions: number;
  shard?: Shard | AutoShard;
  predictionFile: PredictionFile;
  goldFrom: GoldSource;
  goldFile?: GoldFile;
  problems: InputProblem[];
}

/** What runs the SQL and what is read, the clock's line once it is known, then the inputs' problems worth seeing first. */
export async function writeEvalHeader(write: (text: string) => void, facts: EvalHeaderFacts) {
  const { engine, timing, metrics, shard, predictionFile } = facts;
  const shardText = shard
    ? ` (shard ${shard.index}/${shard.count} of ${facts.allQuestions}${'from' in shard ? `: ${shard.from}` : ''})`
    : '';
  write(
    `${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · ${engineLine(engine)} · timing ${timing}\n` +
      `${facts.questions} questions from ${facts.questionsFile}${shardText}; predictions from ${facts.predictionsFile} (${predictionFile.format}, paired by ${predictionFile.pairing}); gold from ${describeGoldSource(facts.goldFrom, facts.goldFile, predictionFile)}\n`,
  );
  // An embedded engine's timings are its own (WASM in this process), said before the numbers they make.
  if (engine.note && metrics.some((metric) => metric === 'ves' || metric === 'rves')) write(pc.yellow(`note: ${engine.note}`) + '\n');
  const clock = await evalClock(engine.engine, timing, metrics);
  if (clock.line) write(clock.line + '\n');
  const atTop = headlineProblems(facts.problems);
  if (atTop) write(atTop + '\n');
  return clock;
}

/** The gold cache's line after scoring: its counts, or on SQLite why it was off; nothing on a server without it. */
export function goldCacheText(cacheLine: string | undefined, engine: string, cacheOn: boolean): string | undefined {
  if (cacheLine) return `${cacheLine}; --no-gold-cache runs every gold\n`;
  if (engine === 'sqlite') return `${goldCacheOffLine(goldCacheOffReason(cacheOn) ?? '')}\n`;
  return undefined;
}

/** The tables and lists a person reads after the run. */
export function evalResultsText(report: {
  summary: EvalSummary;
  metrics: readonly Metric[];
  results: QuestionResult[];
  problems: InputProblem[];
  planCost: boolean;
  engine: DatabaseEngine;
}): string {
  const { summary, metrics, results, problems } = report;
  let text = scoreTable(summary, metrics) + '\n' + outcomeTable(summary) + '\n';
  for (const block of [
    skippedLine(summary),
    failureList(results),
    efficiencyNotes(results, dialectOf(report.engine)),
    techniqueNotes(results),
    summary.robustness && robustnessLines(summary.robustness).join('\n'),
    problemList(problems),
  ]) {
    if (block) text += block + '\n';
  }
  // BIRD-Critic's deterministic verdict beside the timed ratio, per question in the JSON's plan_cost.
  if (report.planCost) text += plannerCostLines(results).join('\n') + '\n';
  return text;
}

/** The self-contained HTML page of a finished run's report. */
export function writeEvalHtml(file: string, report: object, tasks: readonly EvalTask[], predictions: string): void {
  writeOutputFile('--html', file, evalReportHtml(report, tasks, predictions, file));
}
