/**
 * The Score use case's repeat interval (the editor's Score panel), measured as the CLI's eval measures its own: a pair's ratio taken at separated
 * moments (here its Score runs, there its passes over the questions), their spread moderated by the prior and a
 * Student t giving where the next run lands (core's estimateRatio, each run one block). The interval of a single run
 * comes from blocks timed one after another, which miss the spread between sittings (bench/scorePanelTiming.ts
 * measures both): from the third run of a pair on, the panel has a measured one beside it.
 */
import { estimateRatio } from '../core/timing/estimate';
import { SpeedVerdict, speedVerdict } from '../core/timing/verdict';

/** Runs before the spread between them is an interval (two runs are one difference). */
export const MIN_REPEAT_RUNS = 3;
/** The latest runs of a pair kept: how the machine times it now. */
const RUNS_KEPT = 10;
/** Pairs remembered, the least recently scored forgotten first. */
const PAIRS_KEPT = 200;

/** A pair's ratio over its runs, where 95 % of next runs land, and core's speed verdict on them. */
export interface RepeatInterval {
  runs: number;
  ratio: number;
  low: number;
  high: number;
  verdict: SpeedVerdict;
}

/** A timed quantity of one run, as the Score use case keeps it (core's TimingResult or a face's copy of it). */
type Timed = { ratio: number; sameProgram?: boolean };
type Timings<T> = { ves?: T; rves?: T };
type Quantity = keyof Timings<Timed>;

export class RepeatRuns {
  private readonly pairs = new Map<string, Partial<Record<Quantity, number[]>>>();

  /**
   * Adds this run's ratios to the pair's (`key` names the engine, database, gold and prediction) and returns the
   * timings with each quantity's repeat interval once the pair has MIN_REPEAT_RUNS runs of it.
   */
  add<T extends Timed>(key: string, timings: Timings<T>): Timings<T & { repeat?: RepeatInterval }> {
    const runs = this.pairs.get(key) ?? {};
    this.pairs.delete(key); // re-inserted last: the most recently scored
    this.pairs.set(key, runs);
    if (this.pairs.size > PAIRS_KEPT) this.pairs.delete(this.pairs.keys().next().value!);
    const out: Timings<T & { repeat?: RepeatInterval }> = {};
    for (const quantity of ['ves', 'rves'] as const) {
      const timing = timings[quantity];
      if (!timing) continue;
      out[quantity] = timing;
      // Nothing measured (the same program) adds no run.
      if (timing.sameProgram || !(timing.ratio > 0)) continue;
      const ratios = [...(runs[quantity] ?? []), timing.ratio].slice(-RUNS_KEPT);
      runs[quantity] = ratios;
      if (ratios.length >= MIN_REPEAT_RUNS) out[quantity] = { ...timing, repeat: repeatOf(ratios) };
    }
    return out;
  }
}

function repeatOf(ratios: readonly number[]): RepeatInterval {
  const estimate = estimateRatio(ratios.map((ratio) => [ratio]));
  return { runs: ratios.length, ratio: estimate.ratio, low: estimate.low, high: estimate.high, verdict: speedVerdict(estimate) };
}
