import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { loadPredictions } from '../../src/core/bird/predictions';
import { loadQuestions } from '../../src/core/bird/questions';
import { buildTasks } from '../../src/core/bird/tasks';
import { sqliteEngine } from '../../src/core/db/sqlite/sqliteEngine';
import { sqliteFolder } from '../../src/core/db/source';
import { evaluateTasks } from '../../src/core/eval/evaluate';
import { checkRobustness } from '../../src/core/eval/robustnessStep';
import { robustnessSummary } from '../../src/core/eval/robustnessSummary';
import { floatDigitsOnly } from '../../src/core/results/counterexample/exFragile';
import { BIRD_DATA, birdDataMissing, REPO_ROOT, sha256, tempDir } from '../helpers';

const skip = birdDataMissing();
const DB_ROOT = path.join(BIRD_DATA, 'databases');
const SHARED = ['student_club', 'superhero', 'toxicology'];
const predictionDir = path.join(BIRD_DATA, 'predictions', 'minidev-official');
const files = skip ? [] : fs.readdirSync(predictionDir).filter((f) => f.endsWith('.json'));
const ORACLE = path.join(REPO_ROOT, 'test', 'oracles', 'counterexample_oracle.py');

function oracle(cases: { database: string; gold: string; prediction: string }[]) {
  const run = spawnSync('/usr/bin/python3', [ORACLE], { input: JSON.stringify(cases), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as { separates?: boolean; gold_rows?: number; prediction_rows?: number; error?: string }[];
}

describe('counterexample databases on the four official mini-dev prediction files', { skip }, () => {
  const before = SHARED.map((db) => sha256(path.join(DB_ROOT, db, `${db}.sqlite`)));
  for (const file of files) {
    it(`${file}: witnesses found, small, and each separates the pair when Python's sqlite3 re-runs it`, async () => {
      const questions = loadQuestions(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'));
      const gold = loadGold(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'));
      const tasks = buildTasks(questions.questions, loadPredictions(path.join(predictionDir, file)), gold, []).filter((t) =>
        SHARED.includes(t.question.dbId),
      );
      const results = await evaluateTasks(tasks, {
        source: sqliteFolder(DB_ROOT),
        metrics: ['ex'],
        timing: 'fast',
        timeoutMs: 30_000,
        maxRows: 100_000,
      });
      const outDir = tempDir('ves-lens-cx-');
      // Budgets kept small for the test; bench/counterexamples.ts measures the default ones. Shrinking is what makes a
      // witness small (checked below), so it gets the time it needs: its default 3 s leave tens of thousands of rows
      // of question 1362's zip_code on a busy machine.
      await checkRobustness(results, tasks, {
        dbRoot: DB_ROOT,
        outDir,
        pairBudgetMs: 1000,
        shrinkMs: 120_000,
        totalBudgetMs: 8000,
        timeoutMs: 30_000,
        maxRows: 100_000,
      });
      const found = results.filter((r) => r.counterexample);
      assert.ok(found.length > 0, 'no counterexample found');
      const taskOf = new Map(tasks.map((t) => [t.question.index, t]));
      for (const r of found) {
        assert.equal(r.outcome, 'correct');
        assert.notEqual(r.equivalence?.verdict, 'equivalent', `question ${r.question_id}: proved equivalent yet a counterexample`);
        const rows = Object.values(r.counterexample!.rows_by_table).reduce((a, b) => a + b, 0);
        assert.ok(rows <= 100, `question ${r.question_id}: witness of ${rows} rows`);
        assert.ok(path.dirname(r.counterexample!.database) === outDir);
      }
      const verdicts = oracle(
        found.map((r) => ({
          database: r.counterexample!.database,
          gold: taskOf.get(r.index)!.goldSql!,
          prediction: taskOf.get(r.index)!.predictedSql!,
        })),
      );
      verdicts.forEach((v, i) => {
        assert.equal(v.error, undefined, `question ${found[i].question_id}: ${v.error}`);
        assert.equal(v.separates, true, `question ${found[i].question_id}: the witness does not separate the pair`);
        assert.equal(v.gold_rows, found[i].counterexample!.gold_row_count);
        assert.equal(v.prediction_rows, found[i].counterexample!.prediction_row_count);
      });
      // Every EX-correct pair has a verdict; a search reports how much it tried.
      for (const r of results.filter((q) => q.outcome === 'correct')) {
        assert.ok(r.equivalence, `question ${r.question_id}: no equivalence verdict`);
        assert.ok(r.counterexample_search, `question ${r.question_id}: no search record`);
      }
      const summary = robustnessSummary(results)!;
      assert.equal(summary.with_counterexample, found.length);
      assert.equal(summary.ex_correct, results.filter((q) => q.outcome === 'correct').length);
      fs.rmSync(outDir, { recursive: true, force: true });
    });
  }
  it('never writes the real databases', () => {
    assert.deepEqual(
      SHARED.map((db) => sha256(path.join(DB_ROOT, db, `${db}.sqlite`))),
      before,
    );
  });
});

describe('ex_fragile', () => {
  it('pairs rows that differ only in the last float digits, and says by how much', () => {
    const digits = floatDigitsOnly([[1, 0.1 + 0.2, 'a']], [[1, 0.3, 'a']]);
    assert.ok(digits);
    assert.ok(digits.abs > 0 && digits.abs < 1e-15);
    assert.equal(floatDigitsOnly([[1, 0.31, 'a']], [[1, 0.3, 'a']]), undefined, 'a real difference');
    assert.equal(floatDigitsOnly([[1, 0.3, 'b']], [[1, 0.3, 'a']]), undefined, 'text differs');
    assert.equal(floatDigitsOnly([[1, 0.3]], [[1, 0.3]]), undefined, 'no difference at all');
  });

  it('finds a mismatch that rests on the physical row order (a LIMIT without ORDER BY), on a real database', async () => {
    const { exFragility } = await import('../../src/core/results/counterexample/exFragile');
    const dbPath = path.join(DB_ROOT, 'superhero', 'superhero.sqlite');
    const db = await sqliteEngine.open(dbPath);
    try {
      // "Some superhero": the gold takes the first row read, the prediction the last; reversing the scan makes them meet.
      const fragile = await exFragility({
        db,
        openFresh: () => sqliteEngine.open(dbPath),
        gold: 'SELECT superhero_name FROM superhero LIMIT 1',
        prediction: 'SELECT superhero_name FROM superhero WHERE id = (SELECT max(id) FROM superhero)',
        deadline: performance.now() + 10_000,
        maxRows: 1000,
      });
      assert.equal(fragile?.kind, 'row_order');
      const solid = await exFragility({
        db,
        openFresh: () => sqliteEngine.open(dbPath),
        gold: 'SELECT count(*) FROM superhero',
        prediction: 'SELECT count(*) + 1 FROM superhero',
        deadline: performance.now() + 10_000,
        maxRows: 1000,
      });
      assert.equal(solid, undefined);
    } finally {
      await db.close();
    }
  });
});
