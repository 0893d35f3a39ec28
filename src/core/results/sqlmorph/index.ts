/**
 * SQLMorph's result-comparison techniques: the API the CLI, the language server and the tests use.
 *
 * - scoreTechniques(gold, predicted, options): the techniques on two results already read (ResultTable:
 *   column names and Python-typed rows); with `details: true` also each technique's column alignment and each
 *   row's fate (exact / partial with partner and similarity / none).
 * - readTypedResult(db, sql, limits): one query's ResultTable, as SQLMorph's SQLite adapter sees it.
 * - scoreQueryTechniques(db, goldSql, predictedSql, options): both reads and the scoring, with SQLMorph's rules
 *   for failing queries (0 everywhere) and VES Lens's for bounds and timeouts (`error`): the editor's one call.
 * (The eval engine's optional step, EvalOptions.techniques, is eval/techniqueStep.ts.)
 */
import { DatabaseConnection } from '../../db/engine';
import { EMPTY_QUERY, readTypedResult, TypedRead } from './typedResult';
import { NO_EMBEDDING_PROVIDER, scoreTechniques, orderedTechniques, TechniqueOptions, TechniqueReport } from './scoreTechniques';
import { ResultTable, SEMANTIC_TECHNIQUES, TechniqueName, TechniqueScore, ZERO_SCORES } from './types';

export { scoreTechniques, orderedTechniques, NO_EMBEDDING_PROVIDER } from './scoreTechniques';
export type { TechniqueOptions, TechniqueReport } from './scoreTechniques';
export { readTypedResult } from './typedResult';
export * from './types';
export { PyFloat, pyStr, pyJson } from './pyValues';
export type { PyValue, PyRow } from './pyValues';

export interface QueryTechniqueReport extends TechniqueReport {
  /** The two results as read (for the editor's tables; indices in `details` refer to their rows). */
  gold?: ResultTable;
  predicted?: ResultTable;
  /** Why a query could not be read, when one could not. */
  failure?: { side: 'gold' | 'prediction'; status: string; message: string };
}

/**
 * Reads gold, then the prediction (one connection, as the eval engine), and scores the techniques. A query that
 * fails, or holds no statement, scores 0 everywhere as in SQLMorph (EX only for execution_accuracy); a timeout or
 * a VES Lens bound gives `error` everywhere; `failure` says which side and why.
 */
export async function scoreQueryTechniques(
  db: DatabaseConnection,
  goldSql: string,
  predictedSql: string,
  options: TechniqueOptions & { timeoutMs: number; maxRows: number },
): Promise<QueryTechniqueReport> {
  const techniques = orderedTechniques(options.techniques);
  const read = (sql: string): Promise<TypedRead> =>
    readTypedResult(db, sql, {
      deadline: performance.now() + options.timeoutMs,
      budgetMs: options.timeoutMs,
      maxRows: options.maxRows,
      signal: options.signal,
    });
  const gold = await read(goldSql);
  const predicted = await read(predictedSql);
  for (const [side, run] of [
    ['gold', gold],
    ['prediction', predicted],
  ] as const) {
    if (run.status === 'ok') continue;
    const unscorable = run.status === 'timeout' || /result (has|holds) more than/.test(run.message);
    const scores = Object.fromEntries(
      techniques.map((name): [TechniqueName, TechniqueScore] => [
        name,
        unscorable
          ? { error: run.message }
          : SEMANTIC_TECHNIQUES.includes(name) && !options.embeddings
            ? { error: NO_EMBEDDING_PROVIDER }
            : name === 'execution_accuracy'
              ? { EX: 0 }
              : { ...ZERO_SCORES },
      ]),
    );
    return {
      scores,
      notes: run.message === EMPTY_QUERY ? [`${side}: ${EMPTY_QUERY}`] : [],
      details: {},
      failure: { side, status: run.status, message: run.message },
    };
  }
  if (gold.status !== 'ok' || predicted.status !== 'ok') throw new Error('unreachable');
  const report = await scoreTechniques(gold.table, predicted.table, { ...options, techniques });
  return {
    ...report,
    notes: [...gold.notes.map((n) => `gold ${n}`), ...predicted.notes.map((n) => `prediction ${n}`), ...report.notes],
    gold: gold.table,
    predicted: predicted.table,
  };
}
