import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import pc from 'picocolors';
import {
  auditReportJson,
  auditRunPage,
  AuditRunSettings,
  auditTerminalText,
  FinishedAuditRun,
  PreparedAuditRun,
  prepareAuditRun,
  runAuditRun,
} from '../app/auditRun';
import { formatProblem } from '../core/text/problemText';
import type { DatabaseSource } from '../core/db/source';
import { comparedGoldSource, engineChoices } from '../app/databaseSource';
import { engineLine } from '../core/text/engineText';
import type { NamedInput } from '../core/io/outputPaths';
import {
  checkOutputFile,
  databaseSource,
  EngineCliOptions,
  engineLoadNotes,
  EXIT,
  parseScales,
  positiveInteger,
  timeoutMs as parseTimeoutMs,
  UsageError,
} from './common';
import { writeOutputFile } from '../app/runOutputs';
import { toolInfo } from '../app/toolInfo';
import { emitJson } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';
import { AuditCheckpointItem, auditedEntries, evidenceCheckpoint } from './auditResume';
import { AuditOptimizeOptions, auditOptimizeProgress, auditOptimizeSettings, checkAuditOptimizeOptions } from './auditOptimizeOption';
import { checkCheckpointPath, fileOutput, interruptedLine, RESUME_NOTES } from './resumableRun';
import { inputFingerprint, ResumableRun, startResumableRun } from '../app/resumableRun';

export interface AuditCommandOptions extends EngineCliOptions, AuditOptimizeOptions {
  questions: string;
  dbRoot: string;
  gold?: string;
  /** --dialect-check: on (the default) or off. */
  dialectCheck?: string;
  predictions?: string[];
  scales?: string;
  schema?: string;
  measure: boolean;
  /** --correctness: check each gold on its data (core/audit/correctness/). */
  correctness?: boolean;
  timeout: string;
  maxRows: string;
  top: string;
  json?: string;
  /** `--json` alone or `--json -`: the audit on standard output, the list on standard error (cli/jsonOption.ts). */
  jsonStdout?: boolean;
  html?: string;
  progress: boolean;
  compareGold?: string;
  compareEngine?: string;
  compareDbUrl?: string;
  compareDbLayout?: string;
  /** Continue the audit whose checkpoint is beside --json (or --html): its audited gold are not audited again. */
  resume?: boolean;
}

/** Adds the cross-dialect gold check's options to `audit` (one place for their names and help). */
export function addCompareGoldOptions(command: Command): Command {
  return command
    .option(
      '--compare-gold <file>',
      "another dialect's gold file (SQL<TAB>db_id a line, in question order, e.g. mini_dev_postgresql_gold.sql): flag each gold whose rows differ from its counterpart's",
    )
    .addOption(
      new Option(
        '--compare-engine <engine>',
        "what runs --compare-gold: sqlite (the --db-root files), postgres or mysql (--compare-db-url's server, else one loaded from --db-root); default: the audit's engine",
      ).choices([...engineChoices().engines]),
    )
    .option(
      '--compare-db-url <url>',
      'PostgreSQL or MySQL server holding the databases for --compare-gold, as `ves-lens load` builds them (a password is never printed)',
    )
    .addOption(
      new Option('--compare-db-layout <layout>', 'how that server holds the BIRD databases (as --db-layout)').choices([
        ...engineChoices().layouts,
      ]),
    );
}

/** --compare-gold and where it runs (undefined without it: its engine options alone are refused). */
function compareSettings(options: AuditCommandOptions, auditSource: DatabaseSource): AuditRunSettings['compare'] {
  if (options.compareGold === undefined) {
    const flags = { compareEngine: '--compare-engine', compareDbUrl: '--compare-db-url', compareDbLayout: '--compare-db-layout' } as const;
    const stray = (Object.keys(flags) as (keyof typeof flags)[]).find((key) => options[key] !== undefined);
    if (stray) throw new UsageError(`${flags[stray]}: only with --compare-gold <file>`);
    return undefined;
  }
  if (!fs.existsSync(options.compareGold)) throw new UsageError(`--compare-gold: file not found: ${options.compareGold}`);
  return {
    goldFile: options.compareGold,
    source: comparedGoldSource(
      { engine: options.compareEngine, dbUrl: options.compareDbUrl, dbLayout: options.compareDbLayout, dbRoot: options.dbRoot },
      auditSource,
      engineLoadNotes(options.dbRoot),
    ),
  };
}

