/**
 * A pair's timing outcome (timing/timePairs.ts) written into its result row: the headline ratio, VES from the
 * first-row timing and R-VES from the full one (as each official script times), the scaled ratios, or the
 * efficiency zeroed with the reason. The one place eval's rows learn their efficiency.
 */
import { rvesBucketUncertain, rvesContribution, rvesOutlook, rvesReward, vesContribution } from '../metrics/efficiency';
import { probabilityBelowFor } from '../timing/fast';
import { OfficialProtocol } from '../timing/official';
import type { PairOutcome, TimingRequest } from '../timing/timePairs';
import { TimingResult } from '../timing/types';
import { growthVerdict } from '../timing/verdict';
import type { EvalOptions } from './evalOptions';
import { Metric, QuestionResult } from './types';
import { serverWentAway, TIMING_NOT_DONE, timingStoppedByRun } from './runFailure';

/** Fills the efficiency metrics that were asked for with 0 (an incorrect or unscored prediction). */
export function zeroEfficiency(result: QuestionResult, metrics: readonly Metric[]): void {
  if (metrics.includes('ves')) result.ves = 0;
  if (metrics.includes('rves')) {
    result.rves = 0;
    result.rves_reward = 0;
  }
}

/** What eval's options ask of timing. */
export function timingRequest(options: EvalOptions): TimingRequest {
  return {
    protocol: options.timing,
    scores: options.metrics.filter((metric): metric is OfficialProtocol => metric === 'ves' || metric === 'rves'),
    timeoutMs: options.timeoutMs,
    officialIterations: options.officialIterations,
    fastTiming: options.fastTiming,
    signal: options.signal,
  };
}

/** Writes a pair's timing outcome into its row (a cancelled outcome is the caller's to drop: it is no measurement). */
export function applyOutcome(result: QuestionResult, outcome: PairOutcome, options: EvalOptions): void {
  if (outcome.kind === 'untimeable') {
    result.notes.push(outcome.note);
    zeroEfficiency(result, options.metrics);
  } else if (outcome.kind === 'failed' || outcome.kind === 'cancelled') {
    const error = outcome.kind === 'failed' ? outcome.error : new Error('cancelled before it was timed');
    if (serverWentAway(error)) options.onServerUnavailable?.(error.message);
    // The run's failure (server gone, cancelled) is marked so: no score, timed again by --resume (runFailure.ts).
    result.notes.push(
      timingStoppedByRun(error, Boolean(options.signal?.aborted))
        ? `${TIMING_NOT_DONE}: ${error.message}; efficiency 0 in this report`
        : `timing failed: ${error.message}; efficiency scored 0`,
    );
    zeroEfficiency(result, options.metrics);
  } else {
    applyTimings(result, outcome, options);
    result.notes.push(...outcome.scaleNotes);
    if (outcome.byScale) {
      result.time_ratio_by_scale = outcome.byScale;
      result.growth = growthVerdict(outcome.byScale);
    }
  }
}

/** The headline ratio: VES's quantity when VES is asked, else R-VES's. */
function applyHeadline(result: QuestionResult, timing: TimingResult): void {
  result.time_ratio = timing.ratio;
  result.time_ratio_interval = [timing.low, timing.high];
  result.gold_ms = timing.goldMs;
  result.pred_ms = timing.predMs;
  result.runs = timing.runs;
  result.timing = timing.protocol;
  if (timing.typicalRatio !== undefined) result.time_ratio_typical = timing.typicalRatio;
  if (timing.note) result.notes.push(timing.note);
}

/** VES from the first-row timing and R-VES from the full one, as each official script times. */
function applyTimings(result: QuestionResult, timings: { ves?: TimingResult; rves?: TimingResult }, options: EvalOptions): void {
  const headline = (timings.ves ?? timings.rves) as TimingResult;
  applyHeadline(result, headline);
  if (options.keepSamples) result.timings = { ves: timings.ves, rves: timings.rves };
  result.same_program = headline.sameProgram ?? false;
  const pastLimit = (['ves', 'rves'] as const).filter((metric) => timings[metric]?.pastOfficialLimit && options.metrics.includes(metric));
  if (pastLimit.length) result.past_official_limit = pastLimit;
  // Past the official loop's time limit the official scripts score 0; fast mode projects that and follows.
  if (timings.ves && options.metrics.includes('ves')) result.ves = timings.ves.pastOfficialLimit ? 0 : vesContribution(timings.ves.ratio);
  const rves = timings.rves;
  if (!rves || !options.metrics.includes('rves')) return;
  result.rves_time_ratio = rves.ratio;
  result.rves_time_ratio_interval = [rves.low, rves.high];
  if (rves.typicalRatio !== undefined) result.rves_time_ratio_typical = rves.typicalRatio;
  if (rves !== headline && rves.note) result.notes.push(`R-VES timing: ${rves.note}`);
  if (rves.pastOfficialLimit) {
    result.rves_reward = 0;
    result.rves = 0;
    result.rves_uncertain = false;
  } else if (rves.spread) {
    // Fast timing knows how far a repeat run may move: the reward is the expected one over the buckets a
    // repeat run can land in, which is what the official scripts' R-VES averages to over runs.
    const outlook = rvesOutlook(probabilityBelowFor({ ratio: rves.ratio, ...rves.spread }));
    result.rves_reward = outlook.reward;
    result.rves = outlook.expectedContribution;
    result.rves_expected_reward = outlook.expectedReward;
    result.rves_bucket_probabilities = outlook.probabilities;
    if (Number.isFinite(rves.spread.df)) result.rves_spread = { log_se: rves.spread.logSe, df: rves.spread.df };
    result.rves_uncertain = outlook.uncertain;
  } else {
    result.rves_reward = rvesReward(rves.ratio);
    result.rves = rvesContribution(rves.ratio);
    result.rves_uncertain = rves.ratio > 0 && rvesBucketUncertain(rves.low, rves.high);
  }
}
