/** The options of a scoring run (evaluate.ts), in a file of their own: the modules evaluate.ts calls read them too. */
import type { TechniqueStep } from './techniqueStep';
import { DatabaseSource } from '../db/source';
import { FastTimingOptions } from '../timing/fast';
import { Metric, QuestionResult, TimingMode } from './types';
import { GoldResultCache } from './goldResultCache';
import type { DatabaseConnection } from '../db/engine';
import type { EvalTask } from '../bird/tasks';

export interface EvalProgress {
  phase: 'correctness' | 'timing' | 'scales';
  /** Questions scored for correctness, or pairs still being timed in this pass. */
  done: number;
  total: number;
  pass?: number;
}

export interface EvalOptions {
  metrics: readonly Metric[];
  timing: TimingMode;
  /** Limit for one prediction/gold pair, as the official meta_time_out (30 s). */
  timeoutMs: number;
  /** Rows one result may have before it is cut off (bounds memory). */
  maxRows: number;
  fastTiming?: Partial<FastTimingOptions>;
  officialIterations?: number;
  /** Called once per question, when its result is final (timed pairs finish after the timing passes). */
  onResult?: (result: QuestionResult, done: number, total: number) => void;
  onProgress?: (progress: EvalProgress) => void;
  /** Stops before the next question (or timing block) when aborted. */
  signal?: AbortSignal;
  /** Keep each timing sample in the result (for charts); the JSON report leaves them out. */
  keepSamples?: boolean;
  /** SQLMorph's result-comparison techniques (--techniques), scored after EX and Soft-F1; see eval/techniqueStep.ts. */
  techniques?: TechniqueStep;
  /** Re-time each timed pair on copies of its database scaled by these factors (1 = the database itself). */
  scales?: readonly number[];
  /** BIRD dev_tables.json / train_tables.json for the keys of scaled copies; where scaled copies are cached. */
  schemaFile?: string;
  scaleCacheDir?: string;
  /**
   * Called once when the database server went away or cannot be reached mid-run: the question it happened on
   * and every one no lane had started are not run (errors; a question another lane had under way keeps its own
   * result), timed pairs not timed yet fail; the run still ends and reports.
   */
  onServerUnavailable?: (message: string) => void;
  /**
   * Questions scored for correctness at once (SQLite, a server's sessions; the embedded PostgreSQL up to two), each
   * lane on connections of its own (eval/parallelEval.ts); default 1. Timing never runs beside them: it starts once every lane is idle.
   */
  jobs?: number;
  /** Gold results kept between runs (SQLite; eval/goldResultCache.ts); undefined: every gold runs. */
  goldCache?: GoldResultCache;
  /**
   * More work on each question scored on a database, on its lane's connection before the lane takes the next (the
   * report's plan costs: no pass and no connections of their own after scoring). Its failure fails the run.
   */
  onLane?: (db: DatabaseConnection, task: EvalTask, result: QuestionResult) => Promise<void>;
}

/** A whole run: where the questions' databases are, besides how to score them. */
export interface EvalRunOptions extends EvalOptions {
  source: DatabaseSource;
}

export const DEFAULT_MAX_ROWS = 500_000;
