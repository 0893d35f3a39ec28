import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { temporaryOwner } from '../../src/core/io/atomicFile';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, tempDir } from '../helpers';

/**
 * Ctrl-C during `eval --counterexamples`' search (a real SIGINT to a real CLI process): the scores are complete, so
 * the report is written with the search marked incomplete, the run exits 130, and no temporary is left behind.
 */

const skip = birdDataMissing();

describe('Ctrl-C during the counterexample search', { skip }, () => {
  it('writes the report (summary.robustness "complete": false), exits 130, leaves no temporary', async () => {
    const out = tempDir();
    const tmp = tempDir('ves-lens-tmpdir-');
    const report = path.join(out, 'r.json');
    const witnesses = path.join(out, 'witnesses');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'eval',
        '--questions',
        path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
        '--gold',
        path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
        '--predictions',
        path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json'),
        '--db-root',
        path.join(BIRD_DATA, 'databases'),
        '--metrics',
        'ex',
        '--shard',
        '1/8',
        '--no-progress',
        // Long searches: the signal surely comes while one runs.
        '--counterexample-seconds',
        '20',
        '--counterexamples',
        witnesses,
        '--json',
        report,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv({ TMPDIR: tmp }) },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let running = true;
    void exited.then(() => (running = false));
    const started = Date.now();
    while (running && !/looking for counterexample databases/.test(stderr)) {
      assert.ok(Date.now() - started < 90_000, 'the search never started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(running, `the run ended before its search: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // well into the first pairs' searches
    const signalled = Date.now();
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 130, stderr);
    assert.ok(Date.now() - signalled < 15_000, 'the search stopped at its next query, not after its 20 s budget');
    assert.match(stderr, /interrupted during the counterexample search after \d+ of \d+ pairs; the scores are complete: wrote the report/);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
    const written = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(written.complete, true, 'every question was scored');
    assert.equal(written.summary.robustness.complete, false);
    assert.ok(written.summary.robustness.not_checked > 0);
    assert.match(stdout, /incomplete: the run was interrupted during the check; \d+ pairs? not checked/);
    const notSearched = written.questions.filter((q: { counterexample_search?: { note?: string } }) =>
      q.counterexample_search?.note?.includes('interrupted'),
    );
    assert.ok(notSearched.length > 0, 'the pairs left say why they were not searched');
    // The work copies and any half-written counterexample database went with the process.
    assert.deepEqual(
      fs.readdirSync(tmp).filter((name) => temporaryOwner(name) !== undefined),
      [],
    );
    for (const name of fs.readdirSync(witnesses)) assert.match(name, /^\d+-\d+-\w+\.sqlite$/);
  });
});
