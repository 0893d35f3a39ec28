import { ShardInfo } from './reportFile';

/** `--shard i/n`: the i-th of n shards (1-based), each scoring every n-th question of the question file. */
export interface Shard {
  index: number;
  count: number;
}

/** Parses `i/n` (1 ≤ i ≤ n ≤ 100,000); the error message names what is wrong, for a UsageError. */
export function parseShard(text: string): Shard | { error: string } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) return { error: `expected i/n, e.g. 1/4 (the first of four shards), got ${JSON.stringify(text)}` };
  const [index, count] = [Number(m[1]), Number(m[2])];
  if (count < 1 || count > 100_000) return { error: `the shard count must be from 1 to 100000, got ${count}` };
  if (index < 1 || index > count) return { error: `the shard number must be from 1 to ${count}, got ${index}` };
  return { index, count };
}

/** Whether the question at this position of the question file belongs to the shard: positions i−1, i−1+n, i−1+2n, ... */
export function inShard(position: number, shard: Shard): boolean {
  return position % shard.count === shard.index - 1;
}

/**
 * The shard's part of a list in question-file order (tasks, questions). Interleaving, rather than cutting the
 * file into blocks, spreads databases and difficulties evenly, so shards take about the same time.
 */
export function shardOf<T>(items: readonly T[], shard: Shard | undefined, position: (item: T, i: number) => number = (_, i) => i): T[] {
  return shard ? items.filter((item, i) => inShard(position(item, i), shard)) : [...items];
}

/** What a shard's report says about itself (`inputs.shard`). */
export function shardInfo(shard: Shard, questions: number): ShardInfo {
  return { index: shard.index, count: shard.count, of_questions: questions };
}
