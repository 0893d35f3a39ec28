/**
 * The score slice: "Score against gold" on one prediction. app/statementScore.ts scores the pair as `ves-lens eval`
 * does (EX, Soft-F1, then VES and R-VES with fast timing) and explains both plans; the Score panel gets both
 * results' first rows, both plans side by side, why the scores are what they are, and SQLMorph's partial-credit
 * techniques, in the editor's words.
 */
import { CounterexampleParams, CounterexampleResult, EngineSummary, ScoreParams, ScoreResult, TechniquesView } from '../../shared/protocol';
import type { QuestionResult } from '../../core/eval/types';
import { counterexampleOffer } from '../../app/counterexampleSearch';
import { wasCancelled } from '../../app/queryRuns';
import { RepeatRuns } from '../../app/scoreRepeatRuns';
import { interruptOnAbort, scoreStatement } from '../../app/statementScore';
import { ServerContext } from '../context';
import type { OpenDatabase } from '../../core/db/connectionCache';
import { editorText } from '../editorText';
import { CancelledError } from '../errors';
import { scoreExplanations } from '../../app/scoreExplanations';
import { techniqueScores } from '../../app/scoreTechniques';
import { QueryTargets } from '../queryTargets';
import { formatSql } from '../../app/sqlLayout';
import { CounterexampleAction } from './counterexampleAction';
import { openScoringPair } from './scoringPair';

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
      if (wasCancelled(error, signal)) throw error;
      this.context.log(`SQLMorph's techniques failed: ${(error as Error)?.stack ?? error}`);
      return null;
    }
  }

  async score(params: ScoreParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<ScoreResult> {
    const pair = await openScoringPair(this.context, this.targets, params);
    const { started, sql, question, database, goldSql } = pair;
    const state = this.context.state;
    const stopInterrupting = interruptOnAbort(database, signal);
    try {
      const correctnessOnly = params.phase === 'correctness';
      const log = (message: string) => this.context.log(message);
      const scoring = { ...this.context.timing, ...this.context.limits, correctnessOnly, thorough: params.thorough, scales: params.scales };
      const scored = await scoreStatement(pair, { ...scoring, signal, progress, log }, editorText);
      const { result, dialect } = scored;
      const goldPreview = await this.targets.preview(database, goldSql, signal);
      const predPreview = await this.targets.preview(database, sql, signal);
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
        timings: this.repeatRuns.add([state.engineLine, question.dbId, goldSql, sql].join('\u0000'), scored.timings),
        rvesBucketRanges: scored.rvesBucketRanges,
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
        counterexampleSeconds: counterexampleOffer(result.outcome, pair),
        goldPlan: scored.goldPlan,
        predPlan: scored.predPlan,
        planComparison: scored.planComparison,
        techniques,
        notes: [...result.notes, ...engineNotes(state.engine, correctnessOnly ? undefined : params.scales)].map(editorText),
        sqlite: state.sqlite,
        engine: state.engineLine,
        elapsedMs: performance.now() - started,
      };
    } catch (error) {
      if (wasCancelled(error, signal)) throw new CancelledError();
      throw error;
    } finally {
      stopInterrupting();
    }
  }
}
