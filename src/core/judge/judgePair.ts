import { sameResultSet } from '../metrics/executionMatch';
import { MEMORY_BOUNDS } from '../db/database';
import { openDatabase } from '../db/engines';
import { ChatModel } from '../llm/chatModel';
import { ReplyCache } from '../llm/replyCache';
import { askForJson, AskResult } from './ask';
import { DatabaseFactsCache, describeDatabase } from './dbInfo';
import { flexMessages, proverMessages, refuterMessagesForDifferentResults, refuterMessagesForSameResults } from './prompts';
import { sameResults } from './resultEquality';
import { renderResult } from './resultTable';
import { JudgedRun, runForJudge } from './runQuery';
import { FlexVerdict, JudgeBranch, JudgeMethod, JudgeOutcome, ProverVerdict, RefuterVerdict } from './types';
import { FLEX_KEYS, PROVER_KEYS, readFlex, readProver, readRefuter, REFUTER_KEYS } from './verdicts';

export interface JudgePairInput {
  question: string;
  /** BIRD's evidence (the hint written with the question); '' when there is none. */
  evidence: string;
  dbId: string;
  /** The SQLite file; opened read-only. */
  dbPath: string;
  /** Undefined when there is no prediction: score 0, no call. */
  predictedSql?: string;
  /** Needed by `rose` and `flex`; without it (or when it fails) the Prover judges alone. */
  goldSql?: string;
}

export interface JudgePairOptions {
  model: ChatModel;
  method?: JudgeMethod;
  /** Replies on disk, keyed by (model, prompt): a re-run costs no call. */
  cache?: ReplyCache;
  /** Limit for each query, ms (default 30 s, as BIRD's meta_time_out). */
  timeoutMs?: number;
  /** Rows one result may have (default 500,000). */
  maxRows?: number;
  signal?: AbortSignal;
  /** Schema, keys and samples read once per database; pass one across calls. */
  facts?: DatabaseFactsCache;
}

export const DEFAULT_JUDGE_SQL_TIMEOUT_MS = 30_000;

class Tally {
  calls = 0;
  cachedCalls = 0;
  promptTokens = 0;
  completionTokens = 0;
  add<T>(result: AskResult<T>): AskResult<T> {
    this.calls += result.calls;
    this.cachedCalls += result.cachedCalls;
    this.promptTokens += result.usage.promptTokens;
    this.completionTokens += result.usage.completionTokens;
    return result;
  }
}

/**
 * Judges whether one prediction answers its question, as ROSE does (ROSE's `_process_question` in CedricPei/ROSE's main.py): both SQLs run read-only
 * within a time limit; a prediction that fails scores 0 without a call; matching results (resultEquality.ts)
 * go to the Refuter alone (score = not overturned); differing results go to the Prover, and to the Refuter only
 * if the Prover passes (score = passed and not overturned). `prover-only` runs the Prover on every prediction
 * that runs; `flex` makes FLEX's one call. Never throws for a bad reply (a `judge_error`) or a failed request
 * (a `model_error`); it throws only for a fatal model error (wrong key, endpoint or model), or when cancelled.
 */
/** Pairs judged at once at most, for the memory budget (runJudge caps --concurrency at it). */
export const JUDGE_CONCURRENCY_BOUND = 8;
const JUDGE_RESULT_BYTES = MEMORY_BOUNDS.resultBytes / (2 * JUDGE_CONCURRENCY_BOUND);

