/**
 * The optimizer for one statement: candidate forms from the rules, applied in combination (candidates.ts), and
 * optionally from a chat model (modelCandidates.ts), each run against the original. A form is kept only when
 * (1) it returns the original's rows on the database, at ×1 and at the scale asked (rowsCompare.ts), (2) no
 * counterexample database is found on varied copies of the tables read, or the equivalence subset proves it,
 * and (3) it is measured faster at the scale asked: its whole repeat interval above 1 (speed.ts). What was tried
 * and rejected is reported with the reason and, for different rows, the database that shows them.
 */
import * as os from 'os';
import * as path from 'path';
import { QueryTimeout, Row } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { SchemaInfo } from '../db/schema';
import { dialectOf, readQuery, runnableBody } from '../db/readQuery';
import { ChatModel } from '../llm/chatModel';
import { searchCounterexample, CounterexampleSearch } from '../results/counterexample/search';
import { decideEquivalence } from '../results/equivalence';
import { findClauses } from '../sql/clauses';
import { significantTokens } from '../sql/lexer';
import { sameProgram } from '../timing/sameProgram';
import { CandidateForm, combinedRewrites, formKey } from './candidates';
import { askModelForRewrites, FailedCandidate } from './modelCandidates';
import { compareRows } from './rowsCompare';
import { measuredFaster, measureSpeedup } from './speed';
import { describeMeasurement, fmtMs } from '../text/speedText';
import { KeptRewrite, ProofStatus, RejectionReason, SpeedMeasurement, StatementOptimization, Verification } from './types';

export interface OptimizeOptions {
  /** Time limit of one execution (the original may be stopped at it). */
  timeoutMs: number;
  /** The whole search of one statement: no new candidate is examined past it. */
  statementBudgetMs: number;
  maxRows: number;
  /** Rule applications in a chain. */
  depth: number;
  /** Candidate forms examined at most. */
  maxCandidates: number;
  /** Time for the counterexample search of one form. */
  counterexampleMs: number;
  /** Where counterexample databases are written. */
  witnessDir: string;
  /** Forms measured for the verdict, fastest in the search first, until one is kept. */
  finalists: number;
  /** false: candidates from the chat model only (to judge a model on its own). */
  useRules?: boolean;
  /** Only these rules (VL0nn ids), of the optimizer's and the speed hints'. */
  onlyRules?: readonly string[];
  model?: ChatModel;
  modelRounds: number;
  signal?: AbortSignal;
  /** Called as the search goes: the form examined and what came of it (progress in the CLI and the editor). */
  onStep?: (step: string) => void;
}

export const DEFAULT_OPTIMIZE_OPTIONS: Omit<OptimizeOptions, 'witnessDir'> = {
  timeoutMs: 60_000,
  statementBudgetMs: 120_000,
  maxRows: 500_000,
  depth: 3,
  maxCandidates: 40,
  counterexampleMs: 5_000,
  finalists: 3,
  modelRounds: 2,
};

export function defaultWitnessDir(): string {
  return path.join(os.tmpdir(), `ves-lens-optimize-${process.pid}`);
}

/** The database a statement runs on: ×1 always, and the scaled copy when a scale is asked (handed in, not built here). */
export interface OptimizeTarget {
  db: DatabaseConnection;
  schema: SchemaInfo;
  scaled?: { factor: number; db: DatabaseConnection };
}

/** Most rejected forms listed per statement (all are counted). */
const REJECTIONS_KEPT = 12;

interface Survivor {
  form: CandidateForm;
  body: string;
  /** Its time in the search, at the scale asked (one run). */
  searchMs: number;
  scales: number[];
}

const elapsed = (since: number) => performance.now() - since;

