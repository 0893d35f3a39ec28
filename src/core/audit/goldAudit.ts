import { GoldFile } from '../bird/gold';
import { Question } from '../bird/questions';
import { DatabaseConnection } from '../db/engine';
import { ConnectionCache, DatabaseUnavailable } from '../db/connectionCache';
import { DatabaseSource, sqliteFolder } from '../db/source';
import { dialectOf, readQuery, runnableBody } from '../db/readQuery';
import { SchemaInfo } from '../db/schema';
import { analyzeSql } from '../hints/analyze';
import { verifyHint } from '../hints/verify';
import { explainQuery, walkPlan } from '../plan/explain';
import { adviseIndexes } from '../plan/indexAdvice';
import type { ProofStatus } from '../optimize/types';
import { scaledCopy } from '../scale/scaledCopy';
import { DEFAULT_FAST_TIMING, freshConnectionTimer, measurePair } from '../timing/fast';
import { bestPerRule, dedupeRewrites } from './auditDedupe';
import { speedVerdict } from '../timing/verdict';
import {
  auditCounts,
  AuditCounts,
  CROSS_DIALECT_WEIGHT,
  INDEX_GAIN_FACTOR,
  isFlaggedIndexGain,
  MeasuredGain,
  NotAuditedReason,
} from './auditFindings';
import { ComparedGold, ComparedGoldInput, CrossDialectCheck, CrossDialectSummary, isCrossDialectFinding } from './crossDialect';
import { PredictionEvidence } from './predictionEvidence';
import { checkCorrectness } from './correctness/checkCorrectness';
import { CORRECTNESS_LABELS, CORRECTNESS_WEIGHTS, CorrectnessFinding, CorrectnessSummary, correctnessSummary } from './correctness/kinds';

// The optimizer step's findings (auditOptimize.ts finds and words them), kept on the audit's entries and summary.
/** A gold's best verified rewrite, as the audit keeps it. */
export interface AuditOptimized {
  sql: string;
  /** The rules applied, in order. */
  patterns: string[];
  /** t_original / t_rewrite at `scale`, and the interval a repeat run falls into (high null: the original was stopped at the limit). */
  speedup: number;
  low: number;
  high: number | null;
  scale: number;
  verification: { proof: ProofStatus; summary: string };
  /** Milliseconds a run at `scale`, as measured against each other, and what the rewrite saves. */
  original_ms: number;
  rewrite_ms: number;
  saved_ms: number;
  /** The original was stopped at the limit: `original_ms` and `saved_ms` are lower bounds. */
  original_cut_off?: boolean;
}

/** What the optimizer step did over the audit. */
export interface AuditOptimizeSummary {
  scale: number;
  /** Distinct gold statements searched (the same SQL on the same database once), and those with a verified rewrite. */
  searched: number;
  optimized: number;
  /** Σ time of the statements searched before and after their rewrites, at the scale. */
  before_ms: number;
  after_ms: number;
  saved_share: number;
  /** Some originals were stopped at the limit: the totals are lower bounds. */
  lower_bound: boolean;
  /** Gold not searched (its database missing, the run's budget spent, interrupted), with why. */
  skipped: { question_id: number | string; reason: string }[];
  /** Question ids of the gold with a verified rewrite, most time saved first. */
  by_time_saved: (number | string)[];
}

/** One gold SQL to audit: its question and the gold it is scored against. */
export interface GoldItem {
  question: Question;
  goldSql: string | undefined;
}

export type { MeasuredGain };

export interface AuditRewrite {
  rule: string;
  title: string;
  kind: 'speed' | 'correctness';
  sql: string;
  /** `faster` / `slower` / `no-difference` (same rows), `changes-results`, `failed`; `not-verified` without measurement. */
  status: string;
  message: string;
  gain?: MeasuredGain;
  /** Where in the gold SQL the rule found its pattern (character offsets, end exclusive). */
  at?: { start: number; end: number };
}

