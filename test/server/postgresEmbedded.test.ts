// The editor on the embedded PostgreSQL (issue 18): vesLens.engine postgres with no server URL loads the dataset's
// SQLite files into PGlite (its copy kept in the extension's storage), runs the official PostgreSQL gold and a
// PostgreSQL statement on it, and says what ran the SQL: embedded, and that its timings are not a server's.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VesLensService } from '../../src/server/service';
import { DEFAULT_SETTINGS } from '../../src/shared/settings';
import { birdDataMissing, REPO_ROOT, tempDir } from '../helpers';
import { InMemoryDocuments } from './inMemoryDocuments';
import { SAMPLE, SAMPLE_QUESTIONS, superheroPostgresGold } from './postgresFixtures';

const PG_PREDICTION =
  "SELECT sp.power_name FROM superpower sp WHERE sp.id = ANY (ARRAY(SELECT hp.power_id FROM hero_power hp JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name ILIKE '3-d man'))";

describe('the editor on the embedded PostgreSQL (service in-process)', { skip: birdDataMissing(), timeout: 300_000 }, () => {
  const storageDir = tempDir('ves-lens-storage-');
  const documents = new InMemoryDocuments();
  const service = new VesLensService({ documents, log: () => undefined, docsRoot: path.join(REPO_ROOT, 'docs', 'rules') });

  before(async () => {
    const goldFile = superheroPostgresGold(tempDir())!;
    await service.initialize({
      dataset: { questionsFile: SAMPLE_QUESTIONS, goldFile, dbRoot: SAMPLE },
      trusted: true,
      settings: { ...DEFAULT_SETTINGS, engine: 'postgres', postgresUrl: '' },
      storageDir,
    });
  });
  after(() => service.dispose());

  it('loads the SQLite files into an embedded PostgreSQL kept in the extension storage, and says so', () => {
    const summary = service.summary();
    assert.equal(summary.engineError, undefined);
    assert.equal(summary.engine?.engine, 'postgres');
    assert.equal(summary.engine?.runs, 'embedded');
    assert.match(summary.engine?.line ?? '', /^PostgreSQL \d+\.\d+ \(embedded PGlite, WASM, loaded from .*sample, one-database layout\)$/);
    assert.deepEqual(
      summary.databases.map(({ dbId, present }) => ({ dbId, present })),
      [{ dbId: 'superhero', present: true }],
    );
    assert.ok(fs.readdirSync(path.join(storageDir, 'pglite')).length > 0, 'the copy is kept under the extension storage');
  });

  it("scores a PostgreSQL statement against the PostgreSQL gold, noting that an embedded engine's timings are no server's", async () => {
    const result = await service.score({ sql: PG_PREDICTION, questionId: 717 });
    assert.equal(result.outcome, 'correct', result.error ?? '');
    assert.equal(result.ex, 1);
    assert.match(result.engine, /embedded PGlite, WASM/);
    assert.ok(
      result.notes.some((note) => /not a PostgreSQL server's/.test(note)),
      result.notes.join('\n'),
    );
  });
});