export async function optimizeStatement(
  sql: string,
  target: OptimizeTarget,
  options: OptimizeOptions,
  about: { dbId?: string; questionId?: number | string; source?: string } = {},
): Promise<StatementOptimization> {
  const started = performance.now();
  const dialect = dialectOf(target.db.engine);
  const scale = target.scaled?.factor ?? 1;
  const measureDb = target.scaled?.db ?? target.db;
  const result: StatementOptimization = {
    sql,
    ...about,
    status: 'no-faster-form',
    original: { ms: 0, cutOff: false, scale },
    best: null,
    tried: 0,
    rejected: [],
    rejectedCounts: {},
    notes: [],
    seconds: 0,
  };
  const finish = (status?: StatementOptimization['status']) => {
    if (status) result.status = status;
    result.seconds = Number((elapsed(started) / 1000).toFixed(2));
    return result;
  };
  const runnable = runnableBody(sql, dialect);
  if ('status' in runnable) {
    result.notes.push(runnable.message);
    return finish('refused');
  }
  const originalBody = runnable.body;
  const limits = (ms: number) => ({ deadline: performance.now() + ms, budgetMs: ms, maxRows: options.maxRows, signal: options.signal });
  const ordered = findClauses(significantTokens(originalBody))?.orderBy !== undefined;

  // The original: its rows at ×1, and its rows and time at the scale asked.
  const originalRows = await readQuery(target.db, originalBody, limits(options.timeoutMs));
  if (originalRows.status !== 'ok') {
    result.notes.push(`the original does not run: ${originalRows.message}`);
    return finish(options.signal?.aborted ? 'interrupted' : 'original-fails');
  }
  let originalScaledRows: Row[] | undefined = scale === 1 ? originalRows.rows : undefined;
  let originalMs = 0;
  {
    const t0 = performance.now();
    const run = scale === 1 ? originalRows : await readQuery(measureDb, originalBody, limits(options.timeoutMs));
    // At ×1 the original is timed in a run of its own, which may pass the limit its first run kept (a busy machine).
    const timedAtOne = scale === 1 ? await timeOnce(measureDb, originalBody, options).catch(overLimit) : undefined;
    originalMs = timedAtOne ?? elapsed(t0);
    if (timedAtOne === Infinity) {
      result.original.cutOff = true;
      originalMs = options.timeoutMs;
      result.notes.push(
        `timing the original ran past ${fmtMs(options.timeoutMs)} (its rows were read within it): speed-ups are lower bounds`,
      );
    } else if (run.status === 'ok') originalScaledRows = run.rows;
    else if (run.status === 'timeout') {
      result.original.cutOff = true;
      originalMs = options.timeoutMs;
      result.notes.push(
        `the original did not finish within ${fmtMs(options.timeoutMs)} at ×${scale}: its rows there were not compared, and speed-ups are lower bounds`,
      );
    } else {
      result.notes.push(`the original does not run at ×${scale}: ${run.message}`);
      return finish(options.signal?.aborted ? 'interrupted' : 'original-fails');
    }
  }
  result.original.ms = originalMs;
  options.onStep?.(`original: ${result.original.cutOff ? `over ${fmtMs(originalMs)}` : fmtMs(originalMs)} at ×${scale}`);

  const survivors: Survivor[] = [];
  const failed: FailedCandidate[] = [];
  const reject = (form: CandidateForm, reason: RejectionReason, detail: string, witness?: string) => {
    result.rejectedCounts[reason] = (result.rejectedCounts[reason] ?? 0) + 1;
    result.rejected.push({ sql: form.sql, patterns: form.patterns, reason, detail, ...(witness ? { witness } : {}) });
    failed.push({ sql: form.sql, reason: `${reason}: ${detail}` });
    options.onStep?.(`${form.patterns.join('+')}: ${reason} (${detail})`);
  };
  // The search's budget starts once the original is known: a slow original must not leave no time for its rewrites.
  const searchStarted = performance.now();
  const outOfTime = () => options.signal?.aborted || elapsed(searchStarted) > options.statementBudgetMs;

  /** Runs one form against the original; true when it returns the same rows (worth expanding). */
  const examine = async (form: CandidateForm): Promise<boolean> => {
    result.tried++;
    const body = runnableBody(form.sql, dialect);
    if ('status' in body) {
      reject(form, 'refused', body.message);
      return false;
    }
    const rows = await readQuery(target.db, body.body, limits(options.timeoutMs));
    if (rows.status !== 'ok') {
      reject(form, rows.status === 'timeout' ? 'slower' : 'fails', rows.message);
      return false;
    }
    const same = compareRows(originalRows.rows, rows.rows, ordered);
    if (!same.same) {
      reject(form, 'changes-rows', `${same.detail} on this database (×1)`, target.db.path);
      return false;
    }
    if (await sameProgram(target.db, originalBody, body.body)) {
      reject(form, 'same-work', 'compiles to the same program as the original: the same work, nothing to measure');
      return true;
    }
    // At the scale asked: its time (stopped well before the original's), and its rows where the original's are known.
    // Stopped once clearly slower than the best form so far (or the original): a slow form is worth no more time.
    const fastest = Math.min(originalMs, ...survivors.map((s) => s.searchMs));
    const cap = Math.min(options.timeoutMs, Math.max(3 * fastest, 200));
    const t0 = performance.now();
    const scaled = scale === 1 ? rows : await readQuery(measureDb, body.body, limits(cap));
    let searchMs = scale === 1 ? await timeOnce(measureDb, body.body, { ...options, timeoutMs: cap }).catch(() => Infinity) : elapsed(t0);
    if (scaled.status === 'timeout' || searchMs === Infinity) {
      reject(
        form,
        'slower',
        `stopped after ${fmtMs(cap)} at ×${scale} (3× the fastest form so far; the original ${result.original.cutOff ? 'over ' : ''}${fmtMs(originalMs)})`,
      );
      return true;
    }
    if (scaled.status !== 'ok') {
      reject(form, 'fails', `at ×${scale}: ${scaled.message}`);
      return false;
    }
    const scales = [1];
    if (scale !== 1 && originalScaledRows) {
      const sameScaled = compareRows(originalScaledRows, scaled.rows, ordered);
      if (!sameScaled.same) {
        reject(form, 'changes-rows', `${sameScaled.detail} on the ×${scale} copy`, measureDb.path);
        return false;
      }
      scales.push(scale);
    }
    searchMs = Math.max(searchMs, 0.001);
    survivors.push({ form, body: body.body, searchMs, scales });
    options.onStep?.(`${form.patterns.join('+')}: same rows, ${fmtMs(searchMs)} at ×${scale}`);
    return true;
  };

  // Rules, in combination.
  const start: CandidateForm = { sql: originalBody, patterns: [], notes: [] };
  const seen = new Set([formKey(originalBody)]);
  const rewrites = combinedRewrites(
    start,
    target.schema,
    {
      depth: options.useRules === false ? 0 : options.depth,
      limit: options.maxCandidates,
      only: options.onlyRules ? new Set(options.onlyRules.map((id) => id.toUpperCase())) : undefined,
    },
    seen,
  );
  for (let next = rewrites.next(); !next.done;) {
    if (outOfTime()) {
      result.notes.push(options.signal?.aborted ? 'interrupted' : `the search stopped at its ${fmtMs(options.statementBudgetMs)} budget`);
      break;
    }
    const expand = await examine(next.value);
    next = rewrites.next(expand);
  }

  // A chat model's proposals, given what failed, for a few rounds.
  if (options.model && !outOfTime()) {
    for (let round = 1; round <= options.modelRounds && !outOfTime(); round++) {
      const best = [...survivors].sort((a, b) => a.searchMs - b.searchMs)[0];
      const asked = await askModelForRewrites(options.model, {
        sql: originalBody,
        schema: target.schema,
        plan: await planLines(measureDb, originalBody),
        originalMs,
        scale,
        bestSoFar: best ? { sql: best.form.sql, ms: best.searchMs } : undefined,
        failed: failed.slice(-8),
        dialect,
        signal: options.signal,
      });
      if (asked.error) {
        result.notes.push(`chat model, round ${round}: ${asked.error}`);
        if (asked.fatal) break;
      }
      let fresh = 0;
      for (const proposal of asked.candidates) {
        const key = formKey(proposal.sql);
        if (seen.has(key) || outOfTime()) continue;
        seen.add(key);
        fresh++;
        await examine({ sql: proposal.sql, patterns: ['model'], notes: [proposal.why || 'proposed by the chat model'] });
      }
      if (fresh === 0 && !asked.error) break;
    }
  }

  // The verdict: the fastest forms of the search, each proven and measured, until one is kept.
  const finalists = survivors
    .filter((s) => s.searchMs * 1.1 < originalMs)
    .sort((a, b) => a.searchMs - b.searchMs)
    .slice(0, options.finalists);
  for (const survivor of survivors) {
    if (!finalists.includes(survivor) && survivor.searchMs * 1.1 >= originalMs)
      reject(
        survivor.form,
        'not-faster',
        `same rows, but ${fmtMs(survivor.searchMs)} in the search against the original's ${fmtMs(originalMs)} at ×${scale}`,
      );
  }
  for (const finalist of finalists) {
    if (options.signal?.aborted) break;
    const kept = await verdictFor(finalist, originalBody, target, options, result, reject, scale);
    if (kept) {
      result.best = kept;
      break;
    }
  }
  result.rejected.sort((a, b) => REASON_ORDER.indexOf(a.reason) - REASON_ORDER.indexOf(b.reason));
  result.rejected = result.rejected.slice(0, REJECTIONS_KEPT);
  if (options.signal?.aborted) return finish('interrupted');
  return finish(result.best ? 'optimized' : 'no-faster-form');
}

