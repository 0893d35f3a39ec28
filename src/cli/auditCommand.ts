import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import pc from 'picocolors';
import { loadGold } from '../core/bird/gold';
import { parseJsonFile, readTextFile } from '../core/bird/jsonFile';
import { loadPredictions, PredictionFile } from '../core/bird/predictions';
import { formatProblem, InputProblem, orderProblems } from '../core/bird/problems';
import { loadQuestions } from '../core/bird/questions';
import { auditText } from '../core/audit/auditText';
import { auditGold, goldItems } from '../core/audit/goldAudit';
import { evidenceFromPredictions, evidenceFromReport, PredictionEvidence } from '../core/audit/predictionEvidence';
import { LoadedReport, loadEvalReport } from '../core/report/compareInput';
import { auditHtml } from '../core/report/htmlAudit';
import { checkOutputFile, parseScales, positiveInteger, timeoutMs as parseTimeoutMs, toolInfo, UsageError, writeOutputFile } from './common';

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

/** An `eval --json` report rather than a prediction file: a JSON object with a `questions` list of results. */
function isEvalReport(file: string): boolean {
  const text = readTextFile(file, 'prediction file');
  const start = text.trimStart()[0];
  if (start !== '{') return false;
  const value = parseJsonFile(file, text) as Record<string, unknown>;
  return Array.isArray(value.questions) && value.questions.every((q) => q && typeof q === 'object' && 'ex' in (q as object));
}

/** `ves-lens audit`: which gold SQL deserve another look, and why (terminal, --json, --html). */
export async function runAudit(options: AuditCommandOptions): Promise<number> {
  const limits = { timeoutMs: parseTimeoutMs('--timeout', options.timeout), maxRows: positiveInteger('--max-rows', options.maxRows) };
  const top = positiveInteger('--top', options.top);
  const scales = options.scales === undefined ? undefined : parseScales(options.scales);
  if (options.schema && !fs.existsSync(options.schema)) throw new UsageError(`--schema: file not found: ${options.schema}`);
  if (!fs.existsSync(options.dbRoot) || !fs.statSync(options.dbRoot).isDirectory()) throw new UsageError(`--db-root: not a folder: ${options.dbRoot}`);
  const inputs = [options.questions, options.gold, ...(options.predictions ?? [])];
  if (options.json) checkOutputFile('--json', options.json, inputs);
  if (options.html) checkOutputFile('--html', options.html, [...inputs, options.json]);

  const questionFile = loadQuestions(options.questions);
  const goldFile = options.gold ? loadGold(options.gold) : undefined;
  const problems: InputProblem[] = [...questionFile.problems, ...(goldFile?.problems ?? [])];
  const dbIds = new Set(questionFile.questions.map((q) => q.dbId).filter(Boolean));
  const err = process.stderr;
  const bar = options.progress && err.isTTY ? new SingleBar({ format: ' {bar} {value}/{total} · {last}', hideCursor: true, stream: err }) : undefined;

  // Read every prediction input first (a wrong file stops before any slow work), then score those that need it.
  type Source = { file: string; report: LoadedReport } | { file: string; predictions: PredictionFile };
  const sources = (options.predictions ?? []).map((file): Source => (isEvalReport(file) ? { file, report: loadEvalReport(file, 'eval report') } : { file, predictions: loadPredictions(file, { dbIds }) }));
  const evidence: PredictionEvidence[] = [];
  for (const source of sources) {
    if ('report' in source) {
      const { evidence: found, matched } = evidenceFromReport(source.report, questionFile.questions);
      if (matched === 0) throw new UsageError(`--predictions: ${source.file} is an eval report of other questions (none of its questions is in ${options.questions})`);
      if (matched < questionFile.questions.length) problems.push({ file: source.file, message: `covers ${matched} of the ${questionFile.questions.length} questions`, headline: true });
      evidence.push(found);
      continue;
    }
    err.write(`scoring ${source.file} against the gold (EX, then full-execution timing)\n`);
    bar?.start(questionFile.questions.length, 0, { last: source.file });
    evidence.push(
      await evidenceFromPredictions(source.predictions, questionFile.questions, goldFile, problems, {
        dbRoot: options.dbRoot,
        ...limits,
        goldFrom: goldFile ? 'gold-file' : 'questions',
        onProgress: (p) => bar?.update(p.phase === 'correctness' ? p.done : questionFile.questions.length, { last: p.phase === 'correctness' ? source.file : `timing pass ${p.pass ?? ''}` }),
      }),
    );
    bar?.stop();
  }

  const items = goldItems(questionFile.questions, goldFile);
  err.write(`auditing ${items.length} gold SQL${options.measure ? ' (rewrites verified and timed, indexes measured on temporary copies)' : ''}${scales ? `, at scales ${scales.join(', ')}` : ''}\n`);
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
    const report = { tool, inputs: { questions: options.questions, gold: options.gold ?? null, db_root: options.dbRoot, predictions: options.predictions ?? [], scales: scales ?? [], measured: options.measure }, problems: orderProblems(problems).map(formatProblem), ...audit };
    writeOutputFile('--json', options.json, JSON.stringify(report, null, 2) + '\n');
    err.write(`wrote ${options.json}\n`);
  }
  if (options.html) {
    const meta = [`questions ${options.questions}${options.gold ? ` · gold ${options.gold}` : ''} · databases ${options.dbRoot}`, `SQLite ${tool.sqlite} · VES Lens ${tool.version}`];
    writeOutputFile('--html', options.html, auditHtml(audit, meta));
    err.write(`wrote ${options.html}\n`);
  }
  return 0;
}