/** A correctness hint that proposes no rewrite (VL011: a subquery column SQLite reads from the outer query). */
export interface AuditHint {
  rule: string;
  title: string;
  message: string;
  /** Where in the gold SQL (character offsets, end exclusive). */
  at: { start: number; end: number };
}

export interface AuditIndex {
  create_sql: string;
  reason: string;
  /** Row-aware estimate of the gold's plan with the index (the planner uses it). */
  work_with: number | null;
  gain?: MeasuredGain;
}

export interface AuditGrowth {
  /** t(×N) / t(×1) of the gold alone, per factor (null: it timed out or the copy failed). */
  by_scale: Record<string, number | null>;
  /** log(t(×N) / t(×1)) / log N at the largest scale measured: 1 grows linearly with the data, 2 quadratically. */
  exponent: number | null;
  verdict: string;
}

export interface GoldAuditEntry {
  index: number;
  question_id: number | string;
  db_id: string;
  difficulty: string;
  gold_sql: string;
  /** `ok`, `gold_error` (the gold fails on its database) or `skipped` (not audited: see not_audited). */
  status: 'ok' | 'gold_error' | 'skipped';
  /** Why a skipped gold was not audited (its database is missing, ...): unrun, not clean. */
  not_audited?: NotAuditedReason;
  error?: string;
  rows?: number;
  plan: { rule: number; work: number; scans: number; temp_btrees: number; correlated_subqueries: number } | null;
  rewrites: AuditRewrite[];
  /** Correctness hints without a rewrite, found in the gold (no measurement needed). */
  hints?: AuditHint[];
  indexes: AuditIndex[];
  growth?: AuditGrowth;
  /** How many prediction files hold a correct prediction at least `factor`× faster than the gold (the repeat interval above 1). */
  faster_predictions?: {
    files: number;
    of: number;
    factor: number;
    best: number | null;
    sources: { file: string; ratio: number; low: number; high: number }[];
  };
  /** The gold against its counterpart in another gold file (another dialect): the same rows or not (crossDialect.ts). */
  cross_dialect?: CrossDialectCheck;
  /** With --correctness, for a gold that ran: what its data shows is wrong or fragile in it (correctness/checkCorrectness.ts). */
  correctness?: CorrectnessFinding[];
  /** With --optimize: the gold's best verified rewrite (auditOptimize.ts). */
  optimized?: AuditOptimized;
  /** Why it is worth another look, most important first; empty: nothing found. */
  reasons: string[];
  /** Ranking score: a gold that fails first, then a confirmed correctness hazard, then the largest measured speed-ups. */
  score: number;
}

export interface GoldAudit {
  entries: GoldAuditEntry[];
  /** Entries with at least one reason, most worth a look first. */
  ranked: GoldAuditEntry[];
  measured: boolean;
  scales: number[];
  prediction_files: string[];
  /**
   * Gold audited, and per reason those that were not (a missing database is not a clean gold). Always set by
   * auditGold; an audit the editor kept from an older version has none (auditCounts derives it from the entries).
   */
  counts?: AuditCounts;
  /** An index is flagged when its whole measured interval is at least this factor (see INDEX_GAIN_FACTOR). */
  index_gain_factor?: number;
  /** With a compared gold (another dialect's gold file): which file, on which engines, how many questions got each status. */
  cross_dialect?: CrossDialectSummary;
  /** With --correctness: how many gold are order-dependent or fragile, per kind. */
  correctness?: CorrectnessSummary;
  /** With --optimize: the optimizer step's totals and the gold ranked by the time a verified rewrite saves. */
  optimize?: AuditOptimizeSummary;
}

