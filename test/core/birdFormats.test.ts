import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { BIRD_SEPARATOR, loadPredictions } from '../../src/core/bird/predictions';
import { InputFileError, InputProblem } from '../../src/core/bird/problems';
import { loadQuestions, Question } from '../../src/core/bird/questions';
import { buildTasks } from '../../src/core/eval/tasks';
import { BIRD_DATA, birdDataMissing, tempDir } from '../helpers';

function write(name: string, text: string): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, text);
  return file;
}

function question(index: number, questionId: number, dbId = 'db'): Question {
  return { index, questionId, dbId, question: '', evidence: '', sql: `SELECT ${questionId}`, difficulty: 'simple' };
}

describe('prediction files', () => {
  it('reads the official object format and pairs by position in file order, whatever the keys', () => {
    // Written as text: a JavaScript object literal would itself put key "0" first.
    const sep = JSON.stringify(BIRD_SEPARATOR).slice(1, -1);
    const file = write('p.json', `{"1": "SELECT 'b'${sep}db", "0": "SELECT 'a'${sep}db"}`);
    const loaded = loadPredictions(file);
    assert.equal(loaded.format, 'bird-object');
    assert.equal(loaded.pairing, 'position');
    assert.deepEqual(loaded.predictions.map((p) => p.sql), ["SELECT 'b'", "SELECT 'a'"]);
    assert.match(loaded.problems[0].message, /pair with questions by position/);
    assert.equal(loaded.problems[0].where, 'key "1"');
  });

  it('scores a non-string value as an empty query and says where it is', () => {
    const loaded = loadPredictions(write('p.json', `{"0": "SELECT 1${BIRD_SEPARATOR.replace(/\t/g, '\\t')}db", "1": null, "2": 7}`));
    assert.deepEqual(loaded.predictions.map((p) => p.sql), ['SELECT 1', ' ', ' ']);
    assert.deepEqual(loaded.problems.map((p) => p.where), ['key "1"', 'key "2"']);
  });

  it('takes the whole string as SQL when the separator is missing', () => {
    const loaded = loadPredictions(write('p.json', JSON.stringify({ '0': 'SELECT 1' })));
    assert.equal(loaded.predictions[0].sql, 'SELECT 1');
    assert.equal(loaded.predictions[0].dbId, undefined);
  });

  it('reads a JSON list with question_id and predicted_sql, pairing by id', () => {
    const file = write('p.json', JSON.stringify([
      { question_id: 7, db_id: 'db', predicted_sql: 'SELECT 7' },
      { question_id: 5, db_id: 'db', predicted_sql: 'SELECT 5' },
    ]));
    const loaded = loadPredictions(file);
    assert.equal(loaded.pairing, 'question_id');
    const problems: InputProblem[] = [];
    const tasks = buildTasks([question(0, 5), question(1, 6), question(2, 7)], loaded, undefined, problems);
    assert.deepEqual(tasks.map((t) => t.predictedSql), ['SELECT 5', undefined, 'SELECT 7']);
    assert.match(tasks[1].missing ?? '', /no prediction for this question/);
  });

  it('names the item and line of a list entry without SQL, and still reads the others', () => {
    const file = write('p.json', '[\n  {"question_id": 1, "predicted_sql": "SELECT 1"},\n  {"question_id": 2}\n]');
    const loaded = loadPredictions(file);
    assert.equal(loaded.predictions.length, 2);
    assert.equal(loaded.problems[0].where, 'item 1, line 3');
    assert.match(loaded.problems[0].message, /no SQL field/);
  });

  it('reads one SQL a line, with the official separator or, when every line has one, a tab and db_id', () => {
    const loaded = loadPredictions(write('p.sql', `SELECT 1\nSELECT 2\nSELECT 3${BIRD_SEPARATOR}db\n`));
    assert.equal(loaded.format, 'lines');
    assert.deepEqual(loaded.predictions.map((p) => [p.sql, p.dbId]), [['SELECT 1', undefined], ['SELECT 2', undefined], ['SELECT 3', 'db']]);
    const gold = loadPredictions(write('p.sql', `SELECT 1\tdb\nSELECT\t2\tdb\nSELECT 3${BIRD_SEPARATOR}db\n`));
    assert.deepEqual(gold.predictions.map((p) => [p.sql, p.dbId]), [['SELECT 1', 'db'], ['SELECT\t2', 'db'], ['SELECT 3', 'db']]);
  });

  it('keeps a tab inside a one-per-line SQL as part of the query (Python parity: SQLite reads it as a space)', () => {
    // Found on real files: a tab between two words is not a db_id separator unless every line ends in one.
    const text = 'SELECT name FROM\tsuperhero WHERE id = 1\nSELECT name\tFROM superhero\nSELECT 1\n';
    const loaded = loadPredictions(write('p.txt', text));
    assert.deepEqual(loaded.predictions.map((p) => [p.sql, p.dbId]), [['SELECT name FROM\tsuperhero WHERE id = 1', undefined], ['SELECT name\tFROM superhero', undefined], ['SELECT 1', undefined]]);
    const known = loadPredictions(write('p.txt', 'SELECT name FROM\tsuperhero\nSELECT 1\tsuperhero\n'), { dbIds: new Set(['superhero']) });
    assert.deepEqual(known.predictions.map((p) => p.dbId), ['superhero', 'superhero'], 'every line ends in a known db_id: the gold file\'s shape');
    const unknown = loadPredictions(write('p.txt', 'SELECT a\tFROM t\nSELECT 1\tsuperhero\n'), { dbIds: new Set(['superhero']) });
    assert.deepEqual(unknown.predictions.map((p) => p.sql), ['SELECT a\tFROM t', 'SELECT 1\tsuperhero']);
  });

  it('rejects malformed JSON with the file, line and column', () => {
    const file = write('broken.json', '{\n  "0": "SELECT 1",\n  "1": "SELECT 2"\n  "2": "x"\n}');
    assert.throws(() => loadPredictions(file), (error: unknown) => {
      assert.ok(error instanceof InputFileError);
      assert.match(error.message, /broken\.json \(line 4, column 3\): not valid JSON/);
      return true;
    });
  });

  it('warns about predictions beyond the last question, as a headline problem', () => {
    const loaded = loadPredictions(write('p.sql', 'SELECT 1\nSELECT 2\nSELECT 3\n'));
    const problems: InputProblem[] = [];
    buildTasks([question(0, 1)], loaded, undefined, problems);
    assert.match(problems[0].message, /3 predictions for 1 questions: paired by position, the last 2 predictions are ignored/);
    assert.equal(problems[0].headline, true);
  });
});

