/**
 * The gold audit use case, called by `ves-lens audit` (cli/auditCommand.ts) and the editor's Gold Audit
 * (server/audit/goldAuditRun.ts): `prepareAuditRun` checks the settings against the engine and reads the inputs
 * (questions, gold, the compared gold, every prediction input) before any slow work; `runAuditRun` scores each
 * prediction file against the gold (evidence), audits every gold (core/audit/goldAudit.ts), searches each for a
 * faster equivalent when asked (app/auditOptimize.ts), and adds what the audit learned of its databases. The faces
 * parse their options into AuditRunSettings and render the GoldAudit that comes back.
 */
import * as fs from 'fs';
import { GoldFile, loadGold } from '../core/bird/gold';
import { InputProblem, orderProblems } from '../core/bird/problems';
import { loadQuestions, Question } from '../core/bird/questions';
import { auditGold, GoldAudit, GoldAuditEntry, GoldItem, goldItems } from '../core/audit/goldAudit';
import { auditHtml, auditHtmlMeta } from '../core/audit/auditHtml';
import { AuditMark, auditMarks } from '../core/audit/auditMarks';
import { PredictionEvidence, PredictionHit } from '../core/audit/predictionEvidence';
import { gatherEvidence, PredictionSource, readPredictionSources } from '../core/audit/predictionSources';
import { DatabaseSource, EngineDescription, sqliteFolder } from '../core/db/source';
import { engineLine } from '../core/text/engineText';
import { nothingDone, sqliteDbRootProblems, unusableDatabaseProblems } from '../core/eval/databaseProblems';
import { completeness, ToolInfo } from '../core/eval/reportJson';
import { auditText } from '../core/audit/auditText';
import { formatProblem } from '../core/text/problemText';
import { EvalProgress } from '../core/eval/evaluate';
import { optimizeAuditedGold } from './auditOptimize';
import { checkEngineNeeds } from './engineRules';
import { describeRunEngine } from './evalRun';
import { OptimizeRunHooks, OptimizeRunSettings } from './optimizeRun';
import { RunRefused, serverUnreachable } from './runRefused';
import { refuseOtherDialect, refuseShiftedGold } from './scoringInputs';

/** How an audit runs, as each face parsed it. */
export interface AuditRunSettings {
  /** Where the audited gold runs (a dataset's: its SQLite files when not given). */
  source: DatabaseSource;
  timeoutMs: number;
  maxRows: number;
  /** Verify rewrites and time indexes (the slow part). */
  measure: boolean;
  /** Check each gold on its data for correctness (core/audit/correctness/). */
  correctness: boolean;
  /** Time each gold on copies of its database scaled by these factors (SQLite only). */
  scales?: readonly number[];
  /** BIRD's tables file, for the keys of scaled copies. */
  schemaFile?: string;
  /** --dialect-check: `off` lets gold of another dialect through. */
  dialectCheck?: string;
  /** Another dialect's gold file and where it runs (the face chose the engine from its options). */
  compare?: { goldFile: string; source: DatabaseSource };
  /** Then search each gold that ran for a faster verified equivalent. */
  optimize?: OptimizeRunSettings;
  /** Where that search runs; default: `source` (the editor audits its SQLite files, its search follows vesLens.engine). */
  optimizeSource?: DatabaseSource;
}

/** Where the questions, gold and prediction inputs come from: files (the CLI) or the editor's dataset. */
export type AuditInputs =
  | { kind: 'files'; questions: string; gold?: string; dbRoot: string; predictions?: readonly string[] }
  | {
      kind: 'dataset';
      questions: Question[];
      goldFile?: GoldFile;
      /** The gold file the dataset names (its page says it even when it could not be read). */
      goldPath?: string;
      questionsFile: string;
      dbRoot: string;
      predictions?: readonly string[];
    };

/** The compared gold read, and what runs it (asked once: a server that cannot be reached is refused). */
export interface ComparedGoldRun {
  gold: GoldFile;
  source: DatabaseSource;
  engine: EngineDescription;
}

export interface PreparedAuditRun {
  settings: AuditRunSettings;
  dbRoot: string;
  questionsFile: string;
  questions: Question[];
  goldFile?: GoldFile;
  goldPath?: string;
  /** Every gold, in question order. */
  items: GoldItem[];
  /** What runs the audited gold, asked before any work (files' runs; the editor audits its SQLite files). */
  engine?: EngineDescription;
  compared?: ComparedGoldRun;
  /** Every prediction input, read before any slow work. */
  sources: PredictionSource[];
  /** The inputs' problems; runAuditRun adds the evidence's and the databases'. */
  problems: InputProblem[];
}

/**
 * Checks the settings against the engine (RunRefused naming the option), then reads every input. Without a
 * source the gold run on the SQLite files under the inputs' dbRoot.
 */
