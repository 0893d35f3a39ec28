// SQLite compiled to WebAssembly behind the engine seam (issue 31), in this process: it reads a file on disk in
// place, read-only and without locks, as node-sqlite3 reads it (double-quoted strings, values, plans), and stops a
// statement when asked.
process.env.VES_LENS_SQLITE = 'wasm';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { QueryCancelled, QueryTimeout } from '../../src/core/db/database';
import { sqliteEngine } from '../../src/core/db/sqlite/sqliteEngine';
import { sqliteBuild } from '../../src/core/db/sqlite/sqliteBuild';
import { scaleDatabase } from '../../src/core/scale/scaleDatabase';
import { SAMPLE_SUPERHERO, tempDir } from '../helpers';

/** A copy of the sample database in a folder of its own, to see what a connection leaves beside it. */
function sampleCopy(): string {
  const file = path.join(tempDir(), 'superhero.sqlite');
  fs.copyFileSync(SAMPLE_SUPERHERO, file);
  return file;
}

const RUNAWAY = 'SELECT count(*) FROM superhero a, superhero b, superhero c, superhero d';

describe('SQLite as WebAssembly, in process', () => {
  it('is the build VES_LENS_SQLITE=wasm asks for, a current SQLite', async () => {
    assert.equal(sqliteBuild().driver.build, 'WebAssembly');
    assert.match(await sqliteEngine.version(), /^3\.(\d+)\.\d+$/);
  });

  it('reads a file in place, two connections at once, writes nothing and leaves nothing beside it', async () => {
    const file = sampleCopy();
    const before = fs.statSync(file).mtimeMs;
    const a = await sqliteEngine.open(file);
    const b = await sqliteEngine.open(file);
    const rows: unknown[] = [];
    await a.streamRows('SELECT id FROM superhero ORDER BY id LIMIT 2', (row) => rows.push(row), { maxRows: 10 });
    assert.deepEqual(await b.all('SELECT count(*) AS n FROM superhero'), [{ n: 750 }]);
    await assert.rejects(a.all('CREATE TABLE t(x)'), /readonly|read-only/i);
    await a.close();
    await b.close();
    assert.deepEqual(rows, [[1], [2]]);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['superhero.sqlite']);
    assert.equal(fs.statSync(file).mtimeMs, before);
  });

  it('gives values as node-sqlite3 does: double-quoted strings, BLOBs as Buffers, 64-bit integers as numbers', async () => {
    const db = await sqliteEngine.open(SAMPLE_SUPERHERO);
    try {
      const [row] = await db.all(`SELECT "no such column" AS s, x'00ff' AS b, 9007199254740993 AS big, 1.5 AS f, NULL AS n`);
      assert.deepEqual(row, { s: 'no such column', b: Buffer.from([0, 255]), big: 9007199254740992, f: 1.5, n: null });
      await assert.rejects(db.all('SELEC 1'), /syntax error/);
    } finally {
      await db.close();
    }
  });

  it('explains query plans', async () => {
    const db = await sqliteEngine.open(SAMPLE_SUPERHERO);
    try {
      const plan = await db.explainPlan('SELECT * FROM superhero WHERE id = 3');
      assert.equal(plan.length, 1);
      assert.match(plan[0].detail, /^SEARCH superhero USING INTEGER PRIMARY KEY/);
    } finally {
      await db.close();
    }
  });

  it('stops a runaway statement at its deadline and on its signal, and the connection goes on', async () => {
    const db = await sqliteEngine.open(SAMPLE_SUPERHERO);
    try {
      let started = performance.now();
      await assert.rejects(db.drain(RUNAWAY, { deadline: performance.now() + 300, budgetMs: 300 }), QueryTimeout);
      assert.ok(performance.now() - started < 10_000, 'stopped, not run through 750⁴ rows');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      started = performance.now();
      await assert.rejects(db.drain(RUNAWAY, { signal: controller.signal }), QueryCancelled);
      assert.ok(performance.now() - started < 10_000, 'stopped, not run through 750⁴ rows');
      assert.deepEqual(await db.all('SELECT count(*) AS n FROM superhero'), [{ n: 750 }]);
    } finally {
      await db.close();
    }
  });

  it('reads what a scaled copy must repeat (PRAGMA encoding gives it no row: the file header does), so the copy is built', async () => {
    // node-sqlite3 writes the copy; this build reads the source, as where VES_LENS_SQLITE=wasm is chosen beside it.
    const out = path.join(tempDir(), 'superhero_x2.sqlite');
    const report = await scaleDatabase(sampleCopy(), 2, out);
    assert.ok(report.tables.length > 0);
    const copy = await sqliteEngine.open(out);
    assert.deepEqual(await copy.all('SELECT count(*) AS n FROM superhero'), [{ n: 1500 }]);
    await copy.close();
  });
});
