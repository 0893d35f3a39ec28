// The database engine seam: only src/core/db/ reaches the driver, one connection cache per dataset with one
// failure message, and one result-columns reader whose labels the preview, the judge and the techniques share.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ConnectionCache, DatabaseUnavailable } from '../../src/core/db/connectionCache';
import { DatabaseConnection } from '../../src/core/db/engine';
import { sqliteFolder } from '../../src/core/db/source';
import { readTypedResult } from '../../src/core/results/sqlmorph/typedResult';
import { runForJudge } from '../../src/core/judge/runQuery';
import { resultPreview } from '../../src/app/queryRuns';
import { makeDatabase, REPO_ROOT, SAMPLE_SUPERHERO, tempDir, useSampleSuperhero } from '../helpers';

/**
 * The drivers' package names (SQLite, native and WebAssembly; PostgreSQL's node-postgres, its cursor and URL parser;
 * PGlite), spelled so that this file does not match its own search.
 */
const DRIVERS = [
  ['@vscode', 'sqlite3'],
  ['@sqlite.org', 'sqlite-wasm'],
  ['pg'],
  ['pg', 'cursor'],
  ['pg', 'connection', 'string'],
  ['@electric-sql', 'pglite'],
].map((parts) => parts.join(parts[0].startsWith('@') ? '/' : '-'));
const DRIVER_IMPORT = new RegExp(String.raw`(from\s+|require\(\s*|import\(\s*)['"](${DRIVERS.join('|')})(/[^'"]*)?['"]`);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
  });
}

