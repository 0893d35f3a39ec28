import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { loadPredictions } from '../../src/core/bird/predictions';
import { loadQuestions } from '../../src/core/bird/questions';
import { evaluateTasks } from '../../src/core/eval/evaluate';
import { buildTasks } from '../../src/core/bird/tasks';
import { BIRD_DATA, birdDataMissing } from '../helpers';
import { sqliteFolder } from '../../src/core/db/source';
import { OFFICIAL_PREDICTION_DIR, referenceDisagreements, referenceLines } from '../referenceLines';

const skip = birdDataMissing();
const predictionDir = OFFICIAL_PREDICTION_DIR;
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
      const reference = referenceLines(file);
      assert.equal(reference.length, 140);
      const disagreements = referenceDisagreements(reference, results);
      assert.deepEqual(disagreements, [], `${140 - disagreements.length}/140 agree`);
      // Questions on the eight absent databases are skipped, not scored as wrong.
      assert.equal(results.filter((r) => r.outcome === 'skipped').length, 360);
    });
  }
});
