import { median, sampleStandardDeviation } from 'simple-statistics';
import { QueryCancelled, QueryTimeout } from '../db/database';
import { engineFor, timeExecution } from '../db/engines';
import { officialTimingClock, timeWithPython } from './pythonTimer';
import { hodgesLehmann, officialClean, pythonMean } from './stats';
import { TimingResult } from './types';

/**
 * `ves`: DAMO-ConvAI's evaluation_ves.py (the BIRD paper's VES). `rves`: bird-bench/mini_dev's
 * evaluation_ves.py (R-VES). They time different things, so each metric gets its own protocol.
 */
export type OfficialProtocol = 'ves' | 'rves';

export const OFFICIAL_ITERATIONS = 100;

/** The limit both official scripts put on a pair's whole timing loop: func_timeout(meta_time_out * iterate_num). */
export function officialLoopLimitMs(timeoutMs: number, iterations = OFFICIAL_ITERATIONS): number {
  return timeoutMs * iterations;
}

/** One execution on a fresh connection, timed as the metric's own script times it. */
async function timeOnFreshConnection(
  dbPath: string,
  body: string,
  protocol: OfficialProtocol,
  deadline: number,
  budgetMs: number,
): Promise<number> {
  if (performance.now() > deadline) throw new QueryTimeout(budgetMs);
  // DAMO times cursor.execute() alone (prepare and the first step); mini_dev times execute, fetchall and close.
  return timeExecution(dbPath, body, protocol === 'ves' ? 'first-row' : 'full', { deadline, budgetMs });
}

/** The loop's times in milliseconds and its ratios, or how it ended early. */
interface OfficialSamples {
  goldSamples: number[];
  predSamples: number[];
  ratios: number[];
  timedOut: boolean;
  /** Python's sqlite3 found set(pred) != set(gold) in the loop's correctness run: the scripts score the pair 0. */
  resultsDiffer?: string;
  notes: string[];
}

/** One pair's official loop: what is timed, how, how often, and within which limit. */
interface OfficialLoop {
  dbPath: string;
  goldBody: string;
  predBody: string;
  protocol: OfficialProtocol;
  loopLimitMs: number;
  iterations: number;
  signal?: AbortSignal;
}

/** VES Lens's own loop: node-sqlite3 and performance.now() (PostgreSQL's engines, and SQLite without python3). */
async function nodeSamples(loop: OfficialLoop) {
  const { dbPath, goldBody, predBody, protocol, loopLimitMs, iterations, signal } = loop;
  const deadline = performance.now() + loopLimitMs;
  const samples: OfficialSamples = { goldSamples: [], predSamples: [], ratios: [], timedOut: false, notes: [] };
  try {
    for (let i = 0; i < iterations; i++) {
      if (signal?.aborted) throw new QueryCancelled();
      const pred = await timeOnFreshConnection(dbPath, predBody, protocol, deadline, loopLimitMs);
      const gold = await timeOnFreshConnection(dbPath, goldBody, protocol, deadline, loopLimitMs);
      samples.predSamples.push(pred);
      samples.goldSamples.push(gold);
      samples.ratios.push(gold / pred);
    }
  } catch (error) {
    if (!(error instanceof QueryTimeout)) throw error;
    samples.timedOut = true;
  }
  return samples;
}

/** The scripts' own loop in Python's sqlite3 (pythonTimer.ts); each ratio divides the seconds as Python does. */
async function pythonSamples(loop: OfficialLoop, sqlite: string) {
  const { dbPath, goldBody, predBody, protocol, loopLimitMs, iterations, signal } = loop;
  const times = await timeWithPython({ dbPath, gold: goldBody, pred: predBody, protocol, iterations, loopLimitMs, signal });
  const samples: OfficialSamples = {
    goldSamples: times.goldSeconds.map((s) => s * 1000),
    predSamples: times.predSeconds.map((s) => s * 1000),
    ratios: times.goldSeconds.map((gold, i) => gold / times.predSeconds[i]),
    timedOut: times.timedOut,
    notes: [],
  };
  if (times.resultsEqual === false)
    samples.resultsDiffer =
      `Python's sqlite3 (SQLite ${sqlite}) returns different rows for the two queries ` +
      "(set(pred) != set(gold) in the scripts' correctness run), so the scripts on this machine score it 0";
  return samples;
}

