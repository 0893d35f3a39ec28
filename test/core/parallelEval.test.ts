import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { loadPredictions } from '../../src/core/bird/predictions';
import { loadQuestions } from '../../src/core/bird/questions';
import { buildTasks, EvalTask } from '../../src/core/bird/tasks';
import { mysqlServer, postgresServer, sqliteFolder } from '../../src/core/db/source';
import { embeddedPostgres } from '../../src/core/db/pglite/embeddedSource';
import { EvalRunOptions, evaluateTasks } from '../../src/core/eval/evaluate';
import { laneCount } from '../../src/core/eval/parallelEval';
import { plannedWork } from '../../src/core/db/readQuery';
import { QuestionResult } from '../../src/core/eval/types';
import { techniqueStep } from '../../src/core/eval/techniqueStep';
import { BIRD_DATA, birdDataMissing, REPO_ROOT } from '../helpers';
import { birdServerConnection, mysqlMissing } from '../mysqlServer';

const SAMPLE_ROOT = path.join(REPO_ROOT, 'sample');
const PREDICTION_FILES = [
  'predict_mini_dev_gpt-4_sqlite.json',
  'predict_mini_dev_gpt-4-o_cot_SQLite.json',
  'predict_mini_dev_meta-llama-3-8b-instruct-2_sqlite.json',
  'predict_mini_dev_mistralai-mixtral-8x7b-instru-4_sqlite.json',
];

/** Every field of a result that does not come from a clock (timing fields are measurements: they differ run to run). */
function deterministic(result: QuestionResult): Partial<QuestionResult> {
  const { index, question_id, db_id, outcome, ex, f1, error, difference, notes, techniques, same_program } = result;
  return { index, question_id, db_id, outcome, ex, f1, error, difference, notes, techniques, same_program };
}