/** The settings the options give, checked before any work (the engine rules are the application layer's). */
function auditSettings(options: AuditCommandOptions): AuditRunSettings {
  if (options.schema && !fs.existsSync(options.schema)) throw new UsageError(`--schema: file not found: ${options.schema}`);
  const source = databaseSource(options);
  return {
    source,
    timeoutMs: parseTimeoutMs('--timeout', options.timeout),
    maxRows: positiveInteger('--max-rows', options.maxRows),
    measure: options.measure,
    correctness: Boolean(options.correctness),
    scales: options.scales === undefined ? undefined : parseScales(options.scales),
    schemaFile: options.schema,
    dialectCheck: options.dialectCheck,
    optimize: auditOptimizeSettings(options, source.engine.name),
  };
}

/** The outputs, checked by real path against every input and the database folders (core/io/outputPaths.ts). */
function auditOutputs(options: AuditCommandOptions) {
  const inputs = [
    { label: '--questions', file: options.questions },
    { label: '--gold', file: options.gold },
    { label: '--compare-gold', file: options.compareGold },
    { label: '--schema', file: options.schema },
    ...(options.predictions ?? []).map((file, n) => ({ label: `--predictions ${n + 1}`, file })),
  ];
  const databaseFolders = [{ label: '--db-root', folder: options.dbRoot }];
  const jsonFile = fileOutput(options.json);
  const htmlFile = fileOutput(options.html);
  if (jsonFile) checkOutputFile('--json', jsonFile, inputs, databaseFolders);
  if (htmlFile) checkOutputFile('--html', htmlFile, [...inputs, { label: '--json', file: jsonFile }], databaseFolders);
  const checkpointFile = checkCheckpointPath(jsonFile ?? htmlFile, options.resume, inputs, databaseFolders);
  return { inputs, jsonFile, checkpointFile };
}

/**
 * Each audited gold (and each prediction file's evidence) goes to a checkpoint as it is finished; --resume audits
 * only the others (cli/resumableRun.ts, cli/auditResume.ts).
 */
function startAuditRun(
  options: AuditCommandOptions,
  prepared: PreparedAuditRun,
  context: { inputs: NamedInput[]; checkpointFile?: string },
) {
  const { settings, items } = prepared;
  return startResumableRun<AuditCheckpointItem>(
    'audit',
    context.checkpointFile,
    {
      ...inputFingerprint(
        context.inputs,
        options.dbRoot,
        items.map((item) => item.question.dbId),
      ),
      options: {
        measure: settings.measure,
        correctness: settings.correctness,
        scales: settings.scales ?? null,
        timeoutMs: settings.timeoutMs,
        maxRows: settings.maxRows,
        engine: [options.engine, options.dbUrl, options.dbLayout],
        compare: [options.compareEngine, options.compareDbUrl, options.compareDbLayout],
      },
    },
    Boolean(options.resume),
    `finishing the question under way, then writing what is finished${context.checkpointFile ? ' (--resume continues)' : ''}`,
    RESUME_NOTES,
  );
}

/** The audit's JSON report (a file or standard output) and its HTML page. */
async function writeAuditReports(options: AuditCommandOptions, prepared: PreparedAuditRun, finished: FinishedAuditRun, resumed: number) {
  const { engine, compared, settings } = prepared;
  const { audit, interrupted } = finished;
  const tool = await toolInfo();
  if (options.json || options.jsonStdout) {
    const inputs = {
      questions: options.questions,
      gold: options.gold ?? null,
      db_root: options.dbRoot,
      predictions: options.predictions ?? [],
      scales: settings.scales ?? [],
      measured: options.measure,
      correctness: Boolean(options.correctness),
      engine,
      ...(compared ? { compare_gold: options.compareGold, compare_engine: compared.engine } : {}),
      ...(options.resume ? { resumed } : {}),
    };
    emitJson(options, auditReportJson(tool, inputs, prepared, finished), JSON_SHAPES.audit);
  }
  // An HTML page has no place to say it is partial: an interrupted audit writes only the JSON.
  if (options.html && !interrupted) {
    writeOutputFile('--html', options.html, auditRunPage(prepared, audit, tool, options.html));
    process.stderr.write(`wrote ${options.html}\n`);
  }
}

