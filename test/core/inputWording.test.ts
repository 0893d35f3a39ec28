// Core refers to the inputs its messages name (the gold file, the row limit, verification...) by key, and each
// face words them from its own table: the command line by its options, the editor by its settings, files and
// quick fixes. The same message, worded by each face, as each showed it before.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { COMMAND_LINE_WORDING } from '../../src/cli/inputWording';
import { loadGold } from '../../src/core/bird/gold';
import { loadPredictions } from '../../src/core/bird/predictions';
import { InputProblem } from '../../src/core/bird/problems';
import { loadQuestions, Question } from '../../src/core/bird/questions';
import { buildTasks } from '../../src/core/bird/tasks';
import { TooManyRows } from '../../src/core/db/database';
import { InputWording, inputWording, useInputWording } from '../../src/core/text/inputWording';
import { EDITOR_WORDING } from '../../src/server/editorText';
import { tempDir } from '../helpers';

function write(name: string, text: string): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, text);
  return file;
}

const question = (index: number, questionId: number, sql?: string): Question => ({
  index,
  questionId,
  dbId: 'db',
  question: '',
  evidence: '',
  sql,
  difficulty: 'simple',
});

/** Every message of core that names an input, as the face `wording` words it. */
function messages(wording: InputWording) {
  useInputWording(wording);
  const goldJson = write('gold.json', '[]');
  let goldError = '';
  try {
    loadGold(goldJson);
  } catch (error) {
    goldError = (error as Error).message.slice(goldJson.length + 2);
  }
  const questions = loadQuestions(write('questions.json', JSON.stringify([{ question_id: 1, SQL: 'SELECT 1' }])));
  const carried = loadPredictions(write('p.json', JSON.stringify([{ question_id: 1, predicted_sql: 'SELECT 1', gold_sql: 'SELECT 11' }])));
  const problems: InputProblem[] = [];
  const [withCarriedGold] = buildTasks([question(0, 1, 'SELECT 1')], carried, undefined, problems);
  const [withoutGold] = buildTasks(
    [question(0, 1)],
    loadPredictions(write('q.json', JSON.stringify([{ question_id: 1, predicted_sql: 'SELECT 1' }]))),
    undefined,
    [],
  );
  return {
    tooManyRows: new TooManyRows(500000).message,
    goldError,
    noDbId: questions.problems[0].message,
    carriedGoldNote: withCarriedGold.notes[0],
    carriedGoldHeadline: problems[0].message.replace(/^.*\. Scores use/, 'Scores use'),
    noGold: withoutGold.missing,
  };
}

describe('inputs named by the face that runs core', () => {
  const plain = inputWording();
  after(() => useInputWording(plain));

  it('the command line names its options', () => {
    assert.deepEqual(messages(COMMAND_LINE_WORDING), {
      tooManyRows: 'result has more than 500,000 rows (raise --max-rows to read it all)',
      goldError:
        'JSON, not a gold file: --gold takes the official gold file, one ' +
        '"SQL<TAB>db_id" a line (the question file\'s own SQL is the default gold)',
      noDbId:
        'no "db_id" string; it keeps its place (so the others still pair by position) and ' +
        'takes its database from its --gold line, or is skipped without one',
      carriedGoldNote: "the prediction file's gold differs from the gold used; --gold-from predictions would score against it: SELECT 11",
      carriedGoldHeadline: "Scores use the question file's SQL field; --gold-from predictions scores against the file's own",
      noGold: 'the question has no "SQL" field and no --gold file was given',
    });
  });

  it('the editor names its settings, dataset files and quick fixes, and offers no choice of gold', () => {
    assert.deepEqual(messages(EDITOR_WORDING), {
      tooManyRows: 'result has more than 500,000 rows (raise the vesLens.maxRows setting to read it all)',
      goldError:
        'JSON, not a gold file: the gold file takes the official gold file, one ' +
        '"SQL<TAB>db_id" a line (the question file\'s own SQL is the default gold)',
      noDbId:
        'no "db_id" string; it keeps its place (so the others still pair by position) and ' +
        'takes its database from its gold line, or is skipped without one',
      carriedGoldNote:
        "the prediction file's gold differs from the gold used; scoring against the prediction file's own gold would use it: SELECT 11",
      carriedGoldHeadline: "Scores use the question file's SQL field",
      noGold: 'the question has no "SQL" field and the dataset has no gold file',
    });
  });

  it('no face: plain words, naming no option and no setting', () => {
    for (const text of Object.values(messages(plain))) assert.doesNotMatch(text ?? '', /--[a-z]|vesLens\./, text);
  });
});
