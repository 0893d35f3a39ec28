import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ConnectionCache, DatabaseUnavailable } from '../../src/core/db/connectionCache';
import { DatabaseSource, sqliteFolder } from '../../src/core/db/source';
import { makeDatabase, tempDir } from '../helpers';

/** BIRD's folder layout, counting how often the file system is asked whether each database is there. */
function countingFolder(root: string): { source: DatabaseSource; asked: Map<string, number> } {
  const folder = sqliteFolder(root);
  const asked = new Map<string, number>();
  const source: DatabaseSource = {
    ...folder,
    exists: (dbId) => {
      asked.set(dbId, (asked.get(dbId) ?? 0) + 1);
      return folder.exists(dbId);
    },
  };
  return { source, asked };
}

describe('a question database is looked for once per run (issue 21)', () => {
  it('asks whether a database is there once, whether it is there or missing, and says the same for each question', async () => {
    const root = tempDir();
    await makeDatabase(path.join(root, 'good', 'good.sqlite'), 'CREATE TABLE t (x INTEGER);');
    const { source, asked } = countingFolder(root);
    const cache = ConnectionCache.connections({ source });
    try {
      for (let question = 0; question < 5; question++) {
        const good = await cache.forQuestion('good');
        assert.ok(!(good instanceof DatabaseUnavailable));
        const missing = await cache.forQuestion('absent');
        assert.ok(missing instanceof DatabaseUnavailable && missing.reason === 'not-found');
        assert.equal(missing.message, `database not found: ${path.join(root, 'absent', 'absent.sqlite')}`);
      }
      assert.deepEqual(Object.fromEntries(asked), { good: 1, absent: 1 });
    } finally {
      await cache.closeAll();
    }
  });

  it('asks again each time when failures are forgotten (the editor), and finds a database that appeared', async () => {
    const root = tempDir();
    const { source, asked } = countingFolder(root);
    const cache = ConnectionCache.connections({ source, forgetFailures: true });
    try {
      assert.ok((await cache.forQuestion('late')) instanceof DatabaseUnavailable);
      assert.ok((await cache.forQuestion('late')) instanceof DatabaseUnavailable);
      await makeDatabase(path.join(root, 'late', 'late.sqlite'), 'CREATE TABLE t (x INTEGER);');
      assert.ok(!((await cache.forQuestion('late')) instanceof DatabaseUnavailable));
      assert.equal(asked.get('late'), 3);
    } finally {
      await cache.closeAll();
    }
  });

  it('forgets what it found missing once closed', async () => {
    const root = tempDir();
    const { source } = countingFolder(root);
    const cache = ConnectionCache.connections({ source });
    assert.ok((await cache.forQuestion('late')) instanceof DatabaseUnavailable);
    await cache.closeAll();
    await makeDatabase(path.join(root, 'late', 'late.sqlite'), 'CREATE TABLE t (x INTEGER);');
    try {
      assert.ok(!((await cache.forQuestion('late')) instanceof DatabaseUnavailable));
    } finally {
      await cache.closeAll();
    }
  });

  it('keeps what it found per database name: in a one-database layout a missing schema does not hide the others', async () => {
    const root = tempDir();
    const shared = path.join(root, 'all.sqlite');
    await makeDatabase(shared, 'CREATE TABLE t (x INTEGER);');
    const schemas = new Set(['superhero']);
    // Every name shares one target, as a PostgreSQL server's one-database layout has one schema per question database.
    const source: DatabaseSource = { ...sqliteFolder(root), targetFor: () => shared, exists: async (dbId) => schemas.has(dbId) };
    const cache = ConnectionCache.connections({ source });
    try {
      assert.ok((await cache.forQuestion('debit_card_specializing')) instanceof DatabaseUnavailable);
      assert.ok(!((await cache.forQuestion('superhero')) instanceof DatabaseUnavailable));
      assert.ok((await cache.forQuestion('debit_card_specializing')) instanceof DatabaseUnavailable);
      assert.ok(!((await cache.forQuestion('superhero')) instanceof DatabaseUnavailable));
    } finally {
      await cache.closeAll();
    }
  });
});