/** The exit code, and the line that explains an audit that did not finish or audited nothing. */
function auditExit(
  options: AuditCommandOptions,
  run: ResumableRun<AuditCheckpointItem>,
  finished: FinishedAuditRun,
  total: number,
  jsonFile?: string,
) {
  const err = process.stderr;
  const { audit } = finished;
  if (finished.interrupted) {
    run.checkpoint?.close();
    err.write(interruptedLine(audit.entries.length, total, jsonFile, run.checkpoint !== undefined && !run.checkpoint.failure));
    return run.interrupt.exitCode() ?? EXIT.input;
  }
  run.checkpoint?.remove();
  const serverLost = audit.cross_dialect?.server_lost;
  if (serverLost !== undefined) {
    const { message, not_compared: notCompared } = serverLost;
    err.write(
      `${pc.red('error')}: the compared gold's database server went away during the audit (${message}): ` +
        `${notCompared} question${notCompared === 1 ? ' was' : 's were'} not compared${options.json || options.html ? '; the report was written' : ''}\n`,
    );
    return EXIT.input;
  }
  if (finished.nothingAudited) {
    err.write(`${pc.red('error')}: ${finished.nothingAudited}\n`);
    return EXIT.input;
  }
  return EXIT.done;
}

/** `ves-lens audit`: which gold SQL deserve another look, and why (terminal, --json, --html). */
export async function runAudit(options: AuditCommandOptions): Promise<number> {
  const top = positiveInteger('--top', options.top);
  const settings = auditSettings(options);
  const { inputs, jsonFile, checkpointFile } = auditOutputs(options);
  checkAuditOptimizeOptions(options);
  settings.compare = compareSettings(options, settings.source);
  const prepared = await prepareAuditRun({ kind: 'files', ...options }, settings);
  const { items, questions, compared } = prepared;
  const err = process.stderr;
  if (prepared.settings.source.engine.name !== 'sqlite')
    err.write(`${engineLine(prepared.engine!)}; index advice needs a scratch copy there: not tried\n`);
  const run = startAuditRun(options, prepared, { inputs, checkpointFile });
  const audited = auditedEntries(run);
  if (options.resume) err.write(`resuming: ${audited.size} of ${items.length} gold taken from ${checkpointFile}\n`);
  const bar =
    options.progress && err.isTTY ? new SingleBar({ format: ' {bar} {value}/{total} · {last}', hideCursor: true, stream: err }) : undefined;
  const scales = settings.scales;
  const optimizeProgress = settings.optimize && auditOptimizeProgress(options, settings.optimize);
  const finished = await runAuditRun(prepared, {
    signal: run.interrupt.signal,
    audited,
    onEntry: (entry) => run.finish(entry.index, { entry }),
    ...evidenceCheckpoint(run),
    onScoring: (file) => {
      bar?.stop();
      err.write(`scoring ${file} against the gold (EX, then full-execution timing)\n`);
      bar?.start(questions.length, 0, { last: file });
    },
    onScoringProgress: (p, file) =>
      bar?.update(p.phase === 'correctness' ? p.done : questions.length, {
        last: p.phase === 'correctness' ? file : `timing pass ${p.pass ?? ''}`,
      }),
    onAuditing: () => {
      bar?.stop();
      err.write(
        `auditing ${items.length} gold SQL${options.measure ? ' (rewrites verified and timed, indexes measured on temporary copies)' : ''}${scales ? `, at scales ${scales.join(', ')}` : ''}` +
          `${options.correctness ? '; each checked on its data for correctness' : ''}` +
          `${compared ? `; each compared with ${compared.gold.file} on ${engineLine(compared.engine)}` : ''}\n`,
      );
      bar?.start(items.length, 0, { last: '' });
    },
    onProgress: (done, _total, item) => bar?.update(done, { last: item ? `question ${item.question.questionId}` : '' }),
    ...(optimizeProgress && {
      onOptimizing: (gold: number) => {
        bar?.stop();
        optimizeProgress.onOptimizing(gold);
      },
      optimize: optimizeProgress.optimize,
    }),
  });
  bar?.stop();
  if (finished.optimizeRefused) throw finished.optimizeRefused;
  run.interrupt.dispose();
  for (const p of finished.problems.filter((x) => x.headline)) err.write(`${pc.yellow('problem')}: ${formatProblem(p)}\n`);
  (options.jsonStdout ? err : process.stdout).write(auditTerminalText(finished, top) + '\n');
  await writeAuditReports(options, prepared, finished, audited.size);
  return auditExit(options, run, finished, items.length, jsonFile);
}