/** Which loop times a pair: Python's sqlite3 for a SQLite file where python3 runs, else VES Lens's own. */
async function officialSamples(loop: OfficialLoop): Promise<OfficialSamples> {
  const clock = engineFor(loop.dbPath).name === 'sqlite' ? await officialTimingClock() : undefined;
  return clock?.clock === 'python-sqlite3' ? pythonSamples(loop, clock.sqlite) : nodeSamples(loop);
}

/**
 * The official protocol: `iterations` times, prediction then gold, ratio t_gold / t_pred; ratios outside
 * mean ± 3σ dropped; the mean of the rest. On SQLite the loop runs in Python's sqlite3 as the scripts run it,
 * where python3 is present (officialTimingClock says which). The whole loop shares one limit, `iterations` ×
 * the time limit (both scripts: func_timeout(meta_time_out * iterate_num, ...), 3000 s by default), and a loop
 * that outlasts it scores 0. When every ratio is equal (σ = 0), the scripts keep nothing and score 0; that is
 * reproduced, and said in the note. An aborted `signal` ends the loop (QueryCancelled): a cut loop is no measurement.
 */
export async function measureOfficial(
  dbPath: string,
  goldBody: string,
  predBody: string,
  protocol: OfficialProtocol,
  timeoutMs: number,
  iterations = OFFICIAL_ITERATIONS,
  signal?: AbortSignal,
): Promise<TimingResult> {
  const name = `official-${protocol}`;
  const quantity = protocol === 'ves' ? 'first-row' : 'full';
  const loopLimitMs = officialLoopLimitMs(timeoutMs, iterations);
  const { goldSamples, predSamples, ratios, timedOut, resultsDiffer, notes } = await officialSamples({
    dbPath,
    goldBody,
    predBody,
    protocol,
    loopLimitMs,
    iterations,
    signal,
  });
  const scoredZero = (note: string): TimingResult => ({
    protocol: name,
    quantity,
    ratio: 0,
    low: 0,
    high: 0,
    runs: ratios.length,
    goldMs: goldSamples.length ? median(goldSamples) : 0,
    predMs: predSamples.length ? median(predSamples) : 0,
    goldSamples,
    predSamples,
    note: [...notes, note].join('; '),
  });
  if (timedOut)
    return scoredZero(
      `the ${iterations} official timing runs did not finish within ${loopLimitMs / 1000} s (${iterations} × the ${timeoutMs / 1000} s time limit, as the scripts' func_timeout); the official scripts score this question 0`,
    );
  if (resultsDiffer) return scoredZero(resultsDiffer);
  // A prediction timed at 0 s: the scripts' gold / pred raises ZeroDivisionError, which their loop scores 0.
  if (predSamples.some((ms) => ms === 0))
    return scoredZero(
      "a prediction execution measured 0 s on the clock, so the scripts' t_gold / t_pred raises ZeroDivisionError and scores 0",
    );
  const kept = officialClean(ratios);
  const ratio = kept.length ? pythonMean(kept) : 0;
  // The mean of single-execution ratios carries timing noise: a sub-millisecond query that stalls once for a
  // few milliseconds makes one ratio 30x or 0.03x, and a mean of ratios of noisy times sits above the ratio of
  // typical times. The typical ratio (Hodges–Lehmann centre of the log ratios) is the quantity fast mode
  // estimates; both are reported, and a large gap said.
  const measurable = ratios.filter((r) => Number.isFinite(r) && r > 0);
  const typicalRatio = measurable.length ? Math.exp(hodgesLehmann(measurable.map(Math.log))) : ratio;
  const noisy = kept.length > 0 && Math.abs(Math.log(ratio / typicalRatio)) > Math.log(1.1);
  const halfWidth = kept.length > 1 ? (1.96 * sampleStandardDeviation(kept)) / Math.sqrt(kept.length) : 0;
  return {
    protocol: name,
    quantity,
    ratio,
    low: Math.max(0, ratio - halfWidth),
    high: ratio + halfWidth,
    typicalRatio,
    runs: iterations,
    goldMs: median(goldSamples),
    predMs: median(predSamples),
    goldSamples,
    predSamples,
    note: [
      ...notes,
      kept.length
        ? `${ratios.length - kept.length} of ${ratios.length} ratios dropped by the 3σ cleaning` +
          (noisy
            ? `; the mean ratio ${ratio.toFixed(2)} is carried by timing noise (single ratios from ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}): the typical ratio is ${typicalRatio.toFixed(2)}`
            : '')
        : 'all ratios were equal (σ = 0), so the official 3σ cleaning keeps none and scores 0',
    ].join('; '),
  };
}
