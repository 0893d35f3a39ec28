// The Score panel's cards: outcome, EX and Soft-F1; the time ratio of both timed quantities (VES's first row,
// R-VES's every row), each with its median times and, where blocks measured one, the estimated interval of a repeat
// run; the R-VES reward with its bucket probabilities.
import { OUTCOME_LABELS, QUANTITY_DESCRIPTIONS, QUANTITY_LABELS } from '../../core/text/evalLabels';
import { plainText } from '../../core/text/terminalText';
import type { ScoreResult, TimingSummary } from '../../shared/protocol';
import { Child, h } from '../common/dom';
import { card } from '../common/elements';
import { counted, fixed, milliseconds } from '../common/format';
import { percent, ratio } from './scoreFormat';

/** The ratio range of an R-VES reward bucket, as the server words core's buckets: "ratio ≥ 2", "0.5 ≤ ratio < 1". */
const bucketRangeText = (result: ScoreResult, reward: number | string): string => result.rvesBucketRanges?.[String(Number(reward))] ?? '';

/** core's speed verdict on t_gold / t_pred, as the server sent it: "faster" there means the prediction is. */
function verdict({ verdict: speed }: Pick<TimingSummary, 'verdict'>): Child {
  if (speed === 'faster') return h('span', { className: 'diff-good' }, 'prediction faster');
  if (speed === 'slower') return h('span', { className: 'diff-bad' }, 'gold faster');
  return 'no measurable difference';
}

const ratioWithInterval = (timing: TimingSummary) =>
  intervalKindOf(timing) === 'estimate'
    ? `${ratio(timing.ratio)}× (${ratio(timing.low)}–${ratio(timing.high)}×)`
    : `${ratio(timing.ratio)}×`;

/** What the interval rests on (a result from before the server said so: blocks of this run, or one block). */
function intervalKindOf(timing: TimingSummary): NonNullable<TimingSummary['intervalKind']> {
  return timing.intervalKind ?? ((timing.blocks ?? 1) >= 2 ? 'estimate' : 'none');
}

/** Each metric's speed answer, named with the scope its official script times. */
const METRIC_RATIOS = {
  ves: { label: 'VES time ratio', scope: 'first row, as the VES script times it', description: QUANTITY_DESCRIPTIONS.firstRowRatio },
  rves: { label: 'R-VES time ratio', scope: 'all rows, as the R-VES script times it', description: QUANTITY_DESCRIPTIONS.allRowsRatio },
} as const;

/**
 * The interval is an estimate: the spread between this run's blocks, taken within one sitting (the CLI's eval takes
 * a pair's blocks minutes apart). One block measures no spread at all: no interval then, and no verdict.
 */
const ESTIMATE_TITLE =
  "Estimated from the spread between this run's blocks, timed one after another: where 95 % of repeat runs should land " +
  '(bench/results/scorePanelTiming.md measures how often they do). Re-run with more iterations for more blocks.';

function intervalLine(timing: TimingSummary): HTMLDivElement {
  if (intervalKindOf(timing) === 'none')
    return h('div', { className: 'detail interval muted' }, 'no interval: timed in one block, no spread measured');
  return h(
    'div',
    { className: 'detail interval', title: ESTIMATE_TITLE },
    `estimated interval ${ratio(timing.low)}–${ratio(timing.high)}×`,
    h('span', { className: 'muted' }, ` (95 %, ${counted(timing.blocks ?? 1, 'block')} of this run)`),
  );
}

/** From a pair's third run on: its ratio over the runs, and the interval measured between them (server/score/repeatRuns.ts). */
function repeatLine(timing: TimingSummary): HTMLDivElement | null {
  const repeat = timing.repeat;
  if (!repeat) return null;
  return h(
    'div',
    {
      className: 'detail repeat',
      title: "Measured between this pair's Score runs, as the CLI's eval measures between its passes: where 95 % of next runs land.",
    },
    `over ${repeat.runs} runs: ${ratio(repeat.ratio)}× · repeat interval ${ratio(repeat.low)}–${ratio(repeat.high)}×`,
    h('span', { className: 'muted' }, ' (95 %)'),
  );
}

/** What the verdict rests on: the runs' repeat interval where there is one, else this run's estimate. */
const answerOf = (timing: TimingSummary) => timing.repeat ?? timing;

function ratioCard(metric: keyof typeof METRIC_RATIOS, timing: TimingSummary, previous: TimingSummary | null | undefined): HTMLDivElement {
  const { label, scope, description } = METRIC_RATIOS[metric];
  const measured = Boolean(timing.repeat) || intervalKindOf(timing) !== 'none';
  return h(
    'div',
    { className: `card ratio-${metric}`, title: description },
    h('div', { className: 'label' }, label),
    h('div', { className: 'detail scope' }, scope),
    h('div', { className: 'value' }, `${ratio(timing.ratio)}×`),
    intervalLine(timing),
    h(
      'div',
      { className: 'detail' },
      `${counted(timing.runs, 'run')} · median gold ${milliseconds(timing.goldMs)} ms, prediction ${milliseconds(timing.predMs)} ms`,
    ),
    repeatLine(timing),
    h('div', { className: 'detail' }, measured ? verdict(answerOf(timing)) : 'no verdict from one block'),
    previous ? h('div', { className: 'detail previous' }, `before: ${ratioWithInterval(previous)}`) : null,
  );
}

