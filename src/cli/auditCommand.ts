import * as fs from 'fs';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import pc from 'picocolors';
import { GoldFile, loadGold } from '../core/bird/gold';
import { formatProblem, InputProblem, orderProblems } from '../core/bird/problems';
import { loadQuestions } from '../core/bird/questions';
import { auditText } from '../core/audit/auditText';
import { auditGold, goldItems } from '../core/audit/goldAudit';
import { readPredictionSources } from '../core/audit/predictionSources';
import { auditHtml, auditHtmlMeta } from '../core/audit/auditHtml';
import { withLoadedDatabasesOnly } from '../core/eval/serverDatabases';
import { refuseOtherDialect, refuseShiftedGold } from '../app/scoringInputs';
import { nothingDone, sqliteDbRootProblems, unusableDatabaseProblems } from '../core/eval/databaseProblems';
import { isMysqlTarget } from '../core/db/mysql/connectionTarget';
import { isPostgresTarget, redactText } from '../core/db/postgres/connectionTarget';
import {
  DatabaseSource,
  EngineDescription,
  engineLine,
  POSTGRES_LAYOUTS,
  PostgresLayout,
  postgresServer,
  sqliteFolder,
} from '../core/db/source';
import {
  checkOutputFile,
  databaseSource,
  EngineCliOptions,
  EXIT,
  parseScales,
  quoted,
  positiveInteger,
  timeoutMs as parseTimeoutMs,
  toolInfo,
  UsageError,
  writeOutputFile,
} from './common';
import { emitJson } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';
import { AuditCheckpointItem, auditedEntries, resumableEvidence } from './auditResume';
import { AuditOptimizeOptions, checkAuditOptimizeOptions, runAuditOptimizeStep } from './auditOptimizeOption';
import { checkCheckpointPath, completeness, fileOutput, inputFingerprint, interruptedLine, startResumableRun } from './resumableRun';

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
      ).choices(['sqlite', 'postgres', 'mysql']),
    )
    .option(
      '--compare-db-url <url>',
      'PostgreSQL or MySQL server holding the databases for --compare-gold, as `ves-lens load` builds them (a password is never printed)',
    )
    .addOption(
      new Option('--compare-db-layout <layout>', 'how that server holds the BIRD databases (as --db-layout)').choices([
        ...POSTGRES_LAYOUTS,
      ]),
    );
}

/**
 * Where --compare-gold runs: --compare-engine and --compare-db-url, as --engine and --db-url say it for the
 * audited gold; by default where the audited gold runs. PostgreSQL without a server is the embedded engine
 * where the build has one.
 */
function comparedGoldSource(options: AuditCommandOptions, auditSource: DatabaseSource): DatabaseSource {
  if (options.compareEngine === undefined && options.compareDbUrl === undefined && options.compareDbLayout === undefined)
    return auditSource;
  const engine =
    options.compareEngine ?? (options.compareDbUrl === undefined ? 'sqlite' : isMysqlTarget(options.compareDbUrl) ? 'mysql' : 'postgres');
  if (engine === 'mysql') {
    if (options.compareDbLayout !== undefined && options.compareDbLayout !== 'one-database')
      throw new UsageError('--compare-db-layout: a MySQL server holds the BIRD databases in one database (one-database)');
    return databaseSource({ engine: 'mysql', dbRoot: options.dbRoot, dbUrl: options.compareDbUrl });
  }
  if (engine === 'sqlite') {
    if (options.compareDbUrl !== undefined || options.compareDbLayout !== undefined)
      throw new UsageError(
        "--compare-db-url: a PostgreSQL server; with --compare-engine sqlite the compared gold runs on --db-root's files",
      );
    return sqliteFolder(options.dbRoot);
  }
  if (options.compareDbUrl === undefined) {
    try {
      return databaseSource({ engine: 'postgres', dbRoot: options.dbRoot });
    } catch {
      throw new UsageError('--compare-engine postgres: give the server with --compare-db-url postgresql://user@host:port/database');
    }
  }
  if (!isPostgresTarget(options.compareDbUrl))
    throw new UsageError(
      `--compare-db-url: expected postgresql://user@host:port/database, got ${quoted(redactText(options.compareDbUrl))}`,
    );
  try {
    return postgresServer(options.compareDbUrl, (options.compareDbLayout ?? 'one-database') as PostgresLayout);
  } catch (error) {
    throw new UsageError(`--compare-db-url: ${(error as Error).message}`);
  }
}