export async function judgePair(input: JudgePairInput, options: JudgePairOptions): Promise<JudgeOutcome> {
  const method = options.method ?? 'rose';
  const tally = new Tally();
  const notes: string[] = [];
  const outcome = (branch: JudgeBranch, fields: Partial<JudgeOutcome>): JudgeOutcome => ({
    score: null,
    method,
    branch,
    prover: null,
    refuter: null,
    ...(method === 'flex' ? { flex: null } : {}),
    error: null,
    pred_rows: null,
    gold_rows: null,
    ...fields,
    calls: tally.calls,
    cached_calls: tally.cachedCalls,
    usage: { prompt_tokens: tally.promptTokens, completion_tokens: tally.completionTokens },
    notes,
  });
  if (input.predictedSql === undefined) {
    notes.push('no prediction: scores 0 without a call');
    return outcome('no_prediction', { score: 0 });
  }
  // The judge holds both whole results of up to JUDGE_CONCURRENCY_BOUND pairs at once: each result gets its
  // share of the one-result byte budget, so memory stays under the same bound as eval's.
  const limits = {
    timeoutMs: options.timeoutMs ?? DEFAULT_JUDGE_SQL_TIMEOUT_MS,
    maxRows: options.maxRows ?? 500_000,
    maxBytes: JUDGE_RESULT_BYTES,
    signal: options.signal,
  };
  const facts = (options.facts ?? new DatabaseFactsCache()).get(input.dbId, input.dbPath);
  const ask = { cache: options.cache, signal: options.signal };
  const db = await openDatabase(input.dbPath);
  try {
    const pred = await runForJudge(db, input.predictedSql, limits);
    if (pred.status !== 'ok') {
      notes.push(
        `the prediction ${pred.status === 'timeout' ? 'timed out' : pred.status === 'refused' ? 'was refused' : 'failed'}: ${pred.message}; scores 0 without a call`,
      );
      return outcome('prediction_failed', { score: 0 });
    }
    const predRows = pred.result.rowCount;
    let gold: JudgedRun | undefined;
    if (method !== 'prover-only' && input.goldSql !== undefined) gold = await runForJudge(db, input.goldSql, limits);
    const goldRows = gold?.status === 'ok' ? gold.result.rowCount : null;
    const base = { question: input.question, evidence: input.evidence, predictedSql: input.predictedSql };
    const predictedResult = renderResult(pred.result);

    const prover = async (sqls: string[]) => {
      const database = await describeDatabase(db, facts, sqls);
      return tally.add(
        await askForJson(options.model, proverMessages({ ...base, database, predictedResult }), readProver, { ...ask, keys: PROVER_KEYS }),
      );
    };
    const proverOutcome = (branch: JudgeBranch, answer: AskResult<ProverVerdict>) =>
      outcome(branch, {
        score: answer.value ? (answer.value.verdict ? 1 : 0) : null,
        prover: answer.value ?? null,
        error: answer.error ?? null,
        pred_rows: predRows,
        gold_rows: goldRows,
      });

    if (method === 'prover-only') return proverOutcome('prover_only', await prover([input.predictedSql]));
    if (!gold || gold.status !== 'ok') {
      notes.push(
        gold
          ? `the gold ${gold.status === 'timeout' ? 'timed out' : 'failed'}: ${gold.message}; the Prover judges alone`
          : 'no gold SQL: the Prover judges alone',
      );
      return proverOutcome('gold_failed', await prover([input.predictedSql]));
    }
    const goldSql = input.goldSql as string;
    const goldResult = renderResult(gold.result);
    const database = await describeDatabase(db, facts, [input.predictedSql, goldSql]);

    if (method === 'flex') {
      // FLEX anchors on EX: BIRD's set equality decides its strict or lenient prompt.
      const resultsMatch = sameResultSet(pred.result.rows, gold.result.rows);
      const answer: AskResult<FlexVerdict> = tally.add(
        await askForJson(options.model, flexMessages({ ...base, database, goldSql, resultsMatch, predictedResult, goldResult }), readFlex, {
          ...ask,
          keys: FLEX_KEYS,
        }),
      );
      notes.push(resultsMatch ? 'results match under EX: the strict prompt' : 'results differ under EX: the lenient prompt');
      return outcome('flex', {
        score: answer.value ? (answer.value.correct ? 1 : 0) : null,
        flex: answer.value ?? null,
        error: answer.error ?? null,
        pred_rows: predRows,
        gold_rows: goldRows,
      });
    }

    const refuterOutcome = (branch: JudgeBranch, proverAnswer: ProverVerdict | null, answer: AskResult<RefuterVerdict>) =>
      outcome(branch, {
        score: answer.value ? (answer.value.overturn ? 0 : 1) : null,
        prover: proverAnswer,
        refuter: answer.value ?? null,
        error: answer.error ?? null,
        pred_rows: predRows,
        gold_rows: goldRows,
      });

    if (
      sameResults(
        { columnCount: pred.result.columns.length, rows: pred.result.rows },
        { columnCount: gold.result.columns.length, rows: gold.result.rows },
      )
    ) {
      const answer = tally.add(
        await askForJson(options.model, refuterMessagesForSameResults({ ...base, database, goldSql }), readRefuter, {
          ...ask,
          keys: REFUTER_KEYS,
        }),
      );
      return refuterOutcome('results_match', null, answer);
    }
    const proverAnswer = await prover([input.predictedSql]);
    if (!proverAnswer.value || !proverAnswer.value.verdict) return proverOutcome('results_differ', proverAnswer);
    const answer = tally.add(
      await askForJson(
        options.model,
        refuterMessagesForDifferentResults({
          ...base,
          database,
          goldSql,
          predictedResult,
          goldResult,
          proverReason: proverAnswer.value.reason,
        }),
        readRefuter,
        { ...ask, keys: REFUTER_KEYS },
      ),
    );
    return refuterOutcome('results_differ', proverAnswer.value, answer);
  } finally {
    await db.close();
  }
}
