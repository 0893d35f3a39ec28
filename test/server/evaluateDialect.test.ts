// The editor's Evaluate refuses a prediction file in another dialect than the engine (issue 30), as `eval` does,
// saying which setting to change: the sample's PostgreSQL predictions on the sample's SQLite dataset.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VesLensService } from '../../src/server/service';
import { REPO_ROOT, testCacheHome } from '../helpers';
import { InMemoryDocuments } from './inMemoryDocuments';

process.env.XDG_CACHE_HOME = testCacheHome();
const SAMPLE = path.join(REPO_ROOT, 'sample');

describe('Evaluate in the editor: the dialect of a prediction file', () => {
  const service = new VesLensService({ documents: new InMemoryDocuments(), log: () => {}, docsRoot: '' });
  before(() =>
    service.initialize({
      dataset: {
        questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
        goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
        dbRoot: SAMPLE,
      },
      trusted: true,
    }),
  );
  after(() => service.dispose());

  it('refuses PostgreSQL predictions on the SQLite engine, naming the setting; scores the SQLite ones', async () => {
    await assert.rejects(
      service.evaluateFile({ predictionsFile: path.join(SAMPLE, 'predict_gpt-4_superhero_postgresql.json'), metrics: ['ex'] }),
      /predict_gpt-4_superhero_postgresql\.json reads as PostgreSQL SQL \(.*\), but the engine is SQLite: set vesLens\.engine to postgres/,
    );
    const result = await service.evaluateFile({ predictionsFile: path.join(SAMPLE, 'predict_gpt-4_superhero.json'), metrics: ['ex'] });
    assert.equal(result.questions.length, 52);
  });
});