export interface GoldAuditOptions {
  dbRoot: string;
  /** Where the audited gold runs; default: the SQLite files under dbRoot. */
  source?: DatabaseSource;
  timeoutMs: number;
  maxRows: number;
  /** Verify rewrites and time indexes (the slow part); without it: plans, hints and index advice only. */
  measure: boolean;
  scales?: readonly number[];
  schemaFile?: string;
  scaleCacheDir?: string;
  /** Per prediction file: what each question's prediction scored (see predictionEvidence.ts). */
  predictions?: readonly PredictionEvidence[];
  /** A prediction counts as much faster at this ratio (default 2). */
  fasterFactor?: number;
  /** Another gold file (another dialect's) whose result each gold's must equal (crossDialect.ts). */
  compareGold?: ComparedGoldInput;
  /** Check each gold's correctness on its data: row-order dependence, float fragility, ... (correctness/). */
  correctness?: boolean;
  onProgress?: (done: number, total: number, item: GoldItem) => void;
  /** Stops before the next gold when aborted; the entry under way then (it may be cut short) is left out. */
  signal?: AbortSignal;
  /** Entries audited by an earlier run (a resumed run's checkpoint), by question index: taken as they are, not audited again. */
  audited?: ReadonlyMap<number, GoldAuditEntry>;
  /** Each entry this run finishes, as it finishes (a checkpoint keeps it); not those taken from `audited`. */
  onEntry?: (entry: GoldAuditEntry) => void;
}

/** The gold of each question: the --gold file's line, else the question's own SQL; the database from the question, else the gold line. */
export function goldItems(questions: readonly Question[], gold?: GoldFile): GoldItem[] {
  return questions.map((question) => {
    const entry = gold?.entries[question.index];
    const scored = question.dbId ? question : { ...question, dbId: entry?.dbId ?? '' };
    return { question: scored, goldSql: gold ? entry?.sql : question.sql };
  });
}

const FULL_TIMING = { ...DEFAULT_FAST_TIMING, quantities: ['full' as const], settle: { ratioOf: ['full' as const], bucketOf: [] } };

function gainOf(timing: { ratio: number; low: number; high: number }): MeasuredGain {
  return { ratio: timing.ratio, low: timing.low, high: timing.high, verdict: speedVerdict(timing) };
}

const times = (ratio: number) => (ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2));

/** How the gold alone grows on scaled copies of its database: t(×N) / t(×1) with the fast protocol (full execution). */
async function growthOf(dbPath: string, body: string, dbId: string, options: GoldAuditOptions): Promise<AuditGrowth> {
  const byScale: Record<string, number | null> = {};
  let exponent: number | null = null;
  for (const factor of options.scales ?? []) {
    if (factor === 1) {
      byScale['1'] = 1;
      continue;
    }
    try {
      const copy = await scaledCopy(dbPath, factor, { schemaFile: options.schemaFile, dbId, cacheDir: options.scaleCacheDir });
      // "gold" is the scaled run and "pred" the original: the ratio is t(×N) / t(×1).
      const timing = await measurePair(
        freshConnectionTimer(copy, body),
        freshConnectionTimer(dbPath, body),
        { ...FULL_TIMING, minBlocks: 2, maxBlocks: 3, minIterations: 1, timeoutMs: options.timeoutMs },
        options.signal,
      );
      byScale[String(factor)] = timing.full!.ratio;
      exponent = Math.log(Math.max(timing.full!.ratio, 1e-9)) / Math.log(factor);
    } catch {
      byScale[String(factor)] = null;
    }
  }
  const largest = Object.entries(byScale)
    .filter(([f, v]) => f !== '1' && v !== null)
    .pop();
  const verdict =
    exponent === null || !largest
      ? 'not measured at a larger scale'
      : exponent >= 1.5
        ? `grows faster than the data: ${times(largest[1]!)}× the time at ×${largest[0]} (~N^${exponent.toFixed(2)})`
        : exponent <= 0.5
          ? `barely grows with the data: ${times(largest[1]!)}× the time at ×${largest[0]}`
          : `grows about with the data: ${times(largest[1]!)}× the time at ×${largest[0]} (~N^${exponent.toFixed(2)})`;
  return { by_scale: byScale, exponent, verdict };
}

