import * as path from 'node:path';
import { BIRD_DATA, runCli } from './helpers';

/** The mini-dev question file (v1, 2024) and the official GPT-4 and Llama-3 prediction files of the shared data. */
export const MINIDEV_QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
export const MINIDEV_GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql');
/** `--questions`, `--gold` and `--db-root` of mini-dev v1 on the shared databases, for eval and audit alike. */
export const MINIDEV_INPUTS = ['--questions', MINIDEV_QUESTIONS, '--gold', MINIDEV_GOLD, '--db-root', path.join(BIRD_DATA, 'databases')];
export const OFFICIAL_PREDICTIONS = (model: 'gpt-4' | 'meta-llama-3-8b-instruct-2') =>
  path.join(BIRD_DATA, 'predictions', 'minidev-official', `predict_mini_dev_${model}_sqlite.json`);

/**
 * Runs the real `ves-lens eval` on the shared BIRD databases and returns the JSON report's path (and the HTML's,
 * when asked). `metrics` decides whether it is timed (ves / rves); `shard` keeps timed runs short.
 */
export function evalReport(
  dir: string,
  name: string,
  options: { model: 'gpt-4' | 'meta-llama-3-8b-instruct-2'; metrics: string; shard?: string; html?: boolean },
): { json: string; html?: string } {
  const json = path.join(dir, `${name}.json`);
  const html = options.html ? path.join(dir, `${name}.html`) : undefined;
  const args = ['eval', '--questions', MINIDEV_QUESTIONS, '--predictions', OFFICIAL_PREDICTIONS(options.model)];
  args.push('--db-root', path.join(BIRD_DATA, 'databases'), '--metrics', options.metrics, '--json', json);
  if (options.shard) args.push('--shard', options.shard);
  if (html) args.push('--html', html);
  const result = runCli(args, { timeout: 180_000 });
  if (result.status !== 0) throw new Error(`eval ${name} exited ${result.status}: ${result.stderr}`);
  return { json, html };
}
