// Which gold file goes with a question file (the editor's attach flow): by name and version, or ask.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { pairGoldFile } from '../../src/core/bird/goldPairing';
import { BIRD_DATA, birdDataMissing } from '../helpers';

const Q = '/data/questions';
const MINI_DEV_GOLDS = [
  `${Q}/mini_dev_mysql_gold.sql`,
  `${Q}/mini_dev_postgresql_gold.sql`,
  `${Q}/mini_dev_sqlite_gold.v1-2024.sql`,
  `${Q}/mini_dev_sqlite_gold.v3.sql`,
  `${Q}/dev_gold.damo-2023.sql`,
];

describe('pairing a question file with its gold file', () => {
  it('pairs by version when both mini-dev versions share a folder (the prefix and the folder picked v1-2024 for v3)', () => {
    assert.deepEqual(pairGoldFile(`${Q}/mini_dev_sqlite.v3.json`, MINI_DEV_GOLDS), {
      kind: 'paired',
      goldFile: `${Q}/mini_dev_sqlite_gold.v3.sql`,
    });
    assert.deepEqual(pairGoldFile(`${Q}/mini_dev_sqlite.v1-2024.json`, MINI_DEV_GOLDS), {
      kind: 'paired',
      goldFile: `${Q}/mini_dev_sqlite_gold.v1-2024.sql`,
    });
    assert.deepEqual(pairGoldFile(`${Q}/dev.damo-2023.json`, MINI_DEV_GOLDS), { kind: 'paired', goldFile: `${Q}/dev_gold.damo-2023.sql` });
    assert.deepEqual(pairGoldFile(`${Q}/mini_dev_mysql.json`, MINI_DEV_GOLDS), {
      kind: 'paired',
      goldFile: `${Q}/mini_dev_mysql_gold.sql`,
    });
  });

  it("pairs no gold when every gold file names another set or version (the questions' own SQL is the gold)", () => {
    assert.deepEqual(pairGoldFile(`${Q}/dev.rose.json`, MINI_DEV_GOLDS), { kind: 'none' });
    assert.deepEqual(pairGoldFile(`${Q}/mini_dev.rose.json`, MINI_DEV_GOLDS), { kind: 'none' });
    assert.deepEqual(pairGoldFile('/a/dev.json', []), { kind: 'none' });
  });

  it('asks when the names cannot tell: an unversioned question file beside two versioned golds', () => {
    const pairing = pairGoldFile(`${Q}/mini_dev_sqlite.json`, MINI_DEV_GOLDS);
    assert.deepEqual(pairing, { kind: 'ask', candidates: [`${Q}/mini_dev_sqlite_gold.v1-2024.sql`, `${Q}/mini_dev_sqlite_gold.v3.sql`] });
  });

  it('asks between two gold files of the same name and version in other folders; prefers the one beside the questions', () => {
    const golds = ['/x/dev_gold.sql', '/y/dev_gold.sql'];
    assert.deepEqual(pairGoldFile('/z/dev.json', golds), { kind: 'ask', candidates: golds });
    assert.deepEqual(pairGoldFile('/y/dev.json', golds), { kind: 'paired', goldFile: '/y/dev_gold.sql' });
  });

  it("keeps the simple layouts: the sample's prefix, a lone gold.sql beside the questions, an unversioned gold", () => {
    assert.deepEqual(pairGoldFile('/s/mini_dev_superhero.json', ['/s/mini_dev_superhero_gold.sql']), {
      kind: 'paired',
      goldFile: '/s/mini_dev_superhero_gold.sql',
    });
    assert.deepEqual(pairGoldFile('/s/dev.json', ['/s/gold.sql', '/t/gold.sql']), { kind: 'paired', goldFile: '/s/gold.sql' });
    assert.deepEqual(pairGoldFile('/s/mini_dev_sqlite.v3.json', ['/s/mini_dev_sqlite_gold.sql']), {
      kind: 'paired',
      goldFile: '/s/mini_dev_sqlite_gold.sql',
    });
    assert.deepEqual(pairGoldFile('/s/dev.json', ['/s/train_gold.sql']), { kind: 'none' }, 'a lone gold of another set is not taken');
  });

  it('pairs every question file of the shared mini-dev folder with the gold of its own version', { skip: birdDataMissing() }, () => {
    const folder = path.join(BIRD_DATA, 'questions');
    const golds = fs
      .readdirSync(folder)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => path.join(folder, f));
    const goldOf = (name: string) => {
      const pairing = pairGoldFile(path.join(folder, name), golds);
      return pairing.kind === 'paired' ? path.basename(pairing.goldFile) : pairing.kind;
    };
    assert.equal(goldOf('mini_dev_sqlite.v3.json'), 'mini_dev_sqlite_gold.v3.sql');
    assert.equal(goldOf('mini_dev_sqlite.v1-2024.json'), 'mini_dev_sqlite_gold.v1-2024.sql');
    assert.equal(goldOf('dev.damo-2023.json'), 'dev_gold.damo-2023.sql');
  });
});
