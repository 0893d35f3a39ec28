import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { runCli, tempDir } from '../helpers';

/** The code cache bin/ves-lens.js keeps of the bundle: made once, used after, never in the way. */
describe('the command line keeps a V8 code cache of its bundle', () => {
  const cacheFiles = (home: string) => {
    const folder = path.join(home, 'ves-lens', 'code-cache');
    return fs.existsSync(folder) ? fs.readdirSync(folder).map((name) => path.join(folder, name)) : [];
  };

  it('writes the cache on the first run, reads it without rewriting on the next, with the same output', () => {
    const home = tempDir();
    const env = { XDG_CACHE_HOME: home };
    const first = runCli(['--version'], { env });
    assert.equal(first.status, 0, first.stderr);
    const [cache, ...more] = cacheFiles(home);
    assert.ok(cache, 'a cache file was written');
    assert.equal(more.length, 0, 'one cache file, no temporary left');
    assert.match(path.basename(cache), /^cli-[0-9a-f]{32}\.v8cache$/);
    assert.ok(fs.statSync(cache).size > 10_000, 'it holds compiled code');
    const written = fs.statSync(cache).mtimeMs;

    const second = runCli(['--version'], { env });
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout, first.stdout);
    assert.equal(fs.statSync(cache).mtimeMs, written, 'an accepted cache is not rewritten');
  });

  it('replaces a damaged cache, and a command that fails fails as without one', () => {
    const home = tempDir();
    const env = { XDG_CACHE_HOME: home };
    assert.equal(runCli(['--version'], { env }).status, 0);
    const [cache] = cacheFiles(home);
    fs.writeFileSync(cache, Buffer.alloc(fs.statSync(cache).size, 7));
    const run = runCli(['--version'], { env });
    assert.equal(run.status, 0, run.stderr);
    assert.notEqual(fs.readFileSync(cache)[0], 7, 'V8 rejected the damaged cache and a new one was written');

    const failing = runCli(['eval', '--questions', path.join(home, 'missing.json')], { env });
    const plain = runCli(['eval', '--questions', path.join(home, 'missing.json')], { env: { VES_LENS_NO_CODE_CACHE: '1' } });
    assert.equal(failing.status, plain.status);
    assert.equal(failing.stderr, plain.stderr);
    assert.doesNotMatch(failing.stderr, /\n\s+at /, 'no stack trace');
  });

  it('runs without it when the cache folder cannot be made, or when told not to use one', () => {
    const home = tempDir();
    const blocked = path.join(home, 'a-file');
    fs.writeFileSync(blocked, 'not a folder');
    const run = runCli(['--version'], { env: { XDG_CACHE_HOME: blocked } });
    assert.equal(run.status, 0);
    assert.equal(run.stderr, '');

    const off = runCli(['--version'], { env: { XDG_CACHE_HOME: home, VES_LENS_NO_CODE_CACHE: '1' } });
    assert.equal(off.status, 0);
    assert.deepEqual(cacheFiles(home), []);
  });
});
