import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import { loadGold } from '../core/bird/gold';
import { formatProblem, InputProblem, orderProblems } from '../core/bird/problems';
import { loadQuestions } from '../core/bird/questions';
import { auditText } from '../core/audit/auditText';
import { auditGold, goldItems } from '../core/audit/goldAudit';
import { gatherEvidence, readPredictionSources } from '../core/audit/predictionSources';
import { auditHtml, auditHtmlMeta } from '../core/audit/auditHtml';
import {
  checkOutputFile,
  parseScales,
  positiveInteger,
  timeoutMs as parseTimeoutMs,
  toolInfo,
  UsageError,
  writeOutputFile,
} from './common';

export interface AuditCommandOptions {
  questions: string;
  dbRoot: string;
  gold?: string;
  predictions?: string[];
  scales?: string;
  schema?: string;
  measure: boolean;
  timeout: string;
  maxRows: string;
  top: string;
  json?: string;
  html?: string;
  progress: boolean;
}

/** `ves-lens audit`: which gold SQL deserve another look, and why (terminal, --json, --html). */
export async function runAudit(options: AuditCommandOptions): Promise<number> {
  const limits = { timeoutMs: parseTimeoutMs('--timeout', options.timeout), maxRows: positiveInteger('--max-rows', options.maxRows) };
  const top = positiveInteger('--top', options.top);
  const scales = options.scales === undefined ? undefined : parseScales(options.scales);
  if (options.schema && !fs.existsSync(options.schema)) throw new UsageError(`--schema: file not found: ${options.schema}`);
  if (!fs.existsSync(options.dbRoot) || !fs.statSync(options.dbRoot).isDirectory())
    throw new UsageError(`--db-root: not a folder: ${options.dbRoot}`);
  const inputs = [options.questions, options.gold, ...(options.predictions ?? [])];
  if (options.json) checkOutputFile('--json', options.json, inputs);
  if (options.html) checkOutputFile('--html', options.html, [...inputs, options.json]);

  const questionFile = loadQuestions(options.questions);
  const goldFile = options.gold ? loadGold(options.gold) : undefined;
  const problems: InputProblem[] = [...questionFile.problems, ...(goldFile?.problems ?? [])];
  const err = process.stderr;
  const bar =
    options.progress && err.isTTY ? new SingleBar({ format: ' {bar} {value}/{total} · {last}', hideCursor: true, stream: err }) : undefined;

  // Read every prediction input first (a wrong file stops before any slow work), then score those that need it.
  const sources = readPredictionSources(options.predictions ?? [], questionFile.questions);
  const evidence = await gatherEvidence(sources, questionFile.questions, goldFile, problems, {
    dbRoot: options.dbRoot,
    ...limits,
    questionsFile: options.questions,
    onScoring: (file) => {
      bar?.stop();
      err.write(`scoring ${file} against the gold (EX, then full-execution timing)\n`);
      bar?.start(questionFile.questions.length, 0, { last: file });
    },
    onProgress: (p, file) =>
      bar?.update(p.phase === 'correctness' ? p.done : questionFile.questions.length, {
        last: p.phase === 'correctness' ? file : `timing pass ${p.pass ?? ''}`,
      }),
  });
  bar?.stop();

  const items = goldItems(questionFile.questions, goldFile);
  err.write(
    `auditing ${items.length} gold SQL${options.measure ? ' (rewrites verified and timed, indexes measured on temporary copies)' : ''}${scales ? `, at scales ${scales.join(', ')}` : ''}\n`,
  );
  bar?.start(items.length, 0, { last: '' });
  const audit = await auditGold(items, {
    dbRoot: options.dbRoot,
    ...limits,
    measure: options.measure,
    scales,
    schemaFile: options.schema,
    predictions: evidence,
    onProgress: (done, _total, item) => bar?.update(done, { last: item ? `question ${item.question.questionId}` : '' }),
  });
  bar?.stop();

  for (const p of orderProblems(problems).filter((x) => x.headline)) err.write(`${pc.yellow('problem')}: ${formatProblem(p)}\n`);
  process.stdout.write(auditText(audit, top) + '\n');
  const tool = await toolInfo();
  if (options.json) {
    const report = {
      tool,
      inputs: {
        questions: options.questions,
        gold: options.gold ?? null,
        db_root: options.dbRoot,
        predictions: options.predictions ?? [],
        scales: scales ?? [],
        measured: options.measure,
      },
      problems: orderProblems(problems).map(formatProblem),
      ...audit,
    };
    writeOutputFile('--json', options.json, JSON.stringify(report, null, 2) + '\n');
    err.write(`wrote ${options.json}\n`);
  }
  if (options.html) {
    writeOutputFile(
      '--html',
      options.html,
      auditHtml(audit, auditHtmlMeta({ questions: options.questions, gold: options.gold, dbRoot: options.dbRoot }, tool)),
    );
    err.write(`wrote ${options.html}\n`);
  }
  return 0;
}