describe('question and gold files', () => {
  it('reports items without db_id by position and line, keeping every item in its place', () => {
    const file = write('q.json', '[\n {"question_id": 1, "db_id": "a", "SQL": "SELECT 1"},\n {"question_id": 2, "SQL": "SELECT 2"},\n {"question_id": 3, "db_id": "a", "SQL": "SELECT 3"}\n]');
    const loaded = loadQuestions(file);
    assert.deepEqual(loaded.questions.map((q) => [q.index, q.questionId, q.dbId]), [[0, 1, 'a'], [1, 2, ''], [2, 3, 'a']]);
    assert.equal(loaded.problems[0].where, 'item 1, line 3');
    assert.equal(loaded.problems.length, 1);
  });

  it('refuses a question file that is not a list', () => {
    assert.throws(() => loadQuestions(write('q.json', '{"a": 1}')), /must be a JSON list/);
  });

  it('reads gold lines and reports the malformed one by line number', () => {
    const loaded = loadGold(write('gold.sql', 'SELECT 1\tdb\nSELECT 2 no tab\nSELECT 3\tdb\n'));
    assert.deepEqual(loaded.entries.map((e) => e?.sql), ['SELECT 1', undefined, 'SELECT 3']);
    assert.equal(loaded.problems[0].where, 'line 2');
  });

  it('flags a gold line whose db_id disagrees with its question', () => {
    const gold = loadGold(write('gold.sql', 'SELECT 1\tother\n'));
    const tasks = buildTasks([question(0, 1)], loadPredictions(write('p.sql', 'SELECT 1\n')), gold, []);
    assert.match(tasks[0].notes[0], /gold line 1 names database other/);
  });

  it('reads every published question file version', { skip: birdDataMissing() }, () => {
    const expected: Record<string, number> = {
      'mini_dev_sqlite.v1-2024.json': 500,
      'mini_dev_sqlite.v3.json': 500,
      'mini_dev.rose.json': 500,
      'dev.rose.json': 1534,
      'dev.damo-2023.json': 1534,
    };
    for (const [name, count] of Object.entries(expected)) {
      const loaded = loadQuestions(path.join(BIRD_DATA, 'questions', name));
      assert.equal(loaded.questions.length, count, name);
      assert.deepEqual(loaded.problems, [], name);
    }
    const damo = loadQuestions(path.join(BIRD_DATA, 'questions', 'dev.damo-2023.json'));
    assert.equal(damo.questions[10].questionId, 10, 'no question_id: the position stands in');
    assert.equal(damo.questions[10].difficulty, '');
  });
});
