// An output being written by another run is refused (issue 30): two real eval processes on one --json, and a run
// killed with kill -9 whose lock the next run takes over.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, runCli, tempDir } from '../helpers';
import { MINIDEV_INPUTS } from '../evalReports';

const evalArgs = (report: string, metrics = 'ex,ves') => [
  'eval',
  ...MINIDEV_INPUTS,
  '--predictions',
  path.join(BIRD_DATA, 'predictions', 'minidev-official', 'predict_mini_dev_gpt-4_sqlite.json'),
  '--metrics',
  metrics,
  '--timing',
  'official',
  '--iterations',
  '5',
  '--no-gold-cache',
  '--no-progress',
  '--json',
  report,
];

/** Starts eval in a real process and waits until it holds the output's lock. */
async function startHolding(report: string) {
  const child = spawn(process.execPath, [CLI, ...evalArgs(report)], { stdio: ['ignore', 'ignore', 'pipe'], env: cliEnv() });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));
  while (running && !fs.existsSync(`${report}.checkpoint.jsonl`)) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(running, stderr);
  return { child, exited, stderr: () => stderr };
}

describe('one run per output', { skip: birdDataMissing() }, () => {
  it('refuses a second run on the output a live run is writing; only the first writes its report', async () => {
    const report = path.join(tempDir(), 'report.json');
    const first = await startHolding(report);
    const lock = fs.readFileSync(`${report}.lock`, 'utf8');
    assert.match(lock, new RegExp(`^${first.child.pid}@\\S+ \\d{4}-`));
    const second = runCli(evalArgs(report));
    assert.equal(second.status, 2, second.stderr);
    assert.match(second.stderr, new RegExp(`report\\.json is being written by another run \\(pid ${first.child.pid} on `));
    assert.doesNotMatch(second.stderr, /wrote/);
    assert.equal(await first.exited, 0, first.stderr());
    assert.match(first.stderr(), /wrote .*report\.json/);
    const written = JSON.parse(fs.readFileSync(report, 'utf8')) as { complete: boolean; questions: unknown[] };
    assert.equal(written.complete, true);
    assert.equal(written.questions.length, 500);
    assert.ok(!fs.existsSync(`${report}.lock`), 'the lock goes with the run');
  });

  it('takes over the lock of a run killed with kill -9, and resumes it', async () => {
    const report = path.join(tempDir(), 'report.json');
    const first = await startHolding(report);
    first.child.kill('SIGKILL');
    await first.exited;
    assert.match(fs.readFileSync(`${report}.lock`, 'utf8'), new RegExp(`^${first.child.pid}@`));
    const resumed = runCli([...evalArgs(report), '--resume']);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`took over the lock of a run that ended \\(${first.child.pid}@`));
    assert.ok(!fs.existsSync(`${report}.lock`));
  });

  it("leaves another host's lock alone until it is a day old", () => {
    const report = path.join(tempDir(), 'report.json');
    fs.writeFileSync(`${report}.lock`, `1@elsewhere-${os.hostname()}x ${new Date().toISOString()}\n`);
    const run = runCli(evalArgs(report));
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /being written by another run \(pid 1 on elsewhere-/);
    const old = new Date(Date.now() - 25 * 3600 * 1000);
    fs.utimesSync(`${report}.lock`, old, old);
    const later = runCli(evalArgs(report, 'ex'));
    assert.equal(later.status, 0, later.stderr);
  });
});
