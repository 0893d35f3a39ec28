import { MEMORY_BOUNDS } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { runnableBody } from '../db/readQuery';
import type { EvalTask } from '../bird/tasks';
import type { QuestionResult } from './types';
import { NO_EMBEDDING_PROVIDER, orderedTechniques, scoreTechniques, TechniqueOptions } from '../results/sqlmorph/scoreTechniques';
import { readTypedResult } from '../results/sqlmorph/typedResult';
import { PERFECT_SCORES, SEMANTIC_TECHNIQUES, TechniqueName, TechniqueScore, ZERO_SCORES } from '../results/sqlmorph/types';

export interface TechniqueStepLimits {
  timeoutMs: number;
  maxRows: number;
  signal?: AbortSignal;
}

/**
 * The optional step of the eval engine that scores SQLMorph's techniques (EvalOptions.techniques). It runs
 * after EX and Soft-F1 and reads their outcome: a correct pair scores 1 everywhere (SQLMorph's check_ex) and
 * a failed query 0 everywhere (SQLMorph's adapter), without running anything; only a mismatch re-reads both
 * results, with their column names and Python's types, within a time limit of its own and the same row bound.
 */
export interface TechniqueStep {
  readonly techniques: readonly TechniqueName[];
  score(db: DatabaseConnection, task: EvalTask, result: QuestionResult, limits: TechniqueStepLimits): Promise<void>;
}

const everywhere = (techniques: readonly TechniqueName[], make: (name: TechniqueName) => TechniqueScore) =>
  Object.fromEntries(techniques.map((name) => [name, make(name)])) as Partial<Record<TechniqueName, TechniqueScore>>;

const zeros = (name: TechniqueName): TechniqueScore => (name === 'execution_accuracy' ? { EX: 0 } : { ...ZERO_SCORES });
const ones = (name: TechniqueName): TechniqueScore => (name === 'execution_accuracy' ? { EX: 1 } : { ...PERFECT_SCORES });

/** Both results are held at once: each gets half of what one result may hold elsewhere. */
export const TECHNIQUE_RESULT_BYTES = MEMORY_BOUNDS.resultBytes / 2;

/** A query bound of VES Lens (rows, bytes) is no failure in SQLMorph, which reads everything: no score, then. */
const BOUND = /result (has|holds) more than/;

export function techniqueStep(options: TechniqueOptions): TechniqueStep {
  const techniques = orderedTechniques(options.techniques);
  return {
    techniques,
    async score(db, task, result, limits) {
      await scoreOne(db, task, result, limits);
      // Without a provider the semantic techniques score nothing, not even a correct or a failed pair.
      if (!options.embeddings && result.techniques) {
        for (const name of SEMANTIC_TECHNIQUES) if (result.techniques[name]) result.techniques[name] = { error: NO_EMBEDDING_PROVIDER };
      }
    },
  };

  async function scoreOne(db: DatabaseConnection, task: EvalTask, result: QuestionResult, limits: TechniqueStepLimits): Promise<void> {
    const error = (message: string) => everywhere(techniques, () => ({ error: message }));
    if (result.outcome === 'skipped') return;
    if (result.outcome === 'timeout') {
      result.techniques = error(result.error ?? 'timed out');
      return;
    }
    const empty = [task.goldSql, task.predictedSql].some((sql) => {
      const body = runnableBody(sql ?? '');
      return 'body' in body && body.body === '';
    });
    if (empty) {
      // SQLMorph's adapter fails on a string with no statement (cursor.description is None): all 0.
      result.techniques = everywhere(techniques, zeros);
      if (result.outcome === 'correct')
        result.notes.push("techniques: a query with no statement fails in SQLMorph's adapter: every technique scores 0 (EX here is 1)");
      return;
    }
    if (result.outcome === 'correct') {
      result.techniques = everywhere(techniques, ones);
      return;
    }
    if (result.outcome !== 'mismatch') {
      if (BOUND.test(result.error ?? '')) result.techniques = error(result.error ?? 'result too large');
      else result.techniques = everywhere(techniques, zeros);
      if (result.outcome === 'refused')
        result.notes.push(
          'techniques: scored 0, as SQLMorph scores a query its adapter cannot read (VES Lens does not run this statement)',
        );
      return;
    }
    const read = (sql: string) =>
      readTypedResult(db, sql, {
        deadline: performance.now() + limits.timeoutMs,
        budgetMs: limits.timeoutMs,
        maxRows: limits.maxRows,
        maxBytes: TECHNIQUE_RESULT_BYTES,
        signal: limits.signal,
      });
    const gold = await read(task.goldSql ?? ' ');
    const predicted = gold.status === 'ok' ? await read(task.predictedSql ?? ' ') : gold;
    if (gold.status !== 'ok' || predicted.status !== 'ok') {
      const failure = gold.status !== 'ok' ? gold : predicted;
      result.techniques = error(
        `${gold.status !== 'ok' ? 'gold' : 'prediction'} re-read for the techniques: ${'message' in failure ? failure.message : ''}`,
      );
      return;
    }
    const report = await scoreTechniques(gold.table, predicted.table, { ...options, techniques, signal: limits.signal });
    result.techniques = report.scores;
    for (const note of [...gold.notes.map((n) => `gold ${n}`), ...predicted.notes.map((n) => `prediction ${n}`)])
      result.notes.push(`techniques: ${note}`);
    result.notes.push(...report.notes);
  }
}