export async function prepareAuditRun(
  inputs: AuditInputs,
  request: Omit<AuditRunSettings, 'source'> & { source?: DatabaseSource },
): Promise<PreparedAuditRun> {
  const settings: AuditRunSettings = { ...request, source: request.source ?? sqliteFolder(inputs.dbRoot) };
  const engineName = settings.source.engine.name;
  checkEngineNeeds(engineName, { scales: Boolean(settings.scales) });
  if (inputs.kind === 'dataset') {
    const { questions, goldFile, goldPath, questionsFile, dbRoot } = inputs;
    const sources = readPredictionSources(inputs.predictions ?? [], questions);
    const items = goldItems(questions, goldFile);
    return { settings, dbRoot, questionsFile, questions, goldFile, goldPath, items, sources, problems: [] };
  }
  const { dbRoot } = inputs;
  if (engineName === 'sqlite' && (!fs.existsSync(dbRoot) || !fs.statSync(dbRoot).isDirectory()))
    throw new RunRefused('--db-root', `not a folder: ${dbRoot}`);
  const questionFile = loadQuestions(inputs.questions);
  const questions = questionFile.questions;
  const goldFile = inputs.gold ? loadGold(inputs.gold) : undefined;
  // A shifted gold file, or gold in another dialect than the engine, would audit every gold as failing.
  refuseShiftedGold(questions, goldFile, inputs.gold);
  refuseOtherDialect(settings.dialectCheck, engineName, [
    {
      label: goldFile ? `--gold ${inputs.gold}` : `the SQL of --questions ${inputs.questions} (the gold)`,
      queries: goldItems(questions, goldFile).map((item) => item.goldSql ?? ''),
    },
  ]);
  const problems: InputProblem[] = [...questionFile.problems, ...(goldFile?.problems ?? [])];
  problems.push(
    ...sqliteDbRootProblems(
      settings.source,
      dbRoot,
      questions.map((question) => question.dbId),
    ),
  );
  const compared = settings.compare && (await comparedGold(settings.compare, questions.length, problems));
  const sources = readPredictionSources(inputs.predictions ?? [], questions);
  const items = goldItems(questions, goldFile);
  // What runs the audited gold, asked before any work (naming --db-url); a one-database server's missing databases
  // are not audited from now on, as missing SQLite files are (not failing gold).
  const engine = await describeRunEngine(settings, items);
  const { questions: questionsFile, gold: goldPath } = inputs;
  return { settings, dbRoot, questionsFile, questions, goldFile, goldPath, items, engine, compared, sources, problems };
}

/** The compared gold (paired by position: a count that differs is a headline problem) and what runs it. */
async function comparedGold(
  compare: NonNullable<AuditRunSettings['compare']>,
  questionCount: number,
  problems: InputProblem[],
): Promise<ComparedGoldRun> {
  if (!fs.existsSync(compare.goldFile)) throw new RunRefused('--compare-gold', `file not found: ${compare.goldFile}`);
  const gold = loadGold(compare.goldFile);
  problems.push(...gold.problems);
  if (gold.entries.length !== questionCount)
    problems.push({
      file: gold.file,
      message: `${gold.entries.length} lines for ${questionCount} questions: paired by position, questions without a line are not compared`,
      headline: true,
    });
  const engine = await compare.source.describe().catch((error: Error) => {
    throw serverUnreachable(compare.source, '--compare-db-url', error);
  });
  return { gold, source: compare.source, engine };
}

/** A prediction file's evidence as a checkpoint keeps it (its hits by question index, the problems its scoring found). */
export interface KeptEvidence {
  file: string;
  hits: [number, PredictionHit][];
  problems: InputProblem[];
}

export interface AuditRunHooks {
  signal?: AbortSignal;
  /** Gold a resumed run audited already (its checkpoint's), by question index: taken as they are. */
  audited?: ReadonlyMap<number, GoldAuditEntry>;
  /** Each gold this run audits, as it is finished. */
  onEntry?: (entry: GoldAuditEntry) => void;
  /** The evidence of the n-th prediction input a resumed run scored already; undefined: score it. */
  keptEvidence?: (n: number) => KeptEvidence | undefined;
  /** The n-th prediction file is scored (a checkpoint keeps it; an interrupted file is not passed on). */
  onEvidence?: (n: number, evidence: KeptEvidence) => void;
  /** A prediction file (not a report) is about to be scored against the gold. */
  onScoring?: (file: string) => void;
  onScoringProgress?: (progress: EvalProgress, file: string) => void;
  /** The evidence is gathered: the gold are audited now. */
  onAuditing?: () => void;
  onProgress?: (done: number, total: number, item: GoldItem) => void;
  /** The optimizer step starts (with settings.optimize): `gold` ran and are searched. */
  onOptimizing?: (gold: number) => void;
  /** The optimizer step's progress. */
  optimize?: OptimizeRunHooks;
}

export interface FinishedAuditRun {
  audit: GoldAudit;
  /** The gold worth another look, as marks on their questions (the editor's lenses and diagnostics). */
  marks: AuditMark[];
  /**
   * The inputs' problems, the evidence's and what the audit learned of its databases, headline ones first (the
   * optimizer step's refusal not).
   */
  problems: InputProblem[];
  interrupted: boolean;
  /** The optimizer step was refused by the engine (the audit stands; the CLI stops with it, the editor says it). */
  optimizeRefused?: RunRefused;
  /** Every gold was skipped (no database): what to say, the run having audited nothing. */
  nothingAudited?: string;
}

