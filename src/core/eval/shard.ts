import { ShardInfo } from './reportFile';

/** `--shard i/n`: the i-th of n shards (1-based), each scoring every n-th question of the question file. */
export interface Shard {
  index: number;
  count: number;
}

/** Parses `i/n` (1 ≤ i ≤ n ≤ 100,000); the error message names what is wrong, for a UsageError. */
export function parseShard(text: string): Shard | { error: string } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) return { error: `expected i/n, e.g. 1/4 (the first of four shards), or auto, got ${JSON.stringify(text)}` };
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

/** Where `--shard auto` found its shard: said on the terminal, so a wrong array setup shows at once. */
export interface AutoShard extends Shard {
  from: string;
}

const wholeNumber = (text: string | undefined) => (text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : undefined);

/**
 * `--shard auto`: the shard of this array task, from the scheduler's environment. Slurm (`sbatch --array=A-B`):
 * SLURM_ARRAY_TASK_ID within SLURM_ARRAY_TASK_MIN..MAX (with SLURM_ARRAY_TASK_STEP, if any), the count also
 * from SLURM_ARRAY_TASK_COUNT; a Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based), with the count given
 * by `shardCount` (--shard-count: the Job's completions, which Kubernetes does not put in the environment).
 * An explicit `shardCount` must agree with Slurm's. The error names the variables, for a UsageError.
 */
export function autoShard(env: NodeJS.ProcessEnv, shardCount?: number): AutoShard | { error: string } {
  if (env.SLURM_ARRAY_TASK_ID !== undefined) {
    const [id, min, max, step, count] = ['ID', 'MIN', 'MAX', 'STEP', 'COUNT'].map((name) => wholeNumber(env[`SLURM_ARRAY_TASK_${name}`]));
    if (id === undefined) return { error: `SLURM_ARRAY_TASK_ID is ${JSON.stringify(env.SLURM_ARRAY_TASK_ID)}, not a whole number` };
    if (min === undefined || (max === undefined && count === undefined))
      return {
        error:
          'SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_MIN with SLURM_ARRAY_TASK_MAX or _COUNT: is this an sbatch --array job?',
      };
    const stride = step && step > 0 ? step : 1;
    const span = max !== undefined ? Math.floor((max - min) / stride) + 1 : count!;
    if (count !== undefined && count !== span)
      return {
        error: `the Slurm array has ${count} tasks between ${min} and ${max} (SLURM_ARRAY_TASK_COUNT): shards need a contiguous range, e.g. sbatch --array=1-${count}`,
      };
    if (id < min || (id - min) % stride !== 0 || (id - min) / stride >= span)
      return { error: `SLURM_ARRAY_TASK_ID ${id} is not a task of the array ${min}-${max ?? min + (span - 1) * stride}` };
    if (shardCount !== undefined && shardCount !== span)
      return { error: `--shard-count ${shardCount}, but the Slurm array has ${span} tasks (SLURM_ARRAY_TASK_MIN..MAX)` };
    const checked = parseShard(`${(id - min) / stride + 1}/${span}`);
    return 'error' in checked ? checked : { ...checked, from: `Slurm array task ${id} of ${min}-${max ?? min + (span - 1) * stride}` };
  }
  if (env.JOB_COMPLETION_INDEX !== undefined) {
    const index = wholeNumber(env.JOB_COMPLETION_INDEX);
    if (index === undefined) return { error: `JOB_COMPLETION_INDEX is ${JSON.stringify(env.JOB_COMPLETION_INDEX)}, not a whole number` };
    if (shardCount === undefined)
      return { error: "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): give the Job's completions with --shard-count" };
    if (index >= shardCount)
      return { error: `JOB_COMPLETION_INDEX ${index} is not below --shard-count ${shardCount}: is --shard-count the Job's completions?` };
    const checked = parseShard(`${index + 1}/${shardCount}`);
    return 'error' in checked ? checked : { ...checked, from: `Kubernetes completion index ${index}` };
  }
  return {
    error:
      'auto: neither a Slurm array task (SLURM_ARRAY_TASK_ID, from sbatch --array) nor a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) is running this command; give the shard as i/n',
  };
}

/** `--shard i/n` or `--shard auto` (with `--shard-count` for a Kubernetes Indexed Job); undefined without --shard. */
export function resolveShard(
  text: string | undefined,
  shardCountText: string | undefined,
  env: NodeJS.ProcessEnv,
): Shard | AutoShard | undefined | { error: string; option: string } {
  let shardCount: number | undefined;
  if (shardCountText !== undefined) {
    shardCount = wholeNumber(shardCountText);
    if (shardCount === undefined || shardCount < 1 || shardCount > 100_000)
      return { option: '--shard-count', error: `expected a whole number from 1 to 100000, got ${JSON.stringify(shardCountText)}` };
    if (text?.trim() !== 'auto')
      return { option: '--shard-count', error: 'only with --shard auto (an explicit --shard i/n says the count itself)' };
  }
  if (text === undefined) return undefined;
  const shard = text.trim() === 'auto' ? autoShard(env, shardCount) : parseShard(text);
  return 'error' in shard ? { option: '--shard', error: shard.error } : shard;
}