/**
 * The two ratios time different things and may point opposite ways (q738: gold reaches its first row sooner, the
 * prediction drains all its rows far sooner): said once, so that the cards do not read as a contradiction.
 */
export function scopeNote(result: ScoreResult): HTMLParagraphElement | null {
  const { ves, rves } = result.timings;
  if (!ves || !rves || result.same_program || intervalKindOf(ves) === 'none' || intervalKindOf(rves) === 'none') return null;
  const first = answerOf(ves).verdict;
  const all = answerOf(rves).verdict;
  if (first === all || first === 'no-difference' || all === 'no-difference') return null;
  const [sooner, later] = first === 'slower' ? ['gold', 'the prediction'] : ['the prediction', 'gold'];
  return h(
    'p',
    { className: 'scope-note muted' },
    `Not a contradiction: ${sooner} returns its first row sooner (what VES times), ${later} finishes all its rows sooner (what R-VES times); each metric scores its own.`,
  );
}

function fill(p: number): HTMLSpanElement {
  const bar = h('span', { className: 'bucket-fill' });
  bar.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`; // through the CSSOM: the CSP forbids style attributes
  return bar;
}

function bucketBars(result: ScoreResult, probabilities: Record<string, number>): HTMLDivElement {
  const buckets = Object.entries(probabilities)
    .map(([reward, p]) => ({ reward, p }))
    .sort((a, b) => Number(b.reward) - Number(a.reward));
  return h(
    'div',
    { className: 'buckets', role: 'list', 'aria-label': 'probability that a repeat run lands in each reward bucket' },
    buckets.map(({ reward, p }) =>
      h(
        'div',
        { className: 'bucket', role: 'listitem', title: bucketRangeText(result, reward) },
        h('span', { className: 'bucket-reward' }, reward),
        h('span', { className: 'bucket-bar', 'aria-hidden': 'true' }, fill(p)),
        h('span', { className: 'bucket-p' }, percent(p)),
      ),
    ),
  );
}

function rewardCard(result: ScoreResult): HTMLDivElement {
  if (result.same_program) {
    const sameCard = card(QUANTITY_LABELS.rvesReward, String(result.rves_reward ?? 1), 'ratio 1 by construction');
    sameCard.append(termLine(result) ?? '');
    return sameCard;
  }
  const probabilities = result.rves_bucket_probabilities;
  const reward = result.rves_reward;
  const range = reward === null ? '' : bucketRangeText(result, reward);
  const detail: Child[] = [h('div', {}, range ? `bucket ${range}` : '')];
  if (result.rves_uncertain && probabilities) {
    detail.push(
      h('div', {}, 'near a bucket edge: a repeat run lands in (estimated)'),
      bucketBars(result, probabilities),
      h('div', { className: 'expected' }, `→ expected reward ${fixed(result.rves_expected_reward)}`),
    );
  } else if (result.rves_uncertain) {
    detail.push(h('div', {}, 'the interval crosses a bucket edge'));
  } else if (probabilities && probabilities[String(reward)] !== undefined) {
    detail.push(h('div', {}, `settled: ${percent(probabilities[String(reward)])} of repeat runs (estimated)`));
  } else {
    detail.push(h('div', {}, 'bucket settled'));
  }
  return h(
    'div',
    { className: 'card reward', title: QUANTITY_DESCRIPTIONS.rvesReward },
    h('div', { className: 'label' }, QUANTITY_LABELS.rvesReward),
    h('div', { className: 'value' }, reward === null || reward === undefined ? '–' : String(reward)),
    h('div', { className: 'detail' }, detail),
    termLine(result),
  );
}

/** The R-VES term this question adds (√reward, what the Report's term column shows), named apart from the reward. */
function termLine(result: ScoreResult): HTMLDivElement | null {
  if (result.rves === null || result.rves === undefined) return null;
  return h(
    'div',
    { className: 'detail term', title: QUANTITY_DESCRIPTIONS.rvesTerm },
    `${QUANTITY_LABELS.rvesTerm}: ${fixed(result.rves, 3)}`,
    h('span', { className: 'muted' }, ' (R-VES = 100 × its mean)'),
  );
}

/** The cards of a result; `previous` is the result a re-run replaces (its ratios are shown as "before"). */
export function scoreCards(result: ScoreResult, partial: boolean, previous: ScoreResult | null): HTMLDivElement[] {
  const list = [
    card(
      'outcome',
      OUTCOME_LABELS[result.outcome] ?? plainText(result.outcome),
      result.error ? plainText(result.error) : '',
      `outcome-${result.outcome}`,
    ),
    card('EX', String(result.ex)),
    card('Soft-F1', fixed(result.f1, 3)),
  ];
  const t = result.timings.ves;
  const rt = result.timings.rves;
  if (result.same_program) {
    list.push(
      h(
        'div',
        { className: 'card same-program' },
        h('div', { className: 'label' }, 'same program'),
        h('div', { className: 'value' }, '1×'),
        h('div', { className: 'detail' }, 'as gold: identical work,'),
        h('div', { className: 'detail' }, 'ratio 1 by construction, not timed'),
      ),
    );
    list.push(rewardCard(result));
  } else if (t || rt) {
    if (t) list.push(ratioCard('ves', t, previous?.timings.ves));
    if (rt) list.push(ratioCard('rves', rt, previous?.timings.rves));
    if (rt || result.rves_reward !== null) list.push(rewardCard(result));
  } else if (partial) {
    list.push(card('time ratio', '…', 'timing runs in progress'));
  }
  return list;
}
