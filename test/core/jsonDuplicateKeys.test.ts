import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { duplicateJsonKeys } from '../../src/core/bird/jsonFile';
import { BIRD_SEPARATOR, loadPredictions } from '../../src/core/bird/predictions';
import { loadQuestions } from '../../src/core/bird/questions';
import { BIRD_DATA, birdDataMissing, tempDir } from '../helpers';

const OFFICIAL_PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json');
const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');

/** What Python's json.load makes of the file, the way the official scripts read it: (key, SQL) in dict order. */
function pythonEntries(file: string): [string, string][] {
  const script = [
    'import json, sys',
    `SEP = ${JSON.stringify(BIRD_SEPARATOR)}`,
    'data = json.load(open(sys.argv[1], encoding="utf-8"))',
    'print(json.dumps([[k, v.split(SEP)[0]] for k, v in data.items()]))',
  ].join('\n');
  const run = spawnSync('/usr/bin/python3', ['-c', script, file], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** The real prediction file with key "5" given twice: first a wrong SQL at its own place, the real one at the end. */
function withDuplicatedKey(): { file: string; original: string } {
  const original = fs.readFileSync(OFFICIAL_PREDICTIONS, 'utf8');
  const data = JSON.parse(original) as Record<string, string>;
  const wrong = JSON.stringify(`SELECT 'not the answer'${BIRD_SEPARATOR}${data['5'].split(BIRD_SEPARATOR)[1]}`);
  const text = original
    .replace(/("5"\s*:\s*)("(?:[^"\\]|\\.)*")/, (_all, key) => `${key}${wrong}`)
    .replace(/\}\s*$/, `, "5": ${JSON.stringify(data['5'])}\n}\n`);
  const file = path.join(tempDir(), 'duplicated.json');
  fs.writeFileSync(file, text);
  return { file, original: OFFICIAL_PREDICTIONS };
}

describe('duplicate keys in JSON inputs, as Python reads them', { skip: birdDataMissing() }, () => {
  it('a prediction object with a repeated key reads as json.load reads it: one entry, at its first place, the last value', () => {
    const { file, original } = withDuplicatedKey();
    const python = pythonEntries(file);
    assert.equal(python.length, 500, 'Python sees one entry per key');
    const loaded = loadPredictions(file);
    assert.deepEqual(
      loaded.predictions.map((p) => [p.where.replace(/^key "(.*)"$/, '$1'), p.sql]),
      python,
    );
    // The pairing does not shift: every prediction is the unduplicated file's, the repeated key's last value included.
    const unchanged = loadPredictions(original).predictions.map((p) => p.sql);
    assert.deepEqual(
      loaded.predictions.map((p) => p.sql),
      unchanged,
    );
    const problem = loaded.problems.find((p) => /appears again/.test(p.message));
    assert.ok(problem, 'the repeated key is said');
    assert.equal(problem.file, file);
    assert.match(problem.message, /key "5"/);
    assert.match(problem.message, /last value/);
    assert.equal(problem.headline, true);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const lastFive = lines.length - 1 - [...lines].reverse().findIndex((line) => line.includes('"5":'));
    assert.equal(problem.where, `line ${lastFive + 1}`);
  });

  it('a question object with a repeated key keeps the last value and says which key, at which line', () => {
    const items = JSON.parse(fs.readFileSync(QUESTIONS, 'utf8')).slice(0, 3) as Record<string, unknown>[];
    const text = JSON.stringify(items, null, 2).replace(/"db_id": "([^"]+)",/, '"db_id": "no_such_db",\n    "db_id": "$1",');
    const file = path.join(tempDir(), 'questions.json');
    fs.writeFileSync(file, text);
    const python = spawnSync('/usr/bin/python3', ['-c', 'import json,sys; print(json.load(open(sys.argv[1]))[0]["db_id"])', file], {
      encoding: 'utf8',
    });
    const loaded = loadQuestions(file);
    assert.equal(loaded.questions[0].dbId, python.stdout.trim());
    assert.equal(loaded.questions[0].dbId, items[0].db_id);
    const problem = loaded.problems.find((p) => /appears again/.test(p.message));
    assert.ok(problem);
    assert.match(problem.message, /key "db_id" appears again in item 0/);
    assert.equal(
      problem.where,
      `line ${text.split('\n').findIndex((line, i) => i > 0 && /"db_id"/.test(line) && !/no_such_db/.test(line)) + 1}`,
    );
  });

  it('finds repeated keys at any depth, and none in the official files', () => {
    assert.deepEqual(duplicateJsonKeys('[{"a": 1, "b": {"c": 1, "c": 2}}, {"a": 1, "a": 2}]'), [
      { key: 'c', line: 1, within: 'item 0' },
      { key: 'a', line: 1, within: 'item 1' },
    ]);
    assert.deepEqual(duplicateJsonKeys(fs.readFileSync(OFFICIAL_PREDICTIONS, 'utf8')), []);
    assert.deepEqual(duplicateJsonKeys(fs.readFileSync(QUESTIONS, 'utf8')), []);
  });
});