function planFacts(plan: Awaited<ReturnType<typeof explainQuery>>): GoldAuditEntry['plan'] {
  if (plan.error) return null;
  const nodes = [...walkPlan(plan.nodes)];
  return {
    rule: plan.cost.rule,
    work: plan.cost.work,
    scans: nodes.filter((n) => n.kind === 'scan' || n.kind === 'scan-subquery').length,
    temp_btrees: nodes.filter((n) => n.kind === 'temp-btree').length,
    correlated_subqueries: nodes.filter((n) => n.kind === 'subquery' && n.correlated).length,
  };
}

/** Reasons and score from what was found (see GoldAuditEntry.score). */
function judge(entry: GoldAuditEntry): void {
  const reasons: { weight: number; text: string }[] = [];
  if (entry.status === 'gold_error') reasons.push({ weight: 1000, text: `the gold SQL fails: ${entry.error}` });
  // A gold that returns other rows than its counterpart in another dialect: the first correctness finding.
  if (entry.cross_dialect && isCrossDialectFinding(entry.cross_dialect))
    reasons.push({ weight: CROSS_DIALECT_WEIGHT, text: `cross-dialect check: ${entry.cross_dialect.detail}` });
  // Correctness findings rank above every efficiency finding (see CORRECTNESS_WEIGHTS).
  for (const finding of entry.correctness ?? [])
    reasons.push({ weight: CORRECTNESS_WEIGHTS[finding.kind], text: `${CORRECTNESS_LABELS[finding.kind]}: ${finding.detail}` });
  for (const r of entry.rewrites) {
    if (r.kind === 'correctness' && r.status === 'changes-results')
      reasons.push({ weight: 100, text: `${r.rule} ${r.title}: ${r.message}` });
  }
  // A smell read from the SQL and the schema, not confirmed on data: below a confirmed hazard, above any speed-up.
  for (const h of entry.hints ?? []) reasons.push({ weight: 60, text: `${h.rule} ${h.title}: ${h.message}` });
  const fasterRewrites = entry.rewrites.filter((r) => r.kind === 'speed' && r.status === 'faster' && r.gain);
  // One reason per rule: its best measured gain (a rule faster at two places is not two findings in the ranking).
  for (const { best: r, places } of bestPerRule(fasterRewrites))
    reasons.push({
      weight: 10 * Math.log2(r.gain!.ratio),
      text: `${r.rule} rewrite is ${times(r.gain!.ratio)}× as fast, same rows (${r.title}${places > 1 ? `; the best of ${places} places` : ''})`,
    });
  const fp = entry.faster_predictions;
  if (fp && fp.files > 0) {
    reasons.push({
      weight: 10 * Math.log2(fp.best ?? fp.factor) + 2 * fp.files,
      text: `${fp.files} of ${fp.of} prediction files have a correct prediction at least ${fp.factor}× faster (best ${times(fp.best ?? fp.factor)}×)`,
    });
  }
  for (const i of entry.indexes.filter((x) => isFlaggedIndexGain(x.gain))) {
    const { ratio, low, high } = i.gain!;
    const interval = `repeat interval ${times(low)}–${times(high)}×, flagged from ${INDEX_GAIN_FACTOR}×`;
    reasons.push({ weight: 5 * Math.log2(ratio), text: `${i.create_sql} makes it ${times(ratio)}× as fast (${interval})` });
  }
  if (entry.growth?.exponent !== null && entry.growth?.exponent !== undefined && entry.growth.exponent >= 1.5)
    reasons.push({ weight: 10 * (entry.growth.exponent - 1), text: `at scale it ${entry.growth.verdict}` });
  if (entry.status === 'ok' && entry.rows === 0 && !entry.correctness)
    reasons.push({ weight: 5, text: 'returns no rows: every prediction that returns nothing is scored correct' });
  reasons.sort((a, b) => b.weight - a.weight);
  entry.reasons = reasons.map((r) => r.text);
  entry.score = Number(reasons.reduce((sum, r) => sum + r.weight, 0).toFixed(3));
}

