import { DatabaseError } from '../db/database';
import { ChatModelError } from '../llm/chatModel';
import { JUDGE_CONCURRENCY_BOUND, judgePair, JudgePairInput, JudgePairOptions } from './judgePair';
import { JudgeOutcome } from './types';

export interface JudgeAllOptions extends JudgePairOptions {
  /** Pairs judged at the same time (requests in flight); default 4. */
  concurrency?: number;
  onResult?: (index: number, outcome: JudgeOutcome) => void;
}

/**
 * Judges many pairs, `concurrency` at a time, results in input order. A fatal model error (wrong key, endpoint
 * or model) stops the run: the pairs in flight finish, no new one starts, and the error is thrown. A database
 * that fails under one pair gives that pair no score and says why; the others go on.
 */
export async function judgeAll(inputs: readonly JudgePairInput[], options: JudgeAllOptions): Promise<JudgeOutcome[]> {
  const results = new Array<JudgeOutcome>(inputs.length);
  const stop = new AbortController();
  // The caller's signal stops the run too (AbortSignal.any needs Node 20.3).
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const signal = stop.signal;
  let next = 0;
  let fatal: unknown;
  const worker = async () => {
    while (!signal.aborted && next < inputs.length) {
      const index = next++;
      try {
        results[index] = await judgePair(inputs[index], { ...options, signal });
      } catch (error) {
        if (error instanceof ChatModelError) {
          fatal ??= error;
          stop.abort();
          return;
        }
        if (!(error instanceof DatabaseError)) throw error;
        results[index] = {
          score: null,
          method: options.method ?? 'rose',
          branch: 'prediction_failed',
          prover: null,
          refuter: null,
          error: `database_error: ${error.message}`,
          pred_rows: null,
          gold_rows: null,
          calls: 0,
          cached_calls: 0,
          usage: { prompt_tokens: 0, completion_tokens: 0 },
          notes: [],
        };
      }
      options.onResult?.(index, results[index]);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, JUDGE_CONCURRENCY_BOUND, inputs.length)) }, worker),
    );
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (fatal) throw fatal;
  if (options.signal?.aborted) throw new ChatModelError('cancelled', 'cancelled');
  return results;
}