/** The whole audit after its preparation: evidence, each gold, the optimizer step, the databases' problems. */
export async function runAuditRun(run: PreparedAuditRun, hooks: AuditRunHooks = {}): Promise<FinishedAuditRun> {
  const { settings, compared } = run;
  const problems = [...run.problems];
  const evidence = await auditEvidence(run, problems, hooks);
  hooks.onAuditing?.();
  const audit = await auditGold(run.items, {
    dbRoot: run.dbRoot,
    source: settings.source,
    timeoutMs: settings.timeoutMs,
    maxRows: settings.maxRows,
    measure: settings.measure,
    correctness: settings.correctness,
    scales: settings.scales,
    schemaFile: settings.schemaFile,
    predictions: evidence,
    ...(compared ? { compareGold: { gold: compared.gold, source: compared.source } } : {}),
    onProgress: hooks.onProgress,
    signal: hooks.signal,
    audited: hooks.audited,
    onEntry: hooks.onEntry,
  });
  let optimizeRefused: RunRefused | undefined;
  if (settings.optimize && !hooks.signal?.aborted) {
    hooks.onOptimizing?.(audit.entries.filter((e) => e.status === 'ok').length);
    await optimizeAuditedGold(audit, settings.optimizeSource ?? settings.source, settings.optimize, {
      signal: hooks.signal,
      ...hooks.optimize,
    }).catch((error: Error) => {
      // Settings the engine cannot honour (a scale on PostgreSQL): the audit stands, the face says the step did not run.
      if (!(error instanceof RunRefused)) throw error;
      optimizeRefused = error;
    });
  }
  problems.push(
    ...unusableDatabaseProblems(
      settings.source,
      audit.entries.map((e) => ({ db_id: e.db_id, skipped: e.not_audited === 'database_unreadable', error: e.error })),
      'audited',
    ),
  );
  return {
    audit,
    marks: auditMarks(audit),
    problems: orderProblems(problems),
    interrupted: Boolean(hooks.signal?.aborted),
    optimizeRefused,
    nothingAudited: nothingDone(
      audit.entries.map((entry) => ({ skipped: entry.status === 'skipped', error: entry.error })),
      'audited',
    ),
  };
}

/** The audit's page (both faces draw the same): its inputs named relative to `page`, the tool that made it. */
export function auditRunPage(run: PreparedAuditRun, audit: GoldAudit, tool: { sqlite: string; version: string }, page?: string): string {
  const { compared } = run;
  const inputs = {
    questions: run.questionsFile,
    gold: run.goldPath,
    dbRoot: run.dbRoot,
    ...(compared ? { comparedGold: { file: compared.gold.file, engine: engineLine(compared.engine) } } : {}),
  };
  return auditHtml(audit, auditHtmlMeta(inputs, tool, page), page);
}

/**
 * What each prediction input says about the gold, one input at a time: a file a resumed run scored is taken from
 * its checkpoint (with the problems its scoring found: the gold audited after a resume see the same evidence as
 * those before it), the others are scored and passed on as each is complete. An interruption mid-file keeps
 * nothing of that file and stops the gathering. Eval reports are read again (cheap, the same evidence).
 */
async function auditEvidence(run: PreparedAuditRun, problems: InputProblem[], hooks: AuditRunHooks): Promise<PredictionEvidence[]> {
  const { settings } = run;
  const evidence: PredictionEvidence[] = [];
  for (const [n, source] of run.sources.entries()) {
    const kept = hooks.keptEvidence?.(n);
    if (kept && kept.file === source.file && 'predictions' in source) {
      problems.push(...kept.problems);
      evidence.push({ file: kept.file, byIndex: new Map(kept.hits) });
      continue;
    }
    const before = problems.length;
    const found = await gatherEvidence([source], run.questions, run.goldFile, problems, {
      dbRoot: run.dbRoot,
      source: settings.source,
      timeoutMs: settings.timeoutMs,
      maxRows: settings.maxRows,
      questionsFile: run.questionsFile,
      onScoring: hooks.onScoring,
      onProgress: hooks.onScoringProgress,
      signal: hooks.signal,
    });
    if (hooks.signal?.aborted) break;
    evidence.push(...found);
    if ('predictions' in source && found.length === 1)
      hooks.onEvidence?.(n, { file: source.file, hits: [...found[0].byIndex], problems: problems.slice(before) });
  }
  return evidence;
}

/**
 * The audit's JSON report (`audit --json`): the tool, the face's inputs block, the problems worded, the audit, and
 * whether it is complete (an interrupted audit says how many gold it expected).
 */
export function auditReportJson(tool: ToolInfo, inputs: object, run: PreparedAuditRun, finished: FinishedAuditRun) {
  const report = { tool, inputs, problems: finished.problems.map(formatProblem), ...finished.audit };
  return completeness(report, !finished.interrupted, run.items.length);
}

/** The audit for a terminal: the ranked gold worth another look (the first `top`), their reasons and the totals. */
export function auditTerminalText(finished: FinishedAuditRun, top: number): string {
  return auditText(finished.audit, top);
}
