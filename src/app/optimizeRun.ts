/**
 * The optimize use case, called by `ves-lens optimize` (cli/optimizeCommand.ts), the editor's "Find a faster
 * equivalent" (server/optimize/) and the gold audit: `prepareOptimizeRun` checks the settings against the
 * engine before any work; `runOptimize` opens each statement's database (and its scaled copy, built once and
 * cached: handed to the core optimizer, never built inside it), searches each statement in turn within the run's
 * budget, and returns typed results with their totals. Faces render them.
 */
import * as path from 'path';
import { loadGold } from '../core/bird/gold';
import { loadPredictions } from '../core/bird/predictions';
import { loadQuestions } from '../core/bird/questions';
import { ConnectionCache, DatabaseUnavailable, OpenDatabase } from '../core/db/connectionCache';
import type { ChatModel } from '../core/llm/chatModel';
import { OpenAiChatModel } from '../core/llm/openAiChat';
import { DatabaseSource } from '../core/db/source';
import { formKey } from '../core/optimize/candidates';
import { DEFAULT_OPTIMIZE_OPTIONS, defaultWitnessDir, optimizeStatement, OptimizeOptions } from '../core/optimize/optimizeStatement';
import { OptimizeTotals, StatementOptimization } from '../core/optimize/types';
import { scaledCopy } from '../core/scale/scaledCopy';
import { checkEngineNeeds } from './engineRules';

/** One statement to optimize, and where it came from. */
export interface OptimizeStatementInput {
  sql: string;
  dbId: string;
  questionId?: number | string;
  /** `gold`, or the prediction file's name. */
  source?: string;
}

export interface OptimizeRunSettings {
  engine: string;
  /** Measure (and decide) on a copy with this many times the rows; 1: the database itself. */
  scale: number;
  /** BIRD's tables file: the keys of the scaled copies. */
  schemaFile?: string;
  /** Where scaled copies are cached (default: scale/'s). */
  scaleCacheDir?: string;
  optimize: OptimizeOptions;
  /** The whole run: no statement starts past it. */
  runBudgetMs?: number;
}

/** The optimizer's options: what the face chose, the defaults for the rest (a witness folder under the system's temporary one). */
export function optimizeOptions(chosen: Partial<OptimizeOptions>): OptimizeOptions {
  return { ...DEFAULT_OPTIMIZE_OPTIONS, ...chosen, witnessDir: chosen.witnessDir ?? defaultWitnessDir() };
}

/** Checks the settings against the engine (throws RunRefused naming the option). */
export function prepareOptimizeRun(settings: OptimizeRunSettings): void {
  checkEngineNeeds(settings.engine, { scales: settings.scale !== 1 });
}

/** A statement's identity in a run: its database and its text up to spacing and case (what a resumed run matches). */
export function statementKey(input: Pick<OptimizeStatementInput, 'dbId' | 'sql'>): string {
  return `${input.dbId}\u0000${formKey(input.sql)}`;
}

export interface OptimizeRunHooks {
  /** Results of an interrupted run taken over, by statementKey: those statements are not searched again. */
  resumed?: ReadonlyMap<string, StatementOptimization>;
  /** Before each statement, with its position. */
  onStatement?: (index: number, total: number, input: OptimizeStatementInput) => void;
  /** After each statement, with its result. */
  onResult?: (result: StatementOptimization) => void;
  signal?: AbortSignal;
}

export interface OptimizeRunResult {
  statements: StatementOptimization[];
  totals: OptimizeTotals;
  /** Statements not searched: their database is missing or unreadable, or the run's budget ran out first. */
  skipped: { input: OptimizeStatementInput; reason: string }[];
  scaledCopies: Record<string, string>;
}

