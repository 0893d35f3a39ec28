import { strict as assert } from 'node:assert';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cachedCopy, workingCopy } from '../../src/core/db/pglite/embeddedCopy';
import { CachedEmbeddings, embeddingKey } from '../../src/core/embeddings/diskCache';
import { EmbeddingProvider } from '../../src/core/embeddings/provider';
import { processAlive, temporaryOwner } from '../../src/core/io/atomicFile';
import { ReplyCache, replyKey } from '../../src/core/llm/replyCache';
import { REPO_ROOT, tempDir } from '../helpers';

/**
 * Issue 20, item 1 for the caches: the judge's reply cache, the embeddings cache and the embedded PostgreSQL's
 * copies write through atomicFile's tracked temporaries, so those of a run killed with kill -9 (a real process,
 * a real signal) are recognised by their dead owner's pid and removed by the next run, and a live run's are left alone.
 */

/** Runs `source` (TypeScript, through tsx) in a real process; resolves once `ready(child)` holds, polling. */
async function startChild(source: string, env: NodeJS.ProcessEnv, ready: () => boolean): Promise<ChildProcess> {
  const script = path.join(tempDir('ves-lens-child-'), 'child.ts');
  fs.writeFileSync(script, source);
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
  let exited = false;
  child.on('exit', () => (exited = true));
  const started = Date.now();
  while (!ready()) {
    assert.ok(!exited, 'the child ended before it was ready');
    assert.ok(Date.now() - started < 60_000, 'the child never got ready');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

async function kill9(child: ChildProcess): Promise<number> {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  assert.ok(!processAlive(child.pid!), 'the child is gone');
  return child.pid!;
}

/** Our temporaries in a folder (their names carry the owner's pid). */
const temporariesIn = (folder: string) =>
  fs.existsSync(folder) ? fs.readdirSync(folder).filter((name) => temporaryOwner(name) !== undefined) : [];

const src = (file: string) => JSON.stringify(path.join(REPO_ROOT, 'src', file));

describe('cache temporaries of killed runs', () => {
  it("the reply cache: a killed writer's temporary is removed by the next put, a live process's is left, the entry is whole", async () => {
    const dir = tempDir('ves-lens-replies-');
    const key = replyKey('m', [{ role: 'user', content: 'q' }]);
    const shard = path.join(dir, key.slice(0, 2));
    // A real writer, killed while its temporary exists (it holds it open and waits, as a write cut short would).
    const killed = await startChild(
      `import { temporaryPathFor, trackTemporary } from ${src('core/io/atomicFile.ts')};
       import * as fs from 'fs';
       fs.mkdirSync(${JSON.stringify(shard)}, { recursive: true });
       const temporary = temporaryPathFor(${JSON.stringify(path.join(shard, `${key}.json`))});
       trackTemporary(temporary);
       fs.writeFileSync(temporary, '{"model": "m", "te');
       setInterval(() => {}, 1000);`,
      {},
      () => temporariesIn(shard).length === 1,
    );
    const stale = temporariesIn(shard)[0];
    assert.equal(await kill9(killed), temporaryOwner(stale));
    assert.ok(fs.existsSync(path.join(shard, stale)), 'kill -9 runs no exit handler: the temporary is left');
    // Another run writing there now (alive): its temporary must survive.
    const live = spawn('sleep', ['30']);
    const liveTemporary = `.other.json.ves-lens-${live.pid}-1.tmp`;
    fs.writeFileSync(path.join(shard, liveTemporary), 'in progress');
    try {
      const cache = new ReplyCache(dir);
      cache.put(key, { model: 'm', text: 'the reply', created: 'now' });
      assert.deepEqual(temporariesIn(shard), [liveTemporary]);
      assert.equal(cache.get(key)?.text, 'the reply');
    } finally {
      live.kill();
    }
  });

  it("the embeddings cache: a dead run's temporary goes, the vectors are read back whole, none of this run's is left", async () => {
    const dir = tempDir('ves-lens-embeddings-');
    const provider: EmbeddingProvider = { id: 'fake', embed: async (texts) => texts.map((t) => new Float32Array([t.length, 1, 2])) };
    const shard = path.join(dir, embeddingKey('fake', 'cc').slice(0, 2));
    fs.mkdirSync(shard, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const stale = `.${embeddingKey('fake', 'cc')}.f32.ves-lens-${dead.stdout}-3.tmp`;
    fs.writeFileSync(path.join(shard, stale), Buffer.alloc(6)); // half a vector, its writer gone
    const cache = new CachedEmbeddings(provider, dir);
    await cache.embed(['a', 'b', 'cc']);
    assert.ok(!fs.existsSync(path.join(shard, stale)), "the dead run's temporary is removed");
    for (const folder of fs.readdirSync(dir)) assert.deepEqual(temporariesIn(path.join(dir, folder)), []);
    const again = new CachedEmbeddings(provider, dir);
    const vectors = await again.embed(['a', 'b', 'cc']);
    assert.deepEqual(
      vectors.map((v) => [...v]),
      [
        [1, 1, 2],
        [1, 1, 2],
        [2, 1, 2],
      ],
    );
    assert.equal(again.requested, 0, 'every vector came from the cache');
  });

  it("the embedded PostgreSQL: a build and a working copy of runs killed with kill -9 are removed by the next run's", async () => {
    const cacheDir = tempDir('ves-lens-pglite-cache-');
    const tmp = tempDir('ves-lens-pglite-tmp-');
    const sample = path.join(REPO_ROOT, 'sample');
    const buildsIn = () => {
      const roots = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
      return roots.flatMap((root) => temporariesIn(path.join(cacheDir, root)).map((name) => path.join(cacheDir, root, name)));
    };
    // A run killed mid-build leaves its half-built copy (the build takes seconds: it is killed once it began).
    const builder = await startChild(
      `import { cachedCopy } from ${src('core/db/pglite/embeddedCopy.ts')};
       void cachedCopy(${JSON.stringify(sample)}, { cacheDir: ${JSON.stringify(cacheDir)}, layout: 'one-database' });`,
      {},
      () => buildsIn().length === 1,
    );
    const [halfBuilt] = buildsIn();
    await kill9(builder);
    assert.ok(fs.existsSync(halfBuilt));
    const copy = await cachedCopy(sample, { cacheDir, layout: 'one-database' });
    assert.ok(copy.built);
    assert.ok(!fs.existsSync(halfBuilt), 'the killed build is removed');
    assert.deepEqual(buildsIn(), [], 'and this build left none');

    // A run killed while it worked on its own copy of the kept one (in the temporary folder).
    const worker = await startChild(
      `import { workingCopy } from ${src('core/db/pglite/embeddedCopy.ts')};
       workingCopy(${JSON.stringify(copy.dataDir)});
       setInterval(() => {}, 1000);`,
      { TMPDIR: tmp },
      () => temporariesIn(tmp).length === 1 && fs.existsSync(path.join(tmp, temporariesIn(tmp)[0], 'pgdata', 'PG_VERSION')),
    );
    const [leftOver] = temporariesIn(tmp);
    await kill9(worker);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const work = await workingCopy(copy.dataDir);
      assert.ok(!fs.existsSync(path.join(tmp, leftOver)), "the killed run's working copy is removed");
      assert.ok(fs.existsSync(path.join(work.dataDir, 'PG_VERSION')));
      work.remove();
      assert.deepEqual(temporariesIn(tmp), []);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
