import { counted } from '../text/numberText';
import { TimingResult } from './types';

/** What a measured ratio (t_before / t_after) lets one say, reproducibly. */
export type SpeedVerdict = 'faster' | 'slower' | 'no-difference';

/**
 * Smallest change reported as one. A verdict must hold on a second run: "faster" needs the whole repeat
 * interval above 1 and a ratio of at least 1.10, so a 4 % blip near the edge never becomes a claim that the
 * next run takes back.
 */
export const MEANINGFUL_RATIO = 1.1;

export function speedVerdict(timing: Pick<TimingResult, 'ratio' | 'low' | 'high'>): SpeedVerdict {
  if (timing.low > 1 && timing.ratio >= MEANINGFUL_RATIO) return 'faster';
  if (timing.high < 1 && timing.ratio <= 1 / MEANINGFUL_RATIO) return 'slower';
  return 'no-difference';
}

/** "1.82× as fast (repeat interval 1.71–1.93×; 3 blocks, 12 runs)", in words a person reads once. */
export function describeSpeed(timing: TimingResult, subject = 'the rewrite'): string {
  const interval = `repeat interval ${timing.low.toFixed(2)}–${timing.high.toFixed(2)}×; ${counted(timing.blocks ?? 1, 'block')}, ${counted(timing.runs, 'run')}`;
  const verdict = speedVerdict(timing);
  if (verdict === 'faster') return `${subject} is ${timing.ratio.toFixed(2)}× as fast (${interval})`;
  if (verdict === 'slower') return `${subject} is slower: ${timing.ratio.toFixed(2)}× (${interval})`;
  return `no measurable difference: ${timing.ratio.toFixed(2)}× (${interval}; under ${Math.round((MEANINGFUL_RATIO - 1) * 100)} % or within the noise is not a difference)`;
}

/** "prediction scales worse: 1.0× at ×1, 0.08× at ×100", from the smallest and largest scale measured. */
export function growthVerdict(
  byScale: Record<string, number | null>,
  subjects: { faster: string; slower: string } = { faster: 'prediction', slower: 'gold' },
): string {
  const measured = Object.entries(byScale)
    .filter((entry): entry is [string, number] => entry[1] !== null)
    .sort((a, b) => Number(a[0]) - Number(b[0]));
  if (measured.length < 2) return 'not enough scales measured to say how it grows';
  const [[smallScale, small], [largeScale, large]] = [measured[0], measured[measured.length - 1]];
  const trend = `${small.toFixed(2)}× at ×${smallScale}, ${large.toFixed(2)}× at ×${largeScale}`;
  // The same 10 % margin as every other speed claim: a change of the ratio by less is not a trend.
  const change = speedVerdict({ ratio: large / small, low: large / small, high: large / small });
  if (change === 'faster') return `${subjects.faster} scales better than ${subjects.slower}: ${trend}`;
  if (change === 'slower') return `${subjects.faster} scales worse than ${subjects.slower}: ${trend}`;
  return `${subjects.faster} and ${subjects.slower} grow alike: ${trend}`;
}
