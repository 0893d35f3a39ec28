import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIRD_DATA } from './helpers';

/** One line of the shared reference: what the official mini_dev scripts gave for one question of one prediction file. */
export interface ReferenceLine {
  index: number;
  question_id: number;
  db_id: string;
  difficulty: string;
  ex: number;
  f1: number;
  outcome: string;
}

/** What a scored question must agree on with the reference (a report's question, or evaluateTasks' result). */
export interface ScoredQuestion {
  index: number;
  question_id: number | string;
  db_id: string;
  difficulty: string;
  ex?: number | null;
  f1?: number | null;
  outcome: string;
}

/** The official prediction files of the shared data (the reference has one .jsonl for each). */
export const OFFICIAL_PREDICTION_DIR = path.join(BIRD_DATA, 'predictions', 'minidev-official');

/** The reference's outcome field (ok / error / timeout) as the official scripts see ours. */
const OFFICIAL_OUTCOME: Record<string, string> = {
  correct: 'ok',
  mismatch: 'ok',
  prediction_error: 'error',
  refused: 'error',
  gold_error: 'error',
  timeout: 'timeout',
  locked: 'error',
  skipped: 'skipped',
};

export function referenceLines(predictionFile: string): ReferenceLine[] {
  return fs
    .readFileSync(path.join(BIRD_DATA, 'reference', path.basename(predictionFile).replace(/\.json$/, '.jsonl')), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ReferenceLine);
}

/** Every question where `scored` differs from the official scripts (pairing, EX, Soft-F1, outcome), one line each. */
export function referenceDisagreements(reference: readonly ReferenceLine[], scored: readonly ScoredQuestion[]): string[] {
  const byIndex = new Map(scored.map((r) => [r.index, r]));
  const disagreements: string[] = [];
  for (const ref of reference) {
    const ours = byIndex.get(ref.index);
    if (!ours) {
      disagreements.push(`index ${ref.index}: not scored`);
      continue;
    }
    if (ours.question_id !== ref.question_id || ours.db_id !== ref.db_id || ours.difficulty !== ref.difficulty) {
      disagreements.push(`index ${ref.index}: paired with question ${ours.question_id}, reference ${ref.question_id}`);
    }
    if (ours.ex !== ref.ex) disagreements.push(`question ${ref.question_id}: EX ${ours.ex}, official ${ref.ex}`);
    if (Math.abs((ours.f1 ?? NaN) - ref.f1) > 1e-12)
      disagreements.push(`question ${ref.question_id}: Soft-F1 ${ours.f1}, official ${ref.f1}`);
    if (OFFICIAL_OUTCOME[ours.outcome] !== ref.outcome)
      disagreements.push(`question ${ref.question_id}: outcome ${ours.outcome}, official ${ref.outcome}`);
  }
  return disagreements;
}
