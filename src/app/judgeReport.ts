/**
 * A judge run as the terminal shows it (its header, the table by group, details, problems, the model's usage) and
 * as `ves-lens judge --json` writes it (core's completeness beside `tool`). The face words what names its options.
 */
import pc from 'picocolors';
import { describeGoldSource } from '../core/bird/tasks';
import { completeness, type ToolInfo } from '../core/eval/reportJson';
import { judgeDetails, judgeTable, usageLine } from '../core/judge/report';
import { headlineProblems, problemList } from '../core/report/terminal';
import { engineLine } from '../core/text/engineText';
import { formatProblem, orderProblems } from '../core/text/problemText';
import type { FinishedJudgeRun, PreparedJudgeRun } from './judgeRun';
import { TOOL_NAME, TOOL_VERSION } from './toolInfo';

/** Before any question: what runs the SQL, which model judges, the inputs, the reply cache and the inputs' headline problems. */
export function judgeHeader(run: PreparedJudgeRun, files: { questions: string; predictions: string }): string {
  const { predictionFile, goldFile, goldFrom, tasks, engine, settings } = run;
  const atTop = headlineProblems(run.problems);
  return (
    `${pc.bold(TOOL_NAME)} ${TOOL_VERSION} · ${engineLine(engine)} · judge ${settings.method} with ${settings.model.model} at ${run.modelUrl}\n` +
    `${tasks.length} questions from ${files.questions}; predictions from ${files.predictions} (${predictionFile.format}, paired by ${predictionFile.pairing}); gold from ${describeGoldSource(goldFrom, goldFile, predictionFile)}\n` +
    `replies cached in ${settings.cacheDir ?? '(no cache)'}\n` +
    (atTop ? atTop + '\n' : '')
  );
}

/** The finished run's table, details, skipped questions (`missingWhere`: where their databases are not), problems and usage. */
export function judgeTerminal(run: PreparedJudgeRun, finished: FinishedJudgeRun, missingWhere: string): string {
  const { questions, summary, problems, skipped } = finished;
  const details = judgeDetails(questions, summary);
  const listed = problemList(problems);
  const skippedLine =
    skipped && `${pc.yellow('skipped')} ${skipped} question${skipped === 1 ? '' : 's'} whose database is not ${missingWhere}`;
  // The table and the usage line always; the rest when there is something to say.
  const optional = (text: string | 0) => (text ? text + '\n' : '');
  return (
    judgeTable(summary) +
    '\n' +
    optional(details) +
    optional(skippedLine) +
    optional(listed) +
    usageLine(run.settings.model.model, summary) +
    '\n'
  );
}

/** The JSON report: the face's inputs and settings, the summary by group, problems and every question. */
export function finishedJudgeReport(tool: ToolInfo, inputs: Record<string, unknown>, finished: FinishedJudgeRun) {
  const { summary, problems, questions, interrupted, notRun, skipped } = finished;
  const groups = Object.fromEntries(summary.groups.map(({ group, ...rest }) => [group, rest]));
  return completeness(
    {
      tool,
      inputs,
      summary: {
        ...groups,
        skipped,
        branches: summary.branches,
        calls: summary.calls,
        cached_calls: summary.cached_calls,
        usage: summary.usage,
      },
      problems: orderProblems(problems).map(formatProblem),
      headline_problems: problems.filter((p) => p.headline).map(formatProblem),
      questions,
    },
    // Complete only when every question ran on a working engine (none left by a lost server).
    !interrupted && notRun === 0,
    finished.total,
  );
}
