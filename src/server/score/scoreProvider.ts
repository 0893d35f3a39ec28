/**
 * The score slice: "Score against gold" on one prediction. core scores the pair as `ves-lens eval` does (EX,
 * Soft-F1, then VES and R-VES with fast timing), and the Score panel gets both results' first rows, both plans
 * side by side, why the scores are what they are, and SQLMorph's partial-credit techniques.
 */
import { QueryCancelled } from '../../core/db/database';
import { dialectOf } from '../../core/db/readQuery';
import { scoreTask } from '../../core/eval/evaluate';
import { Metric, METRICS, QuestionResult } from '../../core/eval/types';
import { RVES_BUCKET_RANGE_TEXTS } from '../../core/metrics/efficiency';
import { explainQuery } from '../../core/plan/explain';
import { FastTimingOptions } from '../../core/timing/fast';
import { TimingResult } from '../../core/timing/types';
import { speedVerdict } from '../../core/timing/verdict';
import {
  CounterexampleParams,
  CounterexampleResult,
  EngineSummary,
  ScoreParams,
  ScoreResult,
  TechniquesView,
  TimingSummaries,
  TimingSummary,
} from '../../shared/protocol';
import { RepeatRuns } from '../../app/scoreRepeatRuns';
import { ServerContext } from '../context';
import type { OpenDatabase } from '../../core/db/connectionCache';
import { editorText } from '../editorText';
import { CancelledError } from '../errors';
import { scoreExplanations } from '../../app/scoreExplanations';
import { techniqueScores } from '../../app/scoreTechniques';
import { comparePlanViews, planView } from '../../app/statementPlan';
import { QueryTargets } from '../queryTargets';
import { formatSql } from '../../app/sqlLayout';
import { CounterexampleAction, DEFAULT_COUNTEREXAMPLE_SECONDS, mismatchFragility } from './counterexampleAction';
import { interruptOnAbort, openScoringPair } from './scoringPair';

/**
 * The Score panel shows both ratios with an interval, so both are pinned down: asked only for its R-VES bucket, a
 * pair of long iterations far from every bucket edge stops after one block, and its interval would be the prior
 * spread alone, never measured on the pair (issue 30: q738's 'R-VES 277× [194–394]' came back 128× and 763×).
 * With at least minBlocks blocks of each quantity, the interval comes from this pair's own spread between blocks.
 */
const PANEL_TIMING: Partial<FastTimingOptions> = {
  settle: { ratioOf: ['first-row', 'full'], bucketOf: ['full'] },
};

/** "Re-run with more iterations": more blocks and a tighter precision, within a larger budget, for both quantities. */
const THOROUGH_TIMING: Partial<FastTimingOptions> = {
  ...PANEL_TIMING,
  minBlocks: 6,
  maxBlocks: 16,
  blockMs: { ratio: 12, bucket: 12 },
  precision: 0.03,
  pairBudgetMs: 20_000,
};

/**
 * What the interval of a timing rests on: blocks of this run (an estimate of where a repeat run lands, measured on
 * the pair within one sitting: bench/scorePanelTiming.ts checks how often it holds), or nothing measured (one
 * block: a loop past the official limit is cut off there), in which case the panel shows no interval.
 */
function intervalKind(timing: TimingResult): TimingSummary['intervalKind'] {
  if (timing.sameProgram) return 'exact';
  return (timing.blocks ?? 1) >= 2 ? 'estimate' : 'none';
}

function timingSummary(timing: TimingResult): TimingSummary {
  const { protocol: _protocol, ...summary } = timing;
  return {
    ...summary,
    intervalKind: intervalKind(timing),
    verdict: speedVerdict(timing),
    note: summary.note === undefined ? undefined : editorText(summary.note),
  };
}

/** Each timed quantity's summary, under the key core keeps it (a quantity not timed stays absent). */
function timingSummaries(timings: QuestionResult['timings']): TimingSummaries {
  const summaries: TimingSummaries = {};
  if (timings?.ves) summaries.ves = timingSummary(timings.ves);
  if (timings?.rves) summaries.rves = timingSummary(timings.rves);
  return summaries;
}

/** What a score on PostgreSQL must say beside its numbers: what its engine notes (an embedded one's timings), scales not re-timed. */
function engineNotes(engine: EngineSummary | null, scales: readonly number[] | undefined): string[] {
  if (!engine || engine.engine === 'sqlite') return [];
  const notes: string[] = [];
  // An embedded engine says itself why its timings are no server's.
  if (engine.note) notes.push(engine.note);
  if (scales?.length) notes.push('the ratio at larger data scales is measured on SQLite copies only: not re-timed on PostgreSQL');
  return notes;
}

export class ScoreProvider {
  private readonly counterexamples: CounterexampleAction;
  private readonly repeatRuns = new RepeatRuns();

  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {
    this.counterexamples = new CounterexampleAction(context, targets);
  }