describe('the engine seam', () => {
  it('no file outside src/core/db/ imports a database driver (SQLite, PostgreSQL, PGlite)', () => {
    const engineFolder = path.join(REPO_ROOT, 'src', 'core', 'db') + path.sep;
    const offenders = ['src', 'test']
      .flatMap((folder) => sourceFiles(path.join(REPO_ROOT, folder)))
      .filter((file) => !file.startsWith(engineFolder) && DRIVER_IMPORT.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(REPO_ROOT, file));
    assert.deepEqual(offenders, []);
  });

  it('each SQLite build is imported in its own folder only: node-sqlite3 in sqlite/, the WebAssembly build in sqliteWasm/', () => {
    const importsOf = (driver: string) =>
      sourceFiles(path.join(REPO_ROOT, 'src'))
        .filter((file) => new RegExp(String.raw`(from\s+|require\(\s*|import\(\s*)['"]${driver}['"]`).test(fs.readFileSync(file, 'utf8')))
        .map((file) => path.relative(path.join(REPO_ROOT, 'src', 'core', 'db'), path.dirname(file)));
    assert.deepEqual([...new Set(importsOf(DRIVERS[0]))], ['sqlite']);
    assert.deepEqual([...new Set(importsOf(DRIVERS[1]))], ['sqliteWasm']);
  });

  it("no file outside src/core/db/ reads SQLite's catalogue (sqlite_master, sqlite_stat1, pragma_* functions)", () => {
    const engineFolder = path.join(REPO_ROOT, 'src', 'core', 'db') + path.sep;
    const catalogueRead = /\bFROM\s+(sqlite_master|sqlite_schema|sqlite_stat\d|pragma_\w+)\b/i;
    const offenders = sourceFiles(path.join(REPO_ROOT, 'src'))
      .filter((file) => !file.startsWith(engineFolder) && catalogueRead.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(REPO_ROOT, file));
    assert.deepEqual(offenders, []);
  });

  describe('result columns: one reader, the same labels everywhere', () => {
    let db: DatabaseConnection;
    useSampleSuperhero((opened) => ({ db } = opened));
    const limits = { timeoutMs: 5000, maxRows: 1000 };

    for (const [label, sql, expected] of [
      [
        'a repeated column and expressions',
        'SELECT id, id, height_cm * 2, upper(superhero_name) FROM superhero LIMIT 3',
        ['id', 'id', 'height_cm * 2', 'upper(superhero_name)'],
      ],
      ['an empty result', 'SELECT id, id, height_cm * 2 FROM superhero WHERE 0', ['id', 'id', 'height_cm * 2']],
      ['aliases differing in case only', 'SELECT id AS ID, id FROM superhero LIMIT 1', ['ID', 'id']],
    ] as const) {
      it(`labels ${label} alike in the preview, the techniques and the judge`, async () => {
        const preview = await resultPreview(db, sql, limits);
        const techniques = await readTypedResult(db, sql, { maxRows: limits.maxRows });
        const judged = await runForJudge(db, sql, limits);
        assert.deepEqual(preview.columns, expected);
        assert.deepEqual(techniques.status === 'ok' && techniques.table.columns, expected);
        assert.deepEqual(judged.status === 'ok' && judged.result.columns, expected);
      });
    }
  });

  describe('the connection cache', () => {
    it('opens each database once and keeps its schema', async () => {
      const cache = ConnectionCache.withSchema();
      try {
        const first = await cache.open(SAMPLE_SUPERHERO);
        assert.equal(await cache.open(SAMPLE_SUPERHERO), first);
        assert.ok(first.schema.tables.has('superhero'));
      } finally {
        await cache.closeAll();
      }
    });

    it('says why a question cannot be scored, in one message, and remembers it', async () => {
      const root = tempDir();
      await makeDatabase(path.join(root, 'good', 'good.sqlite'), 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);');
      fs.mkdirSync(path.join(root, 'broken'));
      fs.writeFileSync(path.join(root, 'broken', 'broken.sqlite'), 'not a database at all, just text long enough to be read');
      const cache = ConnectionCache.withSchema({ source: sqliteFolder(root) });
      try {
        const good = await cache.forQuestion('good');
        assert.ok(!(good instanceof DatabaseUnavailable) && good.schema.tables.has('t'));
        const missing = await cache.forQuestion('absent');
        assert.ok(missing instanceof DatabaseUnavailable);
        assert.equal(missing.reason, 'not-found');
        assert.equal(missing.message, `database not found: ${path.join(root, 'absent', 'absent.sqlite')}`);
        const unnamed = await cache.forQuestion('');
        assert.ok(unnamed instanceof DatabaseUnavailable && unnamed.reason === 'no-database-named');
        assert.match(unnamed.message, /^the question names no database/);
        const broken = await cache.forQuestion('broken');
        assert.ok(broken instanceof DatabaseUnavailable && broken.reason === 'cannot-open');
        assert.match(broken.message, /^cannot open .*broken\.sqlite: a text file .*not a SQLite database/);
        assert.equal(await cache.forQuestion('broken'), broken, 'the failure is remembered, not retried');
      } finally {
        await cache.closeAll();
      }
    });

    it('tries a failed file again when asked to forget failures (the editor)', async () => {
      const file = path.join(tempDir(), 'late.sqlite');
      const cache = ConnectionCache.connections({ forgetFailures: true });
      try {
        await assert.rejects(cache.open(file), DatabaseUnavailable);
        await makeDatabase(file, 'CREATE TABLE t (x INTEGER);');
        const opened = await cache.open(file);
        assert.equal(opened.path, file);
      } finally {
        await cache.closeAll();
      }
    });
  });

  describe('plans and same work', () => {
    let db: DatabaseConnection;
    useSampleSuperhero((opened) => ({ db } = opened));

    it('explains a plan as the typed tree and compares programs', async () => {
      const tree = await db.explainPlan('SELECT superhero_name FROM superhero WHERE id = 3');
      assert.equal(tree[0].kind, 'search');
      assert.equal(await db.sameWork('SELECT id FROM superhero', 'select  T.id from superhero AS T'), 'same');
      assert.equal(await db.sameWork('SELECT id FROM superhero', 'SELECT id FROM superhero WHERE id > 1'), 'different');
      assert.equal(await db.sameWork('SELECT nope FROM superhero', 'SELECT nope FROM superhero'), 'different');
      assert.equal(db.engine.name, 'sqlite');
    });
  });
});