async function auditOne(
  item: GoldItem,
  db: DatabaseConnection,
  schema: SchemaInfo,
  options: GoldAuditOptions,
  compared: ComparedGold | undefined,
): Promise<GoldAuditEntry> {
  const { question } = item;
  const gold = item.goldSql ?? '';
  const entry: GoldAuditEntry = {
    index: question.index,
    question_id: question.questionId,
    db_id: question.dbId,
    difficulty: question.difficulty,
    gold_sql: gold,
    status: 'ok',
    plan: null,
    rewrites: [],
    indexes: [],
    reasons: [],
    score: 0,
  };
  const limits = { deadline: performance.now() + options.timeoutMs, budgetMs: options.timeoutMs, maxRows: options.maxRows };
  const run = await readQuery(db, gold, limits);
  if (run.status !== 'ok') {
    entry.status = 'gold_error';
    entry.error = run.message;
  } else entry.rows = run.rows.length;
  if (compared) {
    const comparedLimits = { ...limits, deadline: performance.now() + options.timeoutMs };
    entry.cross_dialect = await compared.check(question, { engine: db.engine.name, sql: gold, run }, comparedLimits);
  }
  if (options.correctness && run.status === 'ok')
    entry.correctness = await checkCorrectness(db, question, gold, run, {
      timeoutMs: options.timeoutMs,
      maxRows: options.maxRows,
      predictions: options.predictions,
      signal: options.signal,
    });
  entry.plan = planFacts(await explainQuery(db, gold, schema));
  const runnable = runnableBody(gold, dialectOf(db.engine));
  if (entry.status === 'ok' && !('status' in runnable)) {
    for (const { statement, hints } of analyzeSql(gold, { schema })) {
      for (const hint of hints) {
        const at = { start: hint.range.start, end: hint.range.end };
        if (!hint.rewrite) {
          if (hint.kind === 'correctness') (entry.hints ??= []).push({ rule: hint.rule, title: hint.title, message: hint.message, at });
          continue;
        }
        const base = { rule: hint.rule, title: hint.title, kind: hint.kind, sql: hint.rewrite.statement, at };
        if (!options.measure) {
          entry.rewrites.push({ ...base, status: 'not-verified', message: hint.message });
          continue;
        }
        const verdict = await verifyHint(db, statement.text, hint, { timeoutMs: options.timeoutMs, maxRows: options.maxRows });
        entry.rewrites.push({
          ...base,
          sql: verdict.rewrite?.statement ?? base.sql,
          status: verdict.status,
          message: verdict.message,
          ...(verdict.speedup ? { gain: gainOf(verdict.speedup) } : {}),
        });
      }
    }
    entry.rewrites = dedupeRewrites(entry.rewrites);
    const advice = await adviseIndexes(db, gold, schema, { measure: options.measure, timeoutMs: options.timeoutMs });
    for (const v of advice.verdicts.filter((x) => x.used)) {
      entry.indexes.push({
        create_sql: v.candidate.createSql,
        reason: v.candidate.reason,
        work_with: v.plan?.cost.work ?? null,
        ...(v.measured ? { gain: gainOf(v.measured) } : {}),
      });
    }
    if (options.scales?.some((f) => f > 1)) entry.growth = await growthOf(db.path, runnable.body, question.dbId, options);
  }
  if (options.predictions?.length) {
    const factor = options.fasterFactor ?? 2;
    const sources = options.predictions.flatMap((evidence) => {
      const hit = evidence.byIndex.get(question.index);
      return hit && hit.correct && hit.ratio !== null && hit.ratio >= factor && (hit.low ?? hit.ratio) > 1
        ? [{ file: evidence.file, ratio: hit.ratio, low: hit.low ?? hit.ratio, high: hit.high ?? hit.ratio }]
        : [];
    });
    entry.faster_predictions = {
      files: sources.length,
      of: options.predictions.length,
      factor,
      best: sources.length ? Math.max(...sources.map((s) => s.ratio)) : null,
      sources,
    };
  }
  judge(entry);
  return entry;
}

const UNAVAILABLE_REASONS: Record<DatabaseUnavailable['reason'], NotAuditedReason> = {
  'no-database-named': 'no_database',
  'not-found': 'database_missing',
  'cannot-open': 'database_unreadable',
};

