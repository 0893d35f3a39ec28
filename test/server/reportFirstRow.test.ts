// The Report panel's first row (issue 33): Evaluate sends the first final row on its own, as soon as it is scored,
// rather than with the batch of rows that come in the next quarter second; the rows after it still come in
// batches, in question order among the questions that need no timing, each sent once.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ReportRow } from '../../src/shared/protocol';
import { VesLensService } from '../../src/server/service';
import { REPO_ROOT, testCacheHome } from '../helpers';
import { InMemoryDocuments } from './inMemoryDocuments';

process.env.XDG_CACHE_HOME = testCacheHome();

const SAMPLE = path.join(REPO_ROOT, 'sample');
const dataset = {
  questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
  goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  dbRoot: SAMPLE,
};

describe("the report's first row", () => {
  const service = new VesLensService({ documents: new InMemoryDocuments(), log: () => {}, docsRoot: '' });
  before(() => service.initialize({ dataset, trusted: true }));
  after(() => service.dispose());

  it('is sent alone as soon as it is final; the other rows follow in batches, each once', async () => {
    const messages: { rows: ReportRow[]; done: number }[] = [];
    const result = await service.evaluateFile(
      { predictionsFile: path.join(SAMPLE, 'predict_gpt-4_superhero.json'), metrics: ['ex', 'f1', 'ves'] },
      undefined,
      (rows, done) => messages.push({ rows, done }),
    );
    assert.equal(result.questions.length, 52);
    assert.equal(messages[0].rows.length, 1, 'the first message holds the first row only');
    assert.equal(messages[0].done, 1);
    // The first row final is the first question (in file order) whose prediction is not timed: a wrong one.
    const firstUntimed = result.questions.find((row) => row.ex === 0)!;
    assert.equal(messages[0].rows[0].question_id, firstUntimed.question_id);
    assert.ok(messages.length < 52 && messages.slice(1).some((m) => m.rows.length > 1), 'the rest batched, not one message a row');
    const streamed = messages.flatMap((m) => m.rows);
    assert.deepEqual(
      streamed.map((row) => row.question_id).sort(),
      result.questions.map((row) => row.question_id).sort(),
      'every question streamed once',
    );
    const untimed = streamed.filter((row) => row.ex === 0).map((row) => row.index);
    assert.deepEqual(
      untimed,
      [...untimed].sort((a, b) => a - b),
      'the untimed rows in question order',
    );
  });
});