  /** "Look for a database where they differ" on an EX-correct pair (counterexampleAction.ts). */
  counterexample(params: CounterexampleParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<CounterexampleResult> {
    return this.counterexamples.run(params, signal, progress);
  }

  /** SQLMorph's techniques for the pair (vesLens.techniques); a failure of theirs is logged and leaves the score as it is. */
  private async techniques(
    database: OpenDatabase,
    goldSql: string,
    sql: string,
    scored: QuestionResult,
    signal?: AbortSignal,
  ): Promise<TechniquesView | null> {
    const timedOut = scored.outcome === 'timeout' ? (scored.error ?? 'timed out') : undefined;
    const { settings, storageDir, host } = this.context;
    try {
      const embeddingsKey = host.secret && (() => host.secret!('embeddingsApiKey'));
      const scoring = { settings, storageDir, embeddingsKey, ...this.context.limits, signal, timedOut };
      return await techniqueScores(database.db, goldSql, sql, scoring, editorText);
    } catch (error) {
      if (error instanceof QueryCancelled || signal?.aborted) throw error;
      this.context.log(`SQLMorph's techniques failed: ${(error as Error)?.stack ?? error}`);
      return null;
    }
  }

  async score(params: ScoreParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<ScoreResult> {
    const { started, sql, question, database, goldSql } = await openScoringPair(this.context, this.targets, params);
    const state = this.context.state;
    const dialect = dialectOf(database.db.engine);
    const stopInterrupting = interruptOnAbort(database, signal);
    try {
      const correctnessOnly = params.phase === 'correctness';
      const metrics: Metric[] = correctnessOnly ? ['ex', 'f1'] : [...METRICS];
      progress?.(correctnessOnly ? 'running prediction and gold' : 'timing prediction and gold');
      const result = await scoreTask(
        database.db,
        { question, goldSql, predictedSql: sql, notes: [] },
        {
          metrics,
          ...this.context.timing,
          ...this.context.limits,
          keepSamples: true,
          fastTiming: params.thorough ? THOROUGH_TIMING : PANEL_TIMING,
          // Scaled copies are SQLite files (core/scale): a server's data is not copied.
          scales: correctnessOnly || dialect !== 'sqlite' ? undefined : params.scales,
          signal,
        },
      );
      if (signal?.aborted) throw new CancelledError();
      // A mismatch that rests only on float digits or the physical row order says so (SQLite's reversed scan). Both
      // run again for it: only where the row counts agree, as they do when only digits or the order differ.
      const sameCount = result.difference !== undefined && result.difference.pred_rows === result.difference.gold_rows;
      if (result.outcome === 'mismatch' && dialect === 'sqlite' && sameCount)
        result.ex_fragile = await mismatchFragility(database, goldSql, sql, this.context);
      progress?.('reading both results and plans');
      const goldPreview = await this.targets.preview(database, goldSql, signal);
      const predPreview = await this.targets.preview(database, sql, signal);
      const goldPlan = await explainQuery(database.db, goldSql, database.schema);
      const predPlan = await explainQuery(database.db, sql, database.schema);
      progress?.("scoring SQLMorph's techniques");
      const techniques = await this.techniques(database, goldSql, sql, result, signal);
      return {
        question: state.info(question),
        outcome: result.outcome,
        ex: result.ex,
        f1: result.f1,
        error: result.error === null ? null : editorText(result.error),
        goldSql: formatSql(goldSql, dialect),
        predSql: formatSql(sql, dialect),
        goldPreview,
        predPreview,
        explanations: scoreExplanations(result, goldPreview, predPreview, { pred: sql, gold: goldSql }),
        // Each run of the pair adds its ratios; from the third on, the repeat interval measured between runs.
        timings: this.repeatRuns.add([state.engineLine, question.dbId, goldSql, sql].join('\u0000'), timingSummaries(result.timings)),
        rvesBucketRanges: RVES_BUCKET_RANGE_TEXTS,
        same_program: result.same_program,
        ves: result.ves,
        rves: result.rves,
        rves_reward: result.rves_reward,
        rves_bucket_probabilities: result.rves_bucket_probabilities,
        rves_expected_reward: result.rves_expected_reward,
        rves_uncertain: result.rves_uncertain,
        time_ratio_by_scale: result.time_ratio_by_scale,
        growth: result.growth === undefined ? undefined : editorText(result.growth),
        difference: result.difference,
        ex_fragile: result.ex_fragile,
        counterexampleSeconds: result.outcome === 'correct' && dialect === 'sqlite' ? DEFAULT_COUNTEREXAMPLE_SECONDS : undefined,
        goldPlan: planView(goldPlan, editorText),
        predPlan: planView(predPlan, editorText),
        planComparison: comparePlanViews(goldPlan, predPlan, editorText),
        techniques,
        notes: [...result.notes, ...engineNotes(state.engine, correctnessOnly ? undefined : params.scales)].map(editorText),
        sqlite: state.sqlite,
        engine: state.engineLine,
        elapsedMs: performance.now() - started,
      };
    } catch (error) {
      if (error instanceof QueryCancelled || signal?.aborted) throw new CancelledError();
      throw error;
    } finally {
      stopInterrupting();
    }
  }
}
