// `ves-lens load` as users run it, against a throwaway PostgreSQL 15 cluster on a unix socket.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing, startLocalCluster } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, birdDataMissing, runCli } from '../helpers';

const DATABASES = path.join(BIRD_DATA, 'databases');

describe('ves-lens load (a real process)', { skip: localClusterMissing() || birdDataMissing() }, () => {
  let cluster: LocalCluster;
  /** The cluster's URL with a password in it (trust authentication ignores it): it must never be printed. */
  let urlWithPassword: string;

  before(() => {
    cluster = startLocalCluster({ database: 'bird' });
    urlWithPassword = cluster.url.replace('postgres@', 'postgres:hunter2@');
  });
  after(() => cluster?.stop());

  it('loads databases, prints what it made of them, and never the password', () => {
    const result = runCli(['load', '--from', DATABASES, '--to', urlWithPassword, '--db', 'superhero,toxicology']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /superhero\s+│ public\s+│\s+10 │\s+10,614 │/);
    assert.match(result.stdout, /toxicology\s+│ public\s+│\s+4 │\s+49,813 │/);
    assert.match(
      result.stdout,
      /note: toxicology: foreign key atom\(molecule_id\) → molecule\(molecule_id\) not kept: Key \(molecule_id\)=\(TR003\)/,
    );
    assert.match(result.stdout, /loaded 60,427 rows into PostgreSQL 15\.\d+ .* at postgresql:\/\/postgres@localhost/);
    assert.doesNotMatch(result.stdout + result.stderr, /hunter2/);
  });

  it('refuses a target that has the tables already, in one line with exit code 2, and reloads them with --replace', () => {
    const refused = runCli(['load', '--from', DATABASES, '--to', urlWithPassword, '--db', 'superhero']);
    assert.equal(refused.status, 2);
    const errors = refused.stderr.split('\n').filter((line) => line.startsWith('error'));
    assert.deepEqual(errors, [
      `error: ${cluster.url} already has tables of superhero (public.alignment, public.attribute, ` +
        'public.colour and 7 more): add --replace to drop and reload them',
    ]);
    const replaced = runCli(['load', '--from', DATABASES, '--to', urlWithPassword, '--db', 'superhero', '--replace', '--json']);
    assert.equal(replaced.status, 0, replaced.stderr);
    const report = JSON.parse(replaced.stdout);
    assert.equal(report.databases[0].replaced.length, 10);
    assert.equal(report.layout, 'one-database');
    assert.doesNotMatch(replaced.stdout, /hunter2/);
  });

  it('says why a server cannot be reached, naming the option, without the password or a stack trace', () => {
    const result = runCli(['load', '--from', DATABASES, '--to', 'postgresql://ann:hunter2@localhost:1/bird', '--db', 'superhero']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^error: --to: cannot connect to postgresql:\/\/ann@localhost:1\/bird: connect ECONNREFUSED/m);
    assert.doesNotMatch(result.stderr, /hunter2|\n\s+at /);
  });

  it('names a missing database and a wrong layout', () => {
    const missing = runCli(['load', '--from', DATABASES, '--to', cluster.url, '--db', 'formula_1']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /error: --db formula_1: .*formula_1\.sqlite: file not found/);
    const layout = runCli(['load', '--from', DATABASES, '--to', cluster.url, '--layout', 'tables']);
    assert.equal(layout.status, 2);
    assert.match(layout.stderr, /--layout.*tables.*one-database, schema, database/);
  });
});
