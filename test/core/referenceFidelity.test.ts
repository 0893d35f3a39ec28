import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { loadPredictions } from '../../src/core/bird/predictions';
import { loadQuestions } from '../../src/core/bird/questions';
import { evaluateTasks } from '../../src/core/eval/evaluate';
import { buildTasks } from '../../src/core/bird/tasks';
import { Outcome } from '../../src/core/eval/types';
import { BIRD_DATA, birdDataMissing } from '../helpers';
import { sqliteFolder } from '../../src/core/db/source';

/** The reference's outcome field (ok / error / timeout) as the official scripts see ours. */
const OFFICIAL_OUTCOME: Record<Outcome, string> = {
  correct: 'ok',
  mismatch: 'ok',
  prediction_error: 'error',
  refused: 'error',
  gold_error: 'error',
  timeout: 'timeout',
  locked: 'error',
  skipped: 'skipped',
};

interface ReferenceLine {
  index: number;
  question_id: number;
  db_id: string;
  difficulty: string;
  ex: number;
  f1: number;
  outcome: string;
}

const skip = birdDataMissing();
const predictionDir = path.join(BIRD_DATA, 'predictions', 'minidev-official');
const files = skip ? [] : fs.readdirSync(predictionDir).filter((f) => f.endsWith('.json'));

describe('EX and Soft-F1 equal the official mini_dev scripts question by question', { skip }, () => {
  it('has the four official prediction files', () => assert.equal(files.length, 4));

  for (const file of files) {
    it(file, async () => {
      const questions = loadQuestions(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'));
      const gold = loadGold(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'));
      const predictions = loadPredictions(path.join(predictionDir, file));
      const tasks = buildTasks(questions.questions, predictions, gold, []);
      const results = await evaluateTasks(tasks, {
        source: sqliteFolder(path.join(BIRD_DATA, 'databases')),
        metrics: ['ex', 'f1'],
        timing: 'fast',
        timeoutMs: 30_000,
        maxRows: 1_000_000,
      });
      const byIndex = new Map(results.map((r) => [r.index, r]));
      const reference: ReferenceLine[] = fs
        .readFileSync(path.join(BIRD_DATA, 'reference', file.replace(/\.json$/, '.jsonl')), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      assert.equal(reference.length, 140);

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
        if (OFFICIAL_OUTCOME[ours.outcome] !== ref.outcome) {
          disagreements.push(`question ${ref.question_id}: outcome ${ours.outcome}, official ${ref.outcome}`);
        }
      }
      assert.deepEqual(disagreements, [], `${140 - disagreements.length}/140 agree`);
      // Questions on the eight absent databases are skipped, not scored as wrong.
      assert.equal(results.filter((r) => r.outcome === 'skipped').length, 360);
    });
  }
});
