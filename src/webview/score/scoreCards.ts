// The Score panel's cards: outcome, EX and Soft-F1; the time ratio of both timed quantities (VES's first row,
// R-VES's every row) with the interval a repeat run lands in; the R-VES reward with its bucket probabilities.
import { OUTCOME_LABELS, QUANTITY_DESCRIPTIONS, QUANTITY_LABELS } from '../../core/eval/labels';
import { RVES_BUCKET_RANGES } from '../../core/metrics/efficiency';
import { speedVerdict } from '../../core/timing/verdict';
import { plainText } from '../../core/text/terminalText';
import type { ScoreResult, TimingSummary } from '../../shared/protocol';
import { Child, h } from '../common/dom';
import { card } from '../common/elements';
import { counted, fixed, milliseconds } from '../common/format';
import { percent, ratio } from './scoreFormat';

/** The ratio range of an R-VES reward bucket: "ratio ≥ 2", "0.5 ≤ ratio < 1", "ratio < 0.25". */
export function bucketRangeText(reward: number | string): string {
  const bucket = RVES_BUCKET_RANGES.find((b) => b.reward === Number(reward));
  if (!bucket) return '';
  if (bucket.atLeast === 0) return `ratio < ${bucket.below}`;
  if (bucket.below === Infinity) return `ratio ≥ ${bucket.atLeast}`;
  return `${bucket.atLeast} ≤ ratio < ${bucket.below}`;
}

/** core's speed verdict on t_gold / t_pred: "faster" there means the prediction is. */
function verdict(timing: TimingSummary): Child {
  const speed = speedVerdict(timing);
  if (speed === 'faster') return h('span', { className: 'diff-good' }, 'prediction faster');
  if (speed === 'slower') return h('span', { className: 'diff-bad' }, 'gold faster');
  return 'no measurable difference';
}

const ratioWithInterval = (timing: TimingSummary) => `${ratio(timing.ratio)}× (${ratio(timing.low)}–${ratio(timing.high)}×)`;

/**
 * Where the interval comes from when a quantity was timed in one block (an R-VES bucket far from every edge, or a
 * loop past the official limit): with no spread between blocks to measure, it is the prior spread between runs.
 */
const ONE_BLOCK_TEXT = 'one block: the interval is the usual spread between runs (calibrated beforehand), not measured on this pair';

function ratioCard(label: string, timing: TimingSummary, previous: TimingSummary | null | undefined): HTMLDivElement {
  const counts = [timing.blocks ? counted(timing.blocks, 'block') : null, counted(timing.runs, 'run')].filter(Boolean).join(' · ');
  const title = 't_gold / t_pred: above 1, the prediction is faster. The interval holds 95 % of the ratios a repeat run reports.';
  const oneBlock = timing.blocks === 1 ? h('div', { className: 'detail muted one-block' }, ONE_BLOCK_TEXT) : null;
  return h(
    'div',
    { className: 'card', title },
    h('div', { className: 'label' }, label),
    h('div', { className: 'value' }, `${ratio(timing.ratio)}×`),
    h(
      'div',
      { className: 'detail interval' },
      `repeat interval ${ratio(timing.low)}–${ratio(timing.high)}×`,
      h('span', { className: 'muted' }, ' (95 %)'),
    ),
    h('div', { className: 'detail' }, counts),
    oneBlock,
    h('div', { className: 'detail' }, verdict(timing)),
    previous ? h('div', { className: 'detail previous' }, `before: ${ratioWithInterval(previous)}`) : null,
  );
}

function fill(p: number): HTMLSpanElement {
  const bar = h('span', { className: 'bucket-fill' });
  bar.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`; // through the CSSOM: the CSP forbids style attributes
  return bar;
}

function bucketBars(probabilities: Record<string, number>): HTMLDivElement {
  const buckets = Object.entries(probabilities)
    .map(([reward, p]) => ({ reward, p }))
    .sort((a, b) => Number(b.reward) - Number(a.reward));
  return h(
    'div',
    { className: 'buckets', role: 'list', 'aria-label': 'probability that a repeat run lands in each reward bucket' },
    buckets.map(({ reward, p }) =>
      h(
        'div',
        { className: 'bucket', role: 'listitem', title: bucketRangeText(reward) },
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
  const range = reward === null ? '' : bucketRangeText(reward);
  const detail: Child[] = [h('div', {}, range ? `bucket ${range}` : '')];
  if (result.rves_uncertain && probabilities) {
    detail.push(
      h('div', {}, 'near a bucket edge: a repeat run lands in'),
      bucketBars(probabilities),
      h('div', { className: 'expected' }, `→ expected reward ${fixed(result.rves_expected_reward)}`),
    );
  } else if (result.rves_uncertain) {
    detail.push(h('div', {}, 'the interval crosses a bucket edge'));
  } else if (probabilities && probabilities[String(reward)] !== undefined) {
    detail.push(h('div', {}, `settled: ${percent(probabilities[String(reward)])} of repeat runs`));
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
    if (t) list.push(ratioCard(QUANTITY_LABELS.firstRowRatio, t, previous?.timings.ves));
    if (rt) list.push(ratioCard(QUANTITY_LABELS.allRowsRatio, rt, previous?.timings.rves));
    if (rt || result.rves_reward !== null) list.push(rewardCard(result));
    const m = (t ?? rt)!;
    list.push(card('median time', `${milliseconds(m.predMs)} ms`, `gold ${milliseconds(m.goldMs)} ms · ${t ? 'first row' : 'all rows'}`));
  } else if (partial) {
    list.push(card('time ratio', '…', 'timing runs in progress'));
  }
  return list;
}