/** The compared gold, its databases and what runs them (connecting once: an unreachable server stops here). */
async function comparedGold(
  options: AuditCommandOptions,
  questionCount: number,
  auditSource: DatabaseSource,
): Promise<{ gold: GoldFile; source: DatabaseSource; engine: EngineDescription; problems: InputProblem[] } | undefined> {
  if (options.compareGold === undefined) {
    const flags = { compareEngine: '--compare-engine', compareDbUrl: '--compare-db-url', compareDbLayout: '--compare-db-layout' } as const;
    const stray = (Object.keys(flags) as (keyof typeof flags)[]).find((key) => options[key] !== undefined);
    if (stray) throw new UsageError(`${flags[stray]}: only with --compare-gold <file>`);
    return undefined;
  }
  if (!fs.existsSync(options.compareGold)) throw new UsageError(`--compare-gold: file not found: ${options.compareGold}`);
  const source = comparedGoldSource(options, auditSource);
  const gold = loadGold(options.compareGold);
  const problems = [...gold.problems];
  if (gold.entries.length !== questionCount)
    problems.push({
      file: gold.file,
      message: `${gold.entries.length} lines for ${questionCount} questions: paired by position, questions without a line are not compared`,
      headline: true,
    });
  const engine = await source.describe().catch((error: Error) => {
    throw new UsageError(`--compare-db-url: cannot reach the PostgreSQL server: ${error.message}`);
  });
  return { gold, source, engine, problems };
}