/** Why a gold is not audited: its database is unavailable (named, found, opened), else it has no gold SQL. */
function notAuditedReason(unavailable: DatabaseUnavailable | undefined): NotAuditedReason {
  return unavailable ? UNAVAILABLE_REASONS[unavailable.reason] : 'no_gold';
}

/**
 * Audits every gold SQL for annotators: does it run, what its plan costs, which rewrite hints are verified faster
 * (same rows, measured), which indexes SQLite would use and what they gain (measured on a temporary copy), how it
 * grows on scaled copies, how many prediction files beat it with a correct prediction at least 2× faster, and
 * (with compareGold) whether its counterpart in another gold file, another dialect's, returns the same rows.
 * Databases are opened read-only; nothing is modified. `ranked` lists the gold worth another look first.
 * Entries of an earlier run (`audited`) join this run's before the ranking, counts and summaries are made, so a
 * resumed audit ranks and counts as one run.
 */
export async function auditGold(items: readonly GoldItem[], options: GoldAuditOptions): Promise<GoldAudit> {
  const entries: GoldAuditEntry[] = [];
  const source = options.source ?? sqliteFolder(options.dbRoot);
  const connections = ConnectionCache.withSchema({ source });
  const compared = options.compareGold && new ComparedGold(options.compareGold);
  const finished = (entry: GoldAuditEntry) => {
    entries.push(entry);
    options.onEntry?.(entry);
  };
  try {
    for (const [i, item] of items.entries()) {
      if (options.signal?.aborted) break;
      options.onProgress?.(i, items.length, item);
      const { question } = item;
      const earlier = options.audited?.get(question.index);
      if (earlier) {
        entries.push(earlier);
        continue;
      }
      const dbId = question.dbId;
      const connection = await connections.forQuestion(dbId);
      if (connection instanceof DatabaseUnavailable || item.goldSql === undefined) {
        const error = connection instanceof DatabaseUnavailable ? connection.message : 'no gold SQL for this question';
        const not_audited = notAuditedReason(connection instanceof DatabaseUnavailable ? connection : undefined);
        finished({
          index: question.index,
          question_id: question.questionId,
          db_id: dbId,
          difficulty: question.difficulty,
          gold_sql: item.goldSql ?? '',
          status: 'skipped',
          not_audited,
          error,
          plan: null,
          rewrites: [],
          indexes: [],
          reasons: [],
          score: 0,
        });
        continue;
      }
      const entry = await auditOne(item, connection.db, connection.schema, options, compared);
      if (options.signal?.aborted) break; // stopped while auditing it: a timing may be cut short
      finished(entry);
    }
    options.onProgress?.(items.length, items.length, items[items.length - 1]);
  } finally {
    await connections.closeAll();
    await compared?.close();
  }
  const ranked = entries.filter((e) => e.reasons.length > 0).sort((a, b) => b.score - a.score || a.index - b.index);
  return {
    entries,
    ranked,
    measured: options.measure,
    scales: [...(options.scales ?? [])],
    prediction_files: (options.predictions ?? []).map((p) => p.file),
    counts: auditCounts(entries),
    index_gain_factor: INDEX_GAIN_FACTOR,
    ...(options.correctness ? { correctness: correctnessSummary(entries, correctnessNotes(source)) } : {}),
    ...(compared
      ? {
          cross_dialect: compared.summary(
            source.engine.name,
            entries.map((e) => e.cross_dialect),
          ),
        }
      : {}),
  };
}

/** What the correctness checks could not do on this engine. */
function correctnessNotes(source: DatabaseSource): string[] {
  return source.engine.name === 'sqlite'
    ? []
    : [`row-order dependence is checked by reversing SQLite's unordered scans: not on ${source.engine.name} (the other checks ran)`];
}

/** Question ids worth another look, for the editor's explorer to mark. */
export function flaggedQuestions(audit: GoldAudit): Map<string, { score: number; reasons: string[] }> {
  return new Map(audit.ranked.map((e) => [String(e.question_id), { score: e.score, reasons: e.reasons }]));
}