/** Distinct statements (the same SQL on the same database once), in first-seen order. */
export function distinctStatements(inputs: readonly OptimizeStatementInput[]): OptimizeStatementInput[] {
  const seen = new Set<string>();
  return inputs.filter((input) => {
    const key = statementKey(input);
    if (!input.sql.trim() || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function runOptimize(
  inputs: readonly OptimizeStatementInput[],
  source: DatabaseSource,
  settings: OptimizeRunSettings,
  hooks: OptimizeRunHooks = {},
): Promise<OptimizeRunResult> {
  prepareOptimizeRun(settings);
  const started = performance.now();
  const databases = ConnectionCache.withSchema({ source });
  const scaled = new ConnectionCache(async (connection) => connection);
  const scaledPaths = new Map<string, Promise<string>>();
  const result: OptimizeRunResult = { statements: [], totals: emptyTotals(), skipped: [], scaledCopies: {} };
  try {
    for (const [index, input] of inputs.entries()) {
      if (hooks.signal?.aborted) {
        result.skipped.push({ input, reason: 'interrupted' });
        continue;
      }
      if (settings.runBudgetMs !== undefined && performance.now() - started > settings.runBudgetMs) {
        result.skipped.push({ input, reason: `the run's budget of ${Math.round(settings.runBudgetMs / 1000)} s was spent` });
        continue;
      }
      const taken = hooks.resumed?.get(statementKey(input));
      if (taken && taken.status !== 'interrupted') {
        result.statements.push(taken);
        continue;
      }
      const opened = await databases.forQuestion(input.dbId);
      if (opened instanceof DatabaseUnavailable) {
        result.skipped.push({ input, reason: opened.message });
        continue;
      }
      hooks.onStatement?.(index, inputs.length, input);
      let scaledDb: OpenDatabase['db'] | undefined;
      if (settings.scale !== 1) {
        try {
          const copy = await scaledCopyOf(scaledPaths, opened.path, input.dbId, settings);
          result.scaledCopies[input.dbId] = copy;
          scaledDb = (await scaled.open(copy)).db;
        } catch (error) {
          result.skipped.push({ input, reason: `no ×${settings.scale} copy: ${(error as Error).message}` });
          continue;
        }
      }
      const statement = await optimizeStatement(
        input.sql,
        { db: opened.db, schema: opened.schema, ...(scaledDb ? { scaled: { factor: settings.scale, db: scaledDb } } : {}) },
        { ...settings.optimize, signal: hooks.signal },
        { dbId: input.dbId, questionId: input.questionId, source: input.source },
      );
      result.statements.push(statement);
      hooks.onResult?.(statement);
    }
  } finally {
    await databases.closeAll();
    await scaled.closeAll();
  }
  result.totals = optimizeTotals(result.statements);
  return result;
}

function scaledCopyOf(cache: Map<string, Promise<string>>, dbPath: string, dbId: string, settings: OptimizeRunSettings): Promise<string> {
  let copy = cache.get(dbPath);
  if (!copy) {
    copy = scaledCopy(dbPath, settings.scale, { schemaFile: settings.schemaFile, dbId, cacheDir: settings.scaleCacheDir });
    cache.set(dbPath, copy);
  }
  return copy;
}

function emptyTotals(): OptimizeTotals {
  return { statements: 0, optimized: 0, beforeMs: 0, afterMs: 0, savedShare: 0, lowerBound: false };
}

/** Time before and after over the statements searched: the best rewrite's time where one was kept, else the original's. */
export function optimizeTotals(statements: readonly StatementOptimization[]): OptimizeTotals {
  const totals = emptyTotals();
  for (const s of statements) {
    if (s.status === 'refused' || s.status === 'original-fails') continue;
    totals.statements++;
    const measured = s.best?.measurements.find((m) => m.scale === s.best!.scale);
    const before = measured ? measured.originalMs : s.original.ms;
    totals.beforeMs += before;
    totals.afterMs += measured ? measured.rewriteMs : before;
    if (s.best) totals.optimized++;
    if (s.original.cutOff) totals.lowerBound = true;
  }
  totals.savedShare = totals.beforeMs > 0 ? 1 - totals.afterMs / totals.beforeMs : 0;
  return totals;
}

/**
 * Every distinct statement of a BIRD file to optimize: the gold file's (`gold`) or the prediction file's
 * (`predictions`), each with its question and where it came from.
 */
export function birdFileStatements(questionsFile: string, from: { gold: string } | { predictions: string }): OptimizeStatementInput[] {
  const questions = loadQuestions(questionsFile).questions;
  const inputs: OptimizeStatementInput[] = [];
  if ('gold' in from) {
    const gold = loadGold(from.gold);
    questions.forEach((q, i) => {
      const entry = gold.entries[i];
      if (entry) inputs.push({ sql: entry.sql, dbId: entry.dbId || q.dbId, questionId: q.questionId, source: 'gold' });
    });
  } else {
    const predictions = loadPredictions(from.predictions, { dbIds: new Set(questions.map((q) => q.dbId)) });
    questions.forEach((q, i) => {
      const entry = predictions.predictions[i];
      if (entry?.sql) inputs.push({ sql: entry.sql, dbId: q.dbId, questionId: q.questionId, source: path.basename(from.predictions) });
    });
  }
  return distinctStatements(inputs);
}

/** The chat model that proposes candidates beside the rules: an OpenAI-compatible endpoint, 120 s a request, 2 retries. */
export function optimizeChatModel(endpoint: string, model: string, apiKey: string | undefined): ChatModel {
  return new OpenAiChatModel({ endpoint, model, apiKey, timeoutMs: 120_000, maxRetries: 2 });
}