/** `ves-lens audit`: which gold SQL deserve another look, and why (terminal, --json, --html). */
export async function runAudit(options: AuditCommandOptions): Promise<number> {
  const limits = { timeoutMs: parseTimeoutMs('--timeout', options.timeout), maxRows: positiveInteger('--max-rows', options.maxRows) };
  const top = positiveInteger('--top', options.top);
  const scales = options.scales === undefined ? undefined : parseScales(options.scales);
  if (options.schema && !fs.existsSync(options.schema)) throw new UsageError(`--schema: file not found: ${options.schema}`);
  let source = databaseSource(options);
  if (scales && source.engine.name !== 'sqlite')
    throw new UsageError('--scales: scaled copies are SQLite files; not with --engine postgres');
  if (source.engine.name === 'sqlite' && (!fs.existsSync(options.dbRoot) || !fs.statSync(options.dbRoot).isDirectory()))
    throw new UsageError(`--db-root: not a folder: ${options.dbRoot}`);
  // Outputs are checked by real path against every input and the database folders (core/io/outputPaths.ts).
  const inputs = [
    { label: '--questions', file: options.questions },
    { label: '--gold', file: options.gold },
    { label: '--compare-gold', file: options.compareGold },
    { label: '--schema', file: options.schema },
    ...(options.predictions ?? []).map((file, n) => ({ label: `--predictions ${n + 1}`, file })),
  ];
  const databaseFolders = [{ label: '--db-root', folder: options.dbRoot }];
  checkAuditOptimizeOptions(options);
  const jsonFile = fileOutput(options.json);
  const htmlFile = fileOutput(options.html);
  if (jsonFile) checkOutputFile('--json', jsonFile, inputs, databaseFolders);
  if (htmlFile) checkOutputFile('--html', htmlFile, [...inputs, { label: '--json', file: jsonFile }], databaseFolders);
  const checkpointFile = checkCheckpointPath(jsonFile ?? htmlFile, options.resume, inputs, databaseFolders);

  const questionFile = loadQuestions(options.questions);
  const goldFile = options.gold ? loadGold(options.gold) : undefined;
  // A shifted gold file, or gold in another dialect than the engine, would audit every gold as failing.
  refuseShiftedGold(questionFile.questions, goldFile, options.gold);
  refuseOtherDialect(options.dialectCheck, source.engine.name, [
    {
      label: goldFile ? `--gold ${options.gold}` : `the SQL of --questions ${options.questions} (the gold)`,
      queries: goldItems(questionFile.questions, goldFile).map((item) => item.goldSql ?? ''),
    },
  ]);
  const problems: InputProblem[] = [...questionFile.problems, ...(goldFile?.problems ?? [])];
  problems.push(
    ...sqliteDbRootProblems(
      source,
      options.dbRoot,
      questionFile.questions.map((question) => question.dbId),
    ),
  );
  const compared = await comparedGold(options, questionFile.questions.length, source);
  problems.push(...(compared?.problems ?? []));
  const err = process.stderr;
  const bar =
    options.progress && err.isTTY ? new SingleBar({ format: ' {bar} {value}/{total} · {last}', hideCursor: true, stream: err }) : undefined;

  // Read every prediction input first (a wrong file stops before any slow work), then score those that need it.
  const sources = readPredictionSources(options.predictions ?? [], questionFile.questions);
  // What runs the audited gold, asked before any work: a server that cannot be reached stops here, naming --db-url.
  const engine = await source.describe().catch((error: Error) => {
    throw new UsageError(`--db-url: cannot reach the PostgreSQL server: ${error.message}`);
  });
  if (source.engine.name !== 'sqlite') err.write(`${engineLine(engine)}; index advice needs a scratch copy there: not tried\n`);

  const items = goldItems(questionFile.questions, goldFile);
  // A one-database server's missing databases are not audited, as missing SQLite files are (not failing gold).
  source = await withLoadedDatabasesOnly(source, engine, items);
  // Each audited gold (and each prediction file's evidence) goes to a checkpoint as it is finished; --resume
  // audits only the others (cli/resumableRun.ts, cli/auditResume.ts).
  const run = startResumableRun<AuditCheckpointItem>(
    'audit',
    checkpointFile,
    {
      ...inputFingerprint(
        inputs,
        options.dbRoot,
        items.map((item) => item.question.dbId),
      ),
      options: {
        measure: options.measure,
        correctness: Boolean(options.correctness),
        scales: scales ?? null,
        ...limits,
        engine: [options.engine, options.dbUrl, options.dbLayout],
        compare: [options.compareEngine, options.compareDbUrl, options.compareDbLayout],
      },
    },
    Boolean(options.resume),
    `finishing the question under way, then writing what is finished${checkpointFile ? ' (--resume continues)' : ''}`,
  );
  const audited = auditedEntries(run);
  if (options.resume) err.write(`resuming: ${audited.size} of ${items.length} gold taken from ${checkpointFile}\n`);
  const evidence = await resumableEvidence(
    sources,
    questionFile.questions,
    goldFile,
    problems,
    {
      dbRoot: options.dbRoot,
      source,
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
    },
    run,
  );
  bar?.stop();

  err.write(
    `auditing ${items.length} gold SQL${options.measure ? ' (rewrites verified and timed, indexes measured on temporary copies)' : ''}${scales ? `, at scales ${scales.join(', ')}` : ''}` +
      `${options.correctness ? '; each checked on its data for correctness' : ''}` +
      `${compared ? `; each compared with ${compared.gold.file} on ${engineLine(compared.engine)}` : ''}\n`,
  );
  bar?.start(items.length, 0, { last: '' });
  const audit = await auditGold(items, {
    dbRoot: options.dbRoot,
    source,
    ...limits,
    measure: options.measure,
    correctness: Boolean(options.correctness),
    scales,
    schemaFile: options.schema,
    predictions: evidence,
    ...(compared ? { compareGold: { gold: compared.gold, source: compared.source } } : {}),
    onProgress: (done, _total, item) => bar?.update(done, { last: item ? `question ${item.question.questionId}` : '' }),
    signal: run.interrupt.signal,
    audited,
    onEntry: (entry) => run.finish(entry.index, { entry }),
  });
  bar?.stop();
  if (options.optimize && !run.interrupted()) await runAuditOptimizeStep(audit, source, options, run.interrupt.signal);
  run.interrupt.dispose();
  const interrupted = run.interrupted();

  problems.push(
    ...unusableDatabaseProblems(
      source,
      audit.entries.map((e) => ({ db_id: e.db_id, skipped: e.not_audited === 'database_unreadable', error: e.error })),
      'audited',
    ),
  );
  for (const p of orderProblems(problems).filter((x) => x.headline)) err.write(`${pc.yellow('problem')}: ${formatProblem(p)}\n`);
  (options.jsonStdout ? err : process.stdout).write(auditText(audit, top) + '\n');
  const tool = await toolInfo();
  if (options.json || options.jsonStdout) {
    const report = {
      tool,
      inputs: {
        questions: options.questions,
        gold: options.gold ?? null,
        db_root: options.dbRoot,
        predictions: options.predictions ?? [],
        scales: scales ?? [],
        measured: options.measure,
        correctness: Boolean(options.correctness),
        engine,
        ...(compared ? { compare_gold: options.compareGold, compare_engine: compared.engine } : {}),
        ...(options.resume ? { resumed: audited.size } : {}),
      },
      problems: orderProblems(problems).map(formatProblem),
      ...audit,
    };
    emitJson(options, completeness(report, !interrupted, items.length), JSON_SHAPES.audit);
  }
  // An HTML page has no place to say it is partial: an interrupted audit writes only the JSON.
  if (options.html && !interrupted) {
    writeOutputFile(
      '--html',
      options.html,
      auditHtml(
        audit,
        auditHtmlMeta(
          {
            questions: options.questions,
            gold: options.gold,
            dbRoot: options.dbRoot,
            ...(compared ? { comparedGold: { file: compared.gold.file, engine: engineLine(compared.engine) } } : {}),
          },
          tool,
          options.html,
        ),
        options.html,
      ),
    );
    err.write(`wrote ${options.html}\n`);
  }
  if (interrupted) {
    run.checkpoint?.close();
    err.write(interruptedLine(audit.entries.length, items.length, jsonFile, run.checkpoint !== undefined && !run.checkpoint.failure));
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
  const auditedNothing = nothingDone(
    audit.entries.map((entry) => ({ skipped: entry.status === 'skipped', error: entry.error })),
    'audited',
  );
  if (auditedNothing) {
    err.write(`${pc.red('error')}: ${auditedNothing}\n`);
    return EXIT.input;
  }
  return 0;
}
