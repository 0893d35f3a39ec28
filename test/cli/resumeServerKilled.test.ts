// Resume after the server died (issue 30): a real PostgreSQL server killed with kill -9 while eval times the correct
// pairs, started again, and the run resumed. What the dead server left (pairs not timed: ECONNREFUSED) is never kept
// from the checkpoint: those pairs are timed again, the report is complete only then, and no efficiency is a 0
// that came from the run's failure.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, runCli, tempDir } from '../helpers';
import { startLoadedCluster } from '../pgCluster';

interface Result {
  question_id: number;
  outcome: string;
  ex: number;
  ves: number | null;
  time_ratio: number | null;
  error: string | null;
  notes: string[];
}
interface Report {
  complete: boolean;
  questions: Result[];
}

const checkpointLines = (file: string): Result[] => {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [(JSON.parse(line) as { result: Result }).result];
        } catch {
          return [];
        }
      });
  } catch {
    return [];
  }
};

/** The official PostgreSQL gold and gpt-4's PostgreSQL predictions on a server. */
const serverInputs = (url: string) => [
  '--db-url',
  url,
  '--questions',
  path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
  '--gold',
  path.join(BIRD_DATA, 'questions', 'mini_dev_postgresql_gold.sql'),
  '--predictions',
  path.join(BIRD_DATA, 'predictions', 'minidev-postgresql', 'predict_mini_dev_gpt-4_postgresql.json'),
  '--no-progress',
];

/** The CLI started as a real process: its output as it comes, its exit code, and whether it still runs. */
function startCli(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv() });
  const output = { stdout: '', stderr: '', running: true };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void exited.then(() => (output.running = false));
  return { output, exited };
}

describe('eval --resume after its PostgreSQL server was killed during timing', { skip: birdDataMissing() || localClusterMissing() }, () => {
  let cluster: LocalCluster;
  before(() => {
    cluster = startLoadedCluster(path.join(BIRD_DATA, 'databases'), ['--db', 'superhero']);
  });
  after(() => cluster?.stop());

  it('times again every pair the dead server left, and is complete only then', async () => {
    const json = path.join(tempDir(), 'report.json');
    const args = [
      'eval',
      ...serverInputs(cluster.url),
      '--metrics',
      'ex,ves',
      '--timing',
      'official',
      '--iterations',
      '20',
      '--json',
      json,
    ];
    const { output, exited } = startCli(args);
    // The correctness pass has written every question but the correct pairs, which wait for their timing (their
    // lines come once all are timed): when the checkpoint has stopped growing for 2 s, timing is under way (20
    // official iterations of 34 pairs take most of a minute); the server dies now.
    const checkpoint = `${json}.checkpoint.jsonl`;
    let lines = 0;
    let stableSince = Date.now();
    while (output.running && (lines === 0 || Date.now() - stableSince < 2000)) {
      await new Promise((r) => setTimeout(r, 50));
      const now = checkpointLines(checkpoint).length;
      if (now !== lines) [lines, stableSince] = [now, Date.now()];
    }
    assert.ok(!checkpointLines(checkpoint).some((r) => r.time_ratio !== null), 'no pair was timed yet');
    assert.ok(output.running, `the run ended before any pair was timed: ${output.stderr}`);
    cluster.kill();
    const code = await exited;
    assert.equal(code, 2, output.stderr);
    assert.match(output.stderr, /the database server went away during the run .*: \d+ questions? (was|were) not run or not timed/);
    const killed = JSON.parse(fs.readFileSync(json, 'utf8')) as Report;
    assert.equal(killed.complete, false, 'a report with pairs the dead server left is not complete');
    const leftByFailure = killed.questions.filter(
      (q) => q.notes.some((n) => n.startsWith('timing not done')) || q.error?.startsWith('not run'),
    );
    assert.ok(leftByFailure.length > 0, 'the kill landed during timing');
    const kept = checkpointLines(checkpoint);
    assert.deepEqual(
      kept.filter((r) => r.notes.some((n) => /timing not done|ECONNREFUSED|ENOENT/.test(n)) || r.error?.startsWith('not run')),
      [],
      'the checkpoint keeps nothing the failure made',
    );

    cluster.start();
    const resumed = runCli([...args, '--resume'], { timeout: 600_000 });
    assert.equal(resumed.status, 0, resumed.stderr);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as Report;
    assert.equal(report.complete, true);
    const correct = report.questions.filter((q) => q.outcome === 'correct');
    assert.ok(correct.length > 0);
    for (const q of correct) {
      assert.ok(q.time_ratio !== null && q.ves !== null && q.ves > 0, `question ${q.question_id} timed: ${JSON.stringify(q)}`);
      assert.ok(!q.notes.some((n) => /timing (not done|failed)/.test(n)), `question ${q.question_id}: ${q.notes.join('; ')}`);
    }
    for (const left of leftByFailure) {
      const now = report.questions.find((q) => q.question_id === left.question_id)!;
      assert.ok(!now.error?.startsWith('not run'), `question ${left.question_id} ran on resume`);
    }
  });
});

