// The test command's own runner (scripts/run-tests.mjs): a long run's log is read from its end, so the failing tests
// are listed there again, each under the suites around it and with its error; the exit code is the runner's.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT, tempDir } from '../helpers';

const RUNNER = path.join(REPO_ROOT, 'scripts', 'run-tests.mjs');

function runOn(source: string) {
  const dir = tempDir('ves-lens-run-tests-');
  const file = path.join(dir, 'sample.test.ts');
  fs.writeFileSync(file, source);
  // Without the variable that tells a test file's runner it runs under another (it would then run nothing).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, [RUNNER, file], { cwd: REPO_ROOT, encoding: 'utf8', env });
}

describe('scripts/run-tests.mjs', () => {
  it('ends with the failing tests, their suites and errors, and exits 1', () => {
    const run = runOn(`import { describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
describe('outer', () => {
  describe('inner', () => {
    it('passes', () => {});
    it('compares', () => assert.equal(1, 2, 'one is not two'));
  });
});
it('throws', () => { throw new Error('boom at the top'); });
`);
    assert.equal(run.status, 1, run.stderr);
    const summary = run.stdout.slice(run.stdout.lastIndexOf('== failing tests'));
    assert.match(summary, /^== failing tests \(2\) ==\n/);
    assert.match(summary, /not ok - outer › inner › compares\n[^]*one is not two[^]*not ok - throws\n[^]*boom at the top/);
    assert.doesNotMatch(summary, /passes|not ok - outer\n/);
  });

  it('adds nothing when every test passes, and exits 0', () => {
    const run = runOn(`import { it } from 'node:test';\nit('passes', () => {});\n`);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /# pass 1/);
    assert.doesNotMatch(run.stdout, /failing tests/);
  });
});