function realTasks(file: string): EvalTask[] {
  const questions = loadQuestions(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'));
  const gold = loadGold(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'));
  const predictions = loadPredictions(path.join(BIRD_DATA, 'predictions', 'minidev-official', file));
  return buildTasks(questions.questions, predictions, gold, []);
}

/** Questions on the sample's superhero database with these predictions, all against one gold. */
function superheroTasks(predictions: string[], goldSql = 'SELECT count(*) FROM superhero'): EvalTask[] {
  return predictions.map((predictedSql, index) => ({
    question: { index, questionId: index, dbId: 'superhero', difficulty: 'simple', question: '', evidence: '', sql: goldSql },
    goldSql,
    predictedSql,
    notes: [],
  }));
}

async function evaluate(tasks: EvalTask[], jobs: number, more: Partial<EvalRunOptions> = {}) {
  const order: number[] = [];
  const results = await evaluateTasks(tasks, {
    source: sqliteFolder(more.source ? '' : path.join(BIRD_DATA, 'databases')),
    metrics: ['ex', 'f1'],
    timing: 'fast',
    timeoutMs: 30_000,
    maxRows: 500_000,
    jobs,
    onResult: (result) => order.push(result.index),
    ...more,
  });
  return { results, order };
}

describe('the correctness pass in lanes (--jobs)', { skip: birdDataMissing() }, () => {
  for (const file of PREDICTION_FILES)
    it(`gives the same results in the same order with one lane and with several: ${file}`, async () => {
      const tasks = realTasks(file);
      const techniques = techniqueStep({ techniques: ['execution_accuracy', 'exact_column_and_exact_cell'] });
      const one = await evaluate(tasks, 1, { techniques });
      const three = await evaluate(tasks, 3, { techniques });
      assert.equal(three.results.length, tasks.length);
      assert.deepEqual(
        three.results.map((r) => r.index),
        tasks.map((t) => t.question.index),
      );
      // Results are passed on in question order, as one at a time passes them on.
      assert.deepEqual(three.order, one.order);
      assert.deepEqual(three.results.map(deterministic), one.results.map(deterministic));
      const outcomes = new Set(one.results.map((r) => r.outcome));
      for (const outcome of ['correct', 'mismatch', 'prediction_error', 'skipped']) assert.ok(outcomes.has(outcome as never), outcome);
      assert.ok(
        one.results.some((r) => r.techniques),
        'the techniques were scored',
      );
    });

  it('times correct pairs after the pass, one at a time, in official mode as in fast', async () => {
    const tasks = realTasks('predict_mini_dev_gpt-4_sqlite.json')
      .filter((t) => t.question.dbId === 'superhero')
      .slice(0, 6);
    for (const timing of ['official', 'fast'] as const) {
      const { results, order } = await evaluate(tasks, 2, {
        metrics: ['ex', 'rves'],
        timing,
        officialIterations: 2,
        fastTiming: { minBlocks: 1, maxBlocks: 1, pairBudgetMs: 50 },
      });
      // A timed pair's result is final (and passed on) after the timing, as with one lane.
      assert.deepEqual(
        [...order].sort((a, b) => a - b),
        results.map((r) => r.index),
        `${timing}: every result passed on once`,
      );
      const correct = results.filter((r) => r.outcome === 'correct');
      assert.ok(correct.length >= 2, `${timing}: some correct pairs`);
      for (const r of correct) assert.ok(r.rves_reward !== null && r.rves_time_ratio !== null, `${timing}: q${r.question_id} timed`);
    }
  });
});

describe('lanes and the bounds', () => {
  const sample = { source: sqliteFolder(SAMPLE_ROOT) };

  it('a result within the whole bound but past a lane share is scored again alone: the same result as one lane', async () => {
    // 26,250 rows: within a 30,000-row bound, past a third of it.
    const big = 'SELECT a.id FROM superhero a, colour b';
    const tasks = superheroTasks(['SELECT count(*) FROM superhero', big, 'SELECT count(*) FROM colour', big, 'SELECT 1']);
    const one = await evaluate(tasks, 1, { ...sample, maxRows: 30_000 });
    const three = await evaluate(tasks, 3, { ...sample, maxRows: 30_000 });
    assert.equal(one.results[1].outcome, 'mismatch'); // it ran to its end with one lane
    assert.deepEqual(three.results.map(deterministic), one.results.map(deterministic));
    assert.deepEqual(three.order, [0, 1, 2, 3, 4]);
  });

  it('hostile predictions in every lane: each fails with the whole bound named, memory under 1 GiB', async () => {
    const hostile = [
      'SELECT zeroblob(8000000) FROM hero_power',
      'SELECT a.id, b.id FROM superhero a, superhero b, (SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9)',
    ];
    const tasks = superheroTasks([...hostile, ...hostile, 'SELECT count(*) FROM superhero']);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const { results } = await evaluate(tasks, 2, { ...sample, maxRows: 100_000 }).finally(() => clearInterval(sampler));
    for (const result of results.slice(0, 4)) {
      assert.equal(result.outcome, 'prediction_error');
      // The message names the whole bound, not a lane's share of it.
      assert.match(result.error ?? '', /more than 128 MiB of values|more than 100,000 rows/);
    }
    assert.equal(results[4].outcome, 'correct');
    assert.ok(peak < 2 ** 30, `peak rss ${peak}`);
  });

  it('an abort mid-pass stops every lane at once and keeps the questions scored before it, in order', async () => {
    const runaway = 'SELECT count(*) FROM hero_power a, hero_power b, hero_power c';
    const tasks = superheroTasks(['SELECT count(*) FROM superhero', 'SELECT 1', runaway, runaway, runaway, 'SELECT 2']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);
    const started = performance.now();
    const { results, order } = await evaluate(tasks, 2, { ...sample, timeoutMs: 120_000, signal: controller.signal });
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 30, `ended ${seconds.toFixed(1)} s after starting (the runaways would run for minutes)`);
    assert.deepEqual(
      results.map((r) => r.index),
      [0, 1],
    );
    assert.deepEqual(order, [0, 1]);
  });
});

describe('lanes on a server start the questions its planner finds far costlier first', { skip: mysqlMissing() }, () => {
  const mariadb = birdServerConnection();
  /** 200 ms a question (prediction and gold), planned as one row. */
  const CHEAP = 'SELECT SLEEP(0.1)';
  /** Three tables' rows multiplied (about 3.7 × 10^12 planned), one row read: quick to run, far costlier to the planner. */
  const COSTLY = 'SELECT a.atom_id FROM atom a, bond b, connected c LIMIT 1';

  function toxicologyTasks(predictions: string[]): EvalTask[] {
    return predictions.map((predictedSql, index) => ({
      question: { index, questionId: index, dbId: 'toxicology', difficulty: 'simple', question: '', evidence: '', sql: predictedSql },
      goldSql: predictedSql,
      predictedSql,
      notes: [],
    }));
  }

  it('the last question, estimated costliest, is scored long before its turn; results and their order as one lane', async () => {
    const tasks = toxicologyTasks([...Array.from({ length: 30 }, () => CHEAP), COSTLY]);
    const run = async (jobs: number) => {
      const scoredInTurn: number[] = [];
      const { results, order } = await evaluate(tasks, jobs, {
        source: mysqlServer(mariadb.server.url),
        metrics: ['ex'],
        onLane: async (_db, task) => void scoredInTurn.push(task.question.index),
      });
      return { results, order, scoredInTurn };
    };
    const two = await run(2);
    // The planner is asked once the lanes have scored for a second (about 10 questions), and answers in milliseconds.
    assert.ok(two.scoredInTurn.indexOf(30) < 20, `scored in turn ${two.scoredInTurn.join(' ')}`);
    const one = await run(1);
    assert.deepEqual(
      one.scoredInTurn,
      tasks.map((t) => t.question.index),
      'one lane takes them in question order',
    );
    assert.deepEqual(two.order, one.order);
    assert.deepEqual(two.results.map(deterministic), one.results.map(deterministic));
    assert.ok(two.results.every((r) => r.outcome === 'correct'));
  });

  it("plannedWork: the planner's estimate, 0 for an entry that fails before running", async () => {
    const cheap = await plannedWork(mariadb.db, 'SELECT COUNT(*) FROM molecule');
    const costly = await plannedWork(mariadb.db, COSTLY);
    assert.ok(cheap !== undefined && costly !== undefined && costly > 1e6 * cheap, `${cheap} against ${costly}`);
    assert.equal(await plannedWork(mariadb.db, 'SELECT nothing FROM nowhere'), 0);
    assert.equal(await plannedWork(mariadb.db, 'DELETE FROM atom'), 0);
  });
});

describe('how many lanes a run gets', () => {
  it('as asked on SQLite and on a server (a session each), never more than the questions; two at most on the embedded PostgreSQL', () => {
    assert.equal(laneCount(4, sqliteFolder(SAMPLE_ROOT), 100), 4);
    assert.equal(laneCount(4, postgresServer('postgresql://u@localhost:5432/bird'), 100), 4);
    assert.equal(laneCount(4, mysqlServer('mysql://u@localhost:3306/BIRD'), 100), 4);
    assert.equal(laneCount(4, postgresServer('postgresql://u@localhost:5432/bird'), 2), 2);
    // A WASM thread and a working copy of the data for each lane: 200 MiB apiece within the 1 GiB bound.
    assert.equal(laneCount(4, embeddedPostgres(SAMPLE_ROOT), 100), 2);
    assert.equal(laneCount(1, embeddedPostgres(SAMPLE_ROOT), 100), 1);
  });
});