// The server killed while the correctness pass is under way (issue 30, case 4): a cursor read on the dead connection
// once waited forever (pg-cursor ignores an error once a statement is complete), so the run ended with "a database
// call never returned" and no report; and the correct pairs were then timed against the dead server.
describe(
  'eval --resume after its PostgreSQL server was killed during the correctness pass',
  { skip: birdDataMissing() || localClusterMissing() },
  () => {
    let cluster: LocalCluster;
    before(() => {
      cluster = startLoadedCluster(path.join(BIRD_DATA, 'databases'));
    });
    after(() => cluster?.stop());

    for (const jobs of ['1', '2']) {
      it(`--jobs ${jobs}: exits 2 with an incomplete report naming what was not run, and --resume completes it`, async () => {
        const json = path.join(tempDir(), 'report.json');
        const inputs = serverInputs(cluster.url);
        const args = ['eval', ...inputs, '--jobs', jobs, '--json', json];
        const { output, exited } = startCli(args);
        // Killed once some questions are in the checkpoint: the correctness pass is under way.
        const checkpoint = `${json}.checkpoint.jsonl`;
        while (output.running && checkpointLines(checkpoint).length < 40) await new Promise((r) => setTimeout(r, 10));
        assert.ok(output.running, `the run ended before the kill: ${output.stderr}`);
        cluster.kill();
        const code = await exited;
        assert.doesNotMatch(output.stderr, /unexpected error|never returned/);
        assert.equal(code, 2, output.stderr);
        assert.match(output.stderr, /the database server went away during the run .*: \d+ questions? (was|were) not run or not timed/);
        // Listed as not run, never as golds that fail.
        assert.match(output.stdout.replace(/\u001b\[[0-9;]*m/g, ''), /not run: the database server went away; --resume runs them \(\d+\)/);
        assert.doesNotMatch(output.stdout, /gold error \(\d+\)\s+#\d+ question \d+ \(\w+\): not run/);
        const killed = JSON.parse(fs.readFileSync(json, 'utf8')) as Report;
        assert.equal(killed.complete, false);
        assert.ok(
          killed.questions.some((q) => q.error?.startsWith('not run')),
          'the kill landed before the pass ended',
        );
        assert.ok(
          !killed.questions.some((q) => q.notes.some((n) => n.startsWith('timing failed'))),
          'no pair was timed against the dead server',
        );

        cluster.start();
        const resumed = runCli([...args, '--resume'], { timeout: 600_000 });
        assert.equal(resumed.status, 0, resumed.stderr);
        const report = JSON.parse(fs.readFileSync(json, 'utf8')) as Report;
        assert.equal(report.complete, true);
        // The same outcomes as a run the server never left.
        const cleanJson = path.join(tempDir(), 'clean.json');
        const clean = runCli(['eval', ...inputs, '--metrics', 'ex', '--json', cleanJson], { timeout: 600_000 });
        assert.equal(clean.status, 0, clean.stderr);
        const cleanReport = JSON.parse(fs.readFileSync(cleanJson, 'utf8')) as Report;
        assert.deepEqual(
          report.questions.map((q) => [q.question_id, q.outcome, q.ex]),
          cleanReport.questions.map((q) => [q.question_id, q.outcome, q.ex]),
        );
      });
    }
  },
);