/** Rejections listed most telling first. */
const REASON_ORDER: RejectionReason[] = ['counterexample', 'changes-rows', 'not-faster', 'slower', 'same-work', 'fails', 'refused'];

/** One timed full execution on a fresh connection (ms). */
/** A timing that ran past its limit, as an infinite time; any other failure is thrown on. */
function overLimit(error: unknown): number {
  if (error instanceof QueryTimeout) return Infinity;
  throw error;
}

async function timeOnce(db: DatabaseConnection, body: string, options: Pick<OptimizeOptions, 'timeoutMs' | 'signal'>): Promise<number> {
  return db.engine.timeExecution(db.path, body, 'full', {
    deadline: performance.now() + options.timeoutMs,
    budgetMs: options.timeoutMs,
    signal: options.signal,
  });
}

/** The plan's steps as lines, for the model's prompt. */
async function planLines(db: DatabaseConnection, body: string): Promise<string[]> {
  try {
    const lines: string[] = [];
    const walk = (nodes: Awaited<ReturnType<DatabaseConnection['explainPlan']>>, depth: number) => {
      for (const node of nodes) {
        lines.push(`${'  '.repeat(depth)}${node.detail}`);
        walk(node.children, depth + 1);
      }
    };
    walk(await db.explainPlan(body), 0);
    return lines.slice(0, 60);
  } catch {
    return [];
  }
}

