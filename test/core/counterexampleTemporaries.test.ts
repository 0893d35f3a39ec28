import { strict as assert } from 'node:assert';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { sqliteEngine } from '../../src/core/db/sqlite/sqliteEngine';
import { cleanStaleTemporaries, processAlive, temporaryOwner } from '../../src/core/io/atomicFile';
import { searchCounterexample } from '../../src/core/results/counterexample/search';
import { REPO_ROOT, SAMPLE_SUPERHERO, tempDir } from '../helpers';

/**
 * The counterexample search's work copy is one of atomicFile's tracked temporaries (its owner's pid and host in the
 * name): a search killed with kill -9 (a real process, a real signal) leaves a folder the next run recognises and
 * removes; a counterexample database is written through a temporary and renamed, so its folder never holds half a file.
 */

const ours = (folder: string) => fs.readdirSync(folder).filter((name) => temporaryOwner(name) !== undefined);

async function schemaOf(file: string) {
  const db = await sqliteEngine.open(file);
  try {
    return await db.readSchema();
  } finally {
    await db.close();
  }
}

describe('counterexample temporaries', () => {
  it('a search killed with kill -9 leaves a work copy named as ours, which the next cleaning removes', async () => {
    const tmp = tempDir('ves-lens-tmpdir-');
    const script = path.join(tempDir('ves-lens-child-'), 'child.mts'); // .mts: top-level await
    // Each run of this pair takes seconds (750³ rows counted), so the kill comes while the search works on its copy.
    const slow = 'SELECT count(*) FROM superhero a, superhero b, superhero c';
    fs.writeFileSync(
      script,
      `import { sqliteEngine } from ${JSON.stringify(path.join(REPO_ROOT, 'src/core/db/sqlite/sqliteEngine.ts'))};
       import { searchCounterexample } from ${JSON.stringify(path.join(REPO_ROOT, 'src/core/results/counterexample/search.ts'))};
       const db = await sqliteEngine.open(${JSON.stringify(SAMPLE_SUPERHERO)});
       const schema = await db.readSchema();
       await searchCounterexample(
         { dbPath: ${JSON.stringify(SAMPLE_SUPERHERO)}, gold: ${JSON.stringify(slow)},
           prediction: ${JSON.stringify(slow + ' WHERE 1')}, name: 'x' },
         { outDir: ${JSON.stringify(tmp)}, budgetMs: 120000, maxRows: 1000, schema },
       );`,
    );
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: REPO_ROOT,
      env: { ...process.env, TMPDIR: tmp },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const started = Date.now();
    while (!ours(tmp).some((name) => fs.existsSync(path.join(tmp, name, 'work.sqlite')))) {
      assert.ok(Date.now() - started < 60_000, 'the search never made its work copy');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    await exited;
    assert.ok(!processAlive(child.pid!));
    const left = ours(tmp);
    assert.equal(left.length, 1, 'kill -9 runs no exit handler: the work copy is left');
    assert.equal(temporaryOwner(left[0]), child.pid);
    assert.deepEqual(
      cleanStaleTemporaries(tmp).map((file) => path.basename(file)),
      left,
    );
    assert.deepEqual(ours(tmp), []);
  });

  it('a counterexample database found is renamed into place whole; no temporary stays in its folder or the temp folder', async () => {
    const outDir = tempDir('ves-lens-cx-out-');
    const tmp = tempDir('ves-lens-tmpdir-');
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      // count(*) against count(superhero_name): a NULL put in the name separates them.
      const found = await searchCounterexample(
        {
          dbPath: SAMPLE_SUPERHERO,
          gold: 'SELECT count(*) FROM superhero',
          prediction: 'SELECT count(superhero_name) FROM superhero',
          name: 'first',
        },
        { outDir, budgetMs: 5000, maxRows: 1000, schema: await schemaOf(SAMPLE_SUPERHERO) },
      );
      assert.equal(found.search.result, 'found', found.search.note);
      assert.deepEqual(fs.readdirSync(outDir), ['first.sqlite']);
      assert.deepEqual(ours(tmp), []);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
