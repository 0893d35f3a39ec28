/**
 * SQLMorph's greedy partial matching, computed without its cubic loop.
 *
 * SQLMorph repeats: scan every remaining (gold, predicted) pair, gold-major, keep the first pair with the
 * highest similarity (strict `>`), stop when that is 0, else remove both rows. Similarities never change, and
 * a pair once unavailable stays so; hence the pairs it takes are exactly those met, in the order "similarity
 * descending, then gold index, then predicted index", whose two rows are both still free. That order is one
 * counting sort of the pairs by similarity level: O(G·P) time and 6 bytes a pair instead of O(G·P·min(G,P)).
 */

/** Most (gold × predicted) leftover pairs the partial matching takes on; beyond it a technique reports an error. */
export const MAX_PARTIAL_PAIRS = 10_000_000;

export class TooManyPairs extends Error {
  constructor(
    readonly gold: number,
    readonly predicted: number,
  ) {
    super(
      `partial matching not computed: ${gold.toLocaleString('en-US')} × ${predicted.toLocaleString('en-US')} unmatched rows ` +
        `exceed the bound of ${MAX_PARTIAL_PAIRS.toLocaleString('en-US')} row pairs`,
    );
  }
}

export interface GreedyPair {
  gold: number;
  predicted: number;
  /** Index into the `levels` the caller gave (0 = the highest similarity). */
  level: number;
}

/**
 * The pairs SQLMorph's greedy loop takes, in the order it takes them. `levelOf(g, p)` gives a pair's
 * similarity as an index into the caller's distinct similarity values sorted descending, or -1 for a
 * similarity of 0 (never taken).
 */
export function greedyPairs(
  goldCount: number,
  predictedCount: number,
  levelCount: number,
  levelOf: (g: number, p: number) => number,
): GreedyPair[] {
  if (goldCount === 0 || predictedCount === 0 || levelCount === 0) return [];
  if (goldCount * predictedCount > MAX_PARTIAL_PAIRS) throw new TooManyPairs(goldCount, predictedCount);
  const pairCount = goldCount * predictedCount;
  const levels = levelCount < 0xffff ? new Uint16Array(pairCount) : new Uint32Array(pairCount);
  const none = levelCount < 0xffff ? 0xffff : 0xffffffff;
  const perLevel = new Uint32Array(levelCount + 1);
  for (let g = 0, i = 0; g < goldCount; g++) {
    for (let p = 0; p < predictedCount; p++, i++) {
      const level = levelOf(g, p);
      levels[i] = level < 0 ? none : level;
      if (level >= 0) perLevel[level + 1]++;
    }
  }
  for (let l = 1; l <= levelCount; l++) perLevel[l] += perLevel[l - 1];
  const order = new Uint32Array(perLevel[levelCount]);
  const next = perLevel.slice(0, levelCount);
  for (let i = 0; i < pairCount; i++) if (levels[i] !== none) order[next[levels[i]]++] = i;

  const goldUsed = new Uint8Array(goldCount);
  const predictedUsed = new Uint8Array(predictedCount);
  const taken: GreedyPair[] = [];
  const limit = Math.min(goldCount, predictedCount);
  for (let k = 0; k < order.length && taken.length < limit; k++) {
    const i = order[k];
    const g = Math.floor(i / predictedCount);
    const p = i - g * predictedCount;
    if (goldUsed[g] || predictedUsed[p]) continue;
    goldUsed[g] = 1;
    predictedUsed[p] = 1;
    taken.push({ gold: g, predicted: p, level: levels[i] });
  }
  return taken;
}
