import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { loadGold } from '../../src/core/bird/gold';
import { binaryKind, firstInvalidUtf8, jsonFileKind } from '../../src/core/bird/fileKind';
import { BIRD_SEPARATOR, loadPredictions } from '../../src/core/bird/predictions';
import { InputFileError, InputProblem } from '../../src/core/bird/problems';
import { loadQuestions, Question } from '../../src/core/bird/questions';
import { buildTasks } from '../../src/core/bird/tasks';
import { BIRD_DATA, birdDataMissing, tempDir } from '../helpers';
import { COMMAND_LINE_WORDING } from '../../src/cli/inputWording';
import { useInputWording } from '../../src/core/text/inputWording';

// Core words the inputs its messages refer to for the face that runs it; these tests read the command line's.
useInputWording(COMMAND_LINE_WORDING);

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
    assert.deepEqual(
      loaded.predictions.map((p) => p.sql),
      ["SELECT 'b'", "SELECT 'a'"],
    );
    assert.match(loaded.problems[0].message, /pair with questions by position/);
    assert.equal(loaded.problems[0].where, 'key "1"');
  });

  it('scores a non-string value as an empty query and says where it is', () => {
    const loaded = loadPredictions(write('p.json', `{"0": "SELECT 1${BIRD_SEPARATOR.replace(/\t/g, '\\t')}db", "1": null, "2": 7}`));
    assert.deepEqual(
      loaded.predictions.map((p) => p.sql),
      ['SELECT 1', ' ', ' '],
    );
    assert.deepEqual(
      loaded.problems.map((p) => p.where),
      ['key "1"', 'key "2"'],
    );
  });

  it('takes the whole string as SQL when the separator is missing', () => {
    const loaded = loadPredictions(write('p.json', JSON.stringify({ '0': 'SELECT 1' })));
    assert.equal(loaded.predictions[0].sql, 'SELECT 1');
    assert.equal(loaded.predictions[0].dbId, undefined);
  });

  it('reads a JSON list with question_id and predicted_sql, pairing by id', () => {
    const file = write(
      'p.json',
      JSON.stringify([
        { question_id: 7, db_id: 'db', predicted_sql: 'SELECT 7' },
        { question_id: 5, db_id: 'db', predicted_sql: 'SELECT 5' },
      ]),
    );
    const loaded = loadPredictions(file);
    assert.equal(loaded.pairing, 'question_id');
    const problems: InputProblem[] = [];
    const tasks = buildTasks([question(0, 5), question(1, 6), question(2, 7)], loaded, undefined, problems);
    assert.deepEqual(
      tasks.map((t) => t.predictedSql),
      ['SELECT 5', undefined, 'SELECT 7'],
    );
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
    assert.deepEqual(
      loaded.predictions.map((p) => [p.sql, p.dbId]),
      [
        ['SELECT 1', undefined],
        ['SELECT 2', undefined],
        ['SELECT 3', 'db'],
      ],
    );
    const gold = loadPredictions(write('p.sql', `SELECT 1\tdb\nSELECT\t2\tdb\nSELECT 3${BIRD_SEPARATOR}db\n`));
    assert.deepEqual(
      gold.predictions.map((p) => [p.sql, p.dbId]),
      [
        ['SELECT 1', 'db'],
        ['SELECT\t2', 'db'],
        ['SELECT 3', 'db'],
      ],
    );
  });

  it('keeps a tab inside a one-per-line SQL as part of the query (Python parity: SQLite reads it as a space)', () => {
    // Found on real files: a tab between two words is not a db_id separator unless every line ends in one.
    const text = 'SELECT name FROM\tsuperhero WHERE id = 1\nSELECT name\tFROM superhero\nSELECT 1\n';
    const loaded = loadPredictions(write('p.txt', text));
    assert.deepEqual(
      loaded.predictions.map((p) => [p.sql, p.dbId]),
      [
        ['SELECT name FROM\tsuperhero WHERE id = 1', undefined],
        ['SELECT name\tFROM superhero', undefined],
        ['SELECT 1', undefined],
      ],
    );
    const known = loadPredictions(write('p.txt', 'SELECT name FROM\tsuperhero\nSELECT 1\tsuperhero\n'), { dbIds: new Set(['superhero']) });
    assert.deepEqual(
      known.predictions.map((p) => p.dbId),
      ['superhero', 'superhero'],
      "every line ends in a known db_id: the gold file's shape",
    );
    const unknown = loadPredictions(write('p.txt', 'SELECT a\tFROM t\nSELECT 1\tsuperhero\n'), { dbIds: new Set(['superhero']) });
    assert.deepEqual(
      unknown.predictions.map((p) => p.sql),
      ['SELECT a\tFROM t', 'SELECT 1\tsuperhero'],
    );
  });

  it('rejects malformed JSON with the file, line and column', () => {
    const file = write('broken.json', '{\n  "0": "SELECT 1",\n  "1": "SELECT 2"\n  "2": "x"\n}');
    assert.throws(
      () => loadPredictions(file),
      (error: unknown) => {
        assert.ok(error instanceof InputFileError);
        assert.match(error.message, /broken\.json \(line 4, column 3\): not valid JSON/);
        return true;
      },
    );
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
    const file = write(
      'q.json',
      '[\n {"question_id": 1, "db_id": "a", "SQL": "SELECT 1"},\n {"question_id": 2, "SQL": "SELECT 2"},\n {"question_id": 3, "db_id": "a", "SQL": "SELECT 3"}\n]',
    );
    const loaded = loadQuestions(file);
    assert.deepEqual(
      loaded.questions.map((q) => [q.index, q.questionId, q.dbId]),
      [
        [0, 1, 'a'],
        [1, 2, ''],
        [2, 3, 'a'],
      ],
    );
    assert.equal(loaded.problems[0].where, 'item 1, line 3');
    assert.equal(loaded.problems.length, 1);
  });

  it('refuses a question file that is not a list', () => {
    assert.throws(() => loadQuestions(write('q.json', '{"a": 1}')), /must be a JSON list/);
  });

  it('reads gold lines and reports the malformed one by line number', () => {
    const loaded = loadGold(write('gold.sql', 'SELECT 1\tdb\nSELECT 2 no tab\nSELECT 3\tdb\n'));
    assert.deepEqual(
      loaded.entries.map((e) => e?.sql),
      ['SELECT 1', undefined, 'SELECT 3'],
    );
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

describe('input problems that explain many results at once (issue 8, item 2)', () => {
  it('a shorter prediction file: one headline problem, in the words the report uses', () => {
    const problems: InputProblem[] = [];
    const tasks = buildTasks(
      [question(0, 1), question(1, 2), question(2, 3)],
      loadPredictions(write('p.sql', 'SELECT 1\n')),
      undefined,
      problems,
    );
    assert.deepEqual(
      problems.map((p) => [p.message, p.headline]),
      [['1 predictions for 3 questions: paired by position, 2 questions have no prediction (scored 0 as prediction errors)', true]],
    );
    assert.deepEqual(
      tasks.map((t) => t.missing !== undefined),
      [false, true, true],
    );
  });

  it('a gold file of another length, and gold lines for other databases', () => {
    const problems: InputProblem[] = [];
    buildTasks(
      [question(0, 1), question(1, 2)],
      loadPredictions(write('p.sql', 'SELECT 1\nSELECT 2\n')),
      loadGold(write('g.sql', 'SELECT 1\tother\n')),
      problems,
    );
    assert.match(
      problems[0].message,
      /^1 gold lines for 2 questions: paired by position, 1 question has no gold line \(scored 0 as gold errors\)$/,
    );
    assert.match(
      problems[1].message,
      /^1 of 1 gold lines name another database than their question \(first: line 1 names other, question 1 is on db\)/,
    );
  });

  it('question_id pairing: predictions for questions the file does not have', () => {
    const problems: InputProblem[] = [];
    const file = write(
      'p.json',
      JSON.stringify([
        { question_id: 1, predicted_sql: 'SELECT 1' },
        { question_id: 99, predicted_sql: 'SELECT 1' },
      ]),
    );
    buildTasks([question(0, 1), question(1, 2)], loadPredictions(file), undefined, problems);
    assert.deepEqual(
      problems.filter((p) => p.headline).map((p) => p.message),
      [
        '2 predictions for 2 questions: paired by question_id, 1 question has no prediction (scored 0 as prediction errors)',
        '1 prediction names a question_id the question file does not have (ignored): 99',
      ],
    );
  });
});

describe('gold carried by a prediction file (issue 8, item 6)', () => {
  const file = () =>
    write(
      'p.json',
      JSON.stringify([
        { question_id: 1, predicted_sql: 'SELECT 1', gold_sql: 'SELECT  1 ;' },
        { question_id: 2, predicted_sql: 'SELECT 2', gold_sql: 'SELECT 22' },
      ]),
    );

  it('is read, compared (spacing and a final semicolon aside) and reported where it differs', () => {
    const loaded = loadPredictions(file());
    assert.equal(loaded.goldField, 'gold_sql');
    const problems: InputProblem[] = [];
    const tasks = buildTasks([question(0, 1), question(1, 2)], loaded, undefined, problems);
    assert.deepEqual(
      tasks.map((t) => t.goldSql),
      ['SELECT 1', 'SELECT 2'],
      "the question file's gold by default",
    );
    assert.equal(tasks[0].notes.length, 0);
    assert.match(tasks[1].notes[0], /gold differs from the gold used; --gold-from predictions would score against it: SELECT 22/);
    assert.match(
      problems[0].message,
      /carries its own gold \(gold_sql\) for 2 questions; it differs from the gold used \(the question file's SQL field\) for 1 \(question 2\)/,
    );
  });

  it('--gold-from predictions uses it', () => {
    const tasks = buildTasks([question(0, 1), question(1, 2), question(2, 3)], loadPredictions(file()), undefined, [], {
      goldFrom: 'predictions',
    });
    assert.deepEqual(
      tasks.map((t) => t.goldSql),
      ['SELECT  1 ;', 'SELECT 22', 'SELECT 3'],
    );
    assert.match(tasks[2].missing ?? '', /no prediction for this question/, 'no prediction stays a prediction error');
  });

  it('BIRD question objects with a predicted_sql beside SQL: SQL is the gold', () => {
    const loaded = loadPredictions(
      write('p.json', JSON.stringify([{ question_id: 1, question: 'q', SQL: 'SELECT 9', predicted_sql: 'SELECT 1' }])),
    );
    assert.equal(loaded.predictions[0].sql, 'SELECT 1');
    assert.equal(loaded.predictions[0].goldSql, 'SELECT 9');
  });
});

describe('files that are no input of their kind (issue 8, item 3)', () => {
  it('binaryKind tells databases, archives, UTF-16 and noise from text, and lets a stray NUL through', () => {
    assert.equal(binaryKind(Buffer.from('SQLite format 3\0rest')), 'a SQLite database');
    assert.equal(binaryKind(Buffer.from([0x50, 0x4b, 3, 4, 0, 0])), 'a ZIP archive');
    assert.equal(binaryKind(Buffer.from('SELECT 1\n', 'utf16le')), 'UTF-16 text without a byte-order mark (save it as UTF-8)');
    assert.equal(binaryKind(Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 31) % 256))), 'a binary file');
    assert.equal(binaryKind(Buffer.from('SELECT 1\0\nSELECT 2\n')), undefined);
    assert.equal(binaryKind(Buffer.from('SELECT "é" FROM t\tWHERE 1\r\n')), undefined);
  });

  it('firstInvalidUtf8 finds the first byte that breaks UTF-8', () => {
    assert.equal(firstInvalidUtf8(Buffer.from('SELECT é 😀', 'utf8')), -1);
    assert.equal(firstInvalidUtf8(Buffer.from("SELECT 'é'", 'latin1')), 8);
    assert.equal(firstInvalidUtf8(Buffer.from([0x41, 0xed, 0xa0, 0x80])), 1, 'an encoded surrogate is no UTF-8');
    assert.equal(firstInvalidUtf8(Buffer.from([0x41, 0xe2, 0x82])), 1, 'cut short');
  });

  it('a question file as predictions is refused; a byte-order mark at the start of a file is dropped', () => {
    assert.throws(
      () =>
        loadPredictions(
          write(
            'q.json',
            JSON.stringify([{ question_id: 1, db_id: 'a', question: 'q', evidence: '', SQL: 'SELECT 1', difficulty: 'simple' }]),
          ),
        ),
      /a BIRD question file/,
    );
    const loaded = loadQuestions(write('q.json', '\ufeff[{"question_id": 1, "db_id": "a", "SQL": "SELECT 1"}]'));
    assert.equal(loaded.questions[0].dbId, 'a');
  });

  it('a JSON file with no SQL at all is refused by what it is: a BIRD tables file, {}, a report, a list without SQL', () => {
    const columns = [
      [-1, '*'],
      [0, 'c'],
    ];
    const tables = [{ db_id: 'a', table_names_original: ['t'], table_names: ['t'], column_names_original: columns, column_names: columns }];
    const cases: [string, RegExp][] = [
      [JSON.stringify(tables), /a BIRD tables file \(each item describes a database's tables and columns.*\), not a prediction file/],
      ['{}', /an empty JSON object, not a prediction file: it holds no SQL to score/],
      [
        JSON.stringify({ tool: { name: 'ves-lens' }, questions: [] }),
        /a VES Lens report \(the JSON of eval, judge or audit\), not a prediction file/,
      ],
      [JSON.stringify({ a: 1, b: null }), /a JSON object none of whose 2 values is a SQL string, not a prediction file/],
      [JSON.stringify([{ question_id: 1 }, 7]), /a JSON list none of whose 2 items is SQL or has a SQL field \(predicted_sql, /],
    ];
    for (const [text, message] of cases) {
      const refused = (error: unknown) => error instanceof InputFileError && message.test(error.message);
      assert.throws(() => loadPredictions(write('p.json', text)), refused, text);
    }
    assert.throws(() => loadPredictions(write('c.json', '{}'), { what: 'candidate file' }), /not a candidate file/, 'the role is named');
    assert.equal(jsonFileKind([{ question_id: 1, predicted_sql: 'SELECT 1' }]), undefined, 'a prediction list is no known other file');
    assert.equal(loadPredictions(write('p.json', '[]')).predictions.length, 0, 'an empty list stays 0 predictions (a headline problem)');
  });

  it('the real BIRD tables file is refused as one', { skip: birdDataMissing() }, () => {
    assert.throws(() => loadPredictions(path.join(BIRD_DATA, 'schema', 'dev_tables.json')), /dev_tables\.json: a BIRD tables file/);
  });
});
