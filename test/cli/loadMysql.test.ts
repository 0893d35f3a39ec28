// `ves-lens load --to mysql://…` on a real MariaDB server (an empty throwaway one): the official dump's layout (one
// database, SQLite's names), every row, keys, a second load refused without --replace and done with it.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/core/db/engines';
import { LocalServer, startLocalServer } from '../../src/core/db/mysql/localServer';
import { BIRD_DATA, runCli } from '../helpers';
import { mysqlMissing } from '../mysqlServer';

describe('load --to mysql://', { skip: mysqlMissing() }, () => {
  let server: LocalServer;
  before(async () => {
    server = await startLocalServer();
  });
  after(() => server?.stop());

  it('loads a database into one database of the server, names and rows as in SQLite, and refuses to load it twice', async () => {
    const to = server.adminUrl.replace('localhost/', 'localhost/BIRD');
    const args = ['load', '--from', path.join(BIRD_DATA, 'databases'), '--db', 'superhero', '--to', to, '--no-progress'];
    const run = runCli(args, { timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /loaded [\d,]+ rows into 10\.11\.\S+MariaDB\S* at mysql:\/\/root@localhost\/BIRD\?socket=\S+ \(database BIRD\)/,
    );
    const sqlite = await openDatabase(path.join(BIRD_DATA, 'databases', 'superhero', 'superhero.sqlite'));
    const db = await openDatabase(server.url.replace('localhost/', 'localhost/BIRD'));
    try {
      const schema = await db.readSchema();
      for (const table of (await sqlite.readSchema()).tables.values())
        assert.equal(schema.tables.get(table.name)?.rowCount, table.rowCount, table.name);
      assert.deepEqual(
        schema.tables
          .get('hero_power')
          ?.foreignKeys.map((k) => k.table)
          .sort(),
        ['superhero', 'superpower'],
      );
    } finally {
      await db.close();
      await sqlite.close();
    }
    const again = runCli(args, { timeout: 120_000 });
    assert.notEqual(again.status, 0);
    assert.match(again.stderr, /BIRD already has .*superhero.*--replace/);
    const replaced = runCli([...args, '--replace'], { timeout: 120_000 });
    assert.equal(replaced.status, 0, replaced.stderr);
  });
});