/** Proof and measurement of one finalist: the kept rewrite, or undefined after recording why not. */
async function verdictFor(
  finalist: Survivor,
  originalBody: string,
  target: OptimizeTarget,
  options: OptimizeOptions,
  result: StatementOptimization,
  reject: (form: CandidateForm, reason: RejectionReason, detail: string, witness?: string) => void,
  scale: number,
): Promise<KeptRewrite | undefined> {
  const { form, body } = finalist;
  const equivalence = decideEquivalence(originalBody, body, target.schema);
  let counterexample: CounterexampleSearch;
  if (target.db.engine.name !== 'sqlite') {
    counterexample = {
      result: 'not_searched',
      variations_tried: 0,
      seconds: 0,
      note: `varied copies are built on SQLite files only (${target.db.engine.name})`,
    };
  } else {
    options.onStep?.(`${form.patterns.join('+')}: looking for a database where it differs`);
    const searched = await searchCounterexample(
      {
        dbPath: target.db.path,
        gold: originalBody,
        prediction: body,
        name: `rewrite-${result.questionId ?? 'statement'}-${result.tried}-${form.patterns.join('-')}`,
      },
      {
        outDir: options.witnessDir,
        budgetMs: options.counterexampleMs,
        maxRows: options.maxRows,
        schema: target.schema,
        signal: options.signal,
      },
    );
    counterexample = searched.search;
    if (searched.counterexample) {
      const c = searched.counterexample;
      reject(
        form,
        'counterexample',
        `returns other rows on a varied copy (${c.how}): ${c.gold_row_count} rows against ${c.prediction_row_count}`,
        c.database,
      );
      return undefined;
    }
  }
  // Measured at the scale asked (the verdict), and at ×1 when another scale was asked (information).
  const measurements: SpeedMeasurement[] = [];
  const scaledTarget = (target.scaled?.db ?? target.db).path;
  try {
    options.onStep?.(`${form.patterns.join('+')}: measuring at ×${scale}`);
    const main = await measureSpeedup(
      scaledTarget,
      scale,
      originalBody,
      body,
      result.original.cutOff ? 'cut-off' : result.original.ms,
      options,
    );
    measurements.push(main);
    if (!measuredFaster(main)) {
      reject(form, main.speedup < 1 ? 'slower' : 'not-faster', `${describeMeasurement(main)}: not faster beyond the repeat interval`);
      return undefined;
    }
    // A narrow margin must hold on a second, independent measurement before it is claimed.
    if (main.high !== null && main.low < 1.5) {
      const again = await measureSpeedup(scaledTarget, scale, originalBody, body, result.original.ms, options);
      if (!measuredFaster(again)) {
        reject(form, 'not-faster', `${describeMeasurement(main)}, but a second measurement gave ${describeMeasurement(again)}`);
        return undefined;
      }
      measurements[0] = {
        ...main,
        low: Math.min(main.low, again.low),
        high: Math.max(main.high, again.high ?? main.high),
        runs: main.runs + again.runs,
        blocks: main.blocks + again.blocks,
      };
    }
    if (scale !== 1) {
      const atOne = await measureSpeedup(
        target.db.path,
        1,
        originalBody,
        body,
        await timeOnce(target.db, originalBody, options),
        options,
      ).catch(() => undefined);
      if (atOne) measurements.push(atOne);
    }
  } catch (error) {
    reject(form, 'fails', `measuring it failed: ${(error as Error).message}`);
    return undefined;
  }
  const byRule = form.patterns.length > 0 && !form.patterns.includes('model');
  const proof: ProofStatus = equivalence.verdict === 'equivalent' ? 'proven' : byRule ? 'by-rule' : 'tested';
  const searchedText =
    counterexample.result === 'none_found'
      ? `no difference on ${counterexample.variations_tried} varied copies of the tables read`
      : counterexample.result === 'budget_spent'
        ? `no difference on the ${counterexample.variations_tried} varied copies tried before the search's budget ran out`
        : `no counterexample search (${counterexample.note ?? counterexample.result})`;
  const verification: Verification = {
    sameRows: {
      scales: finalist.scales,
      set: true,
      bag: true,
      order: findClauses(significantTokens(originalBody))?.orderBy !== undefined ? 'same' : 'unordered',
    },
    counterexample,
    equivalence,
    proof,
    summary: [
      proof === 'proven'
        ? `proven equivalent (${equivalence.reason})`
        : proof === 'by-rule'
          ? `by the proof conditions of ${[...new Set(form.patterns)].join(', ')}`
          : 'tested, not proven',
      `the same rows at ${finalist.scales.map((s) => `×${s}`).join(' and ')}`,
      searchedText,
    ].join('; '),
  };
  const main = measurements[0];
  return {
    sql: form.sql,
    patterns: form.patterns,
    notes: form.notes,
    speedup: main.speedup,
    low: main.low,
    high: main.high,
    scale,
    verification,
    measurements,
  };
}
