// The engine settings (vesLens.engine, vesLens.postgres.url, vesLens.postgres.layout): read with a fallback for a
// wrong value, offered in package.json as core has them, and the URL a password is stored for.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { POSTGRES_LAYOUTS } from '../../src/core/db/source';
import { DEFAULT_SETTINGS, passwordInUrl, passwordScope, readSettings } from '../../src/shared/settings';
import { REPO_ROOT } from '../helpers';

const declared = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).contributes as {
  configuration: { properties: Record<string, { enum?: string[]; scope?: string }> };
  commands: { command: string; title: string }[];
};

describe('engine settings', () => {
  it('reads the engine, the server URL and its layout, falling back to SQLite and one database for a wrong value', () => {
    const values: Record<string, unknown> = {
      engine: 'postgres',
      'postgres.url': ' postgresql://reader@db.example:5432/bird ',
      'postgres.layout': 'schema',
    };
    assert.deepEqual(
      readSettings((key) => values[key]),
      { ...DEFAULT_SETTINGS, engine: 'postgres', postgresUrl: 'postgresql://reader@db.example:5432/bird', postgresLayout: 'schema' },
    );
    const wrong: Record<string, unknown> = { engine: 'oracle', 'postgres.url': 42, 'postgres.layout': 'toString' };
    assert.deepEqual(
      readSettings((key) => wrong[key]),
      DEFAULT_SETTINGS,
    );
  });

  it("package.json offers core's layouts and the three engines, per workspace, and the password commands", () => {
    const properties = declared.configuration.properties;
    assert.deepEqual(properties['vesLens.engine'].enum, ['sqlite', 'postgres', 'mysql']);
    assert.equal(readSettings((key) => (key === 'engine' ? 'mysql' : undefined)).engine, 'mysql');
    assert.deepEqual(properties['vesLens.postgres.layout'].enum, [...POSTGRES_LAYOUTS]);
    for (const key of ['vesLens.engine', 'vesLens.postgres.url', 'vesLens.postgres.layout'])
      assert.equal(properties[key].scope, 'resource');
    const titles = declared.commands.map((c) => c.title);
    assert.ok(titles.includes('Set PostgreSQL Password') && titles.includes('Clear PostgreSQL Password'));
  });

  it('keeps a password for a URL without its password; finds a password written into the URL', () => {
    assert.equal(
      passwordScope('postgresql://reader:secret@db:5432/bird?password=x&sslmode=require'),
      'postgresql://reader@db:5432/bird?sslmode=require',
    );
    assert.equal(passwordScope(' postgresql://reader@db/bird '), 'postgresql://reader@db/bird');
    assert.equal(passwordInUrl('postgresql://reader:s%40cret@db/bird'), 's@cret');
    assert.equal(passwordInUrl('postgresql://reader@db/bird?password=p'), 'p');
    assert.equal(passwordInUrl('postgresql://reader@db/bird'), undefined);
    assert.equal(passwordInUrl('not a url'), undefined);
  });
});
