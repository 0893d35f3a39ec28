import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';
import { MINIDEV_INPUTS } from '../evalReports';

/**
 * Issue 20, item 2 for `audit`: a real audit on the shared BIRD files is interrupted (Ctrl-C) or killed (kill -9)
 * at a random point, then resumed. `--no-measure --correctness` makes every field deterministic (nothing is
 * timed), so the resumed report must equal an uninterrupted run's in everything but `complete` and
 * `inputs.resumed`.
 */

const skip = birdDataMissing();
const miniDev = (...extra: string[]) => [
  'audit',
  ...MINIDEV_INPUTS,
  '--no-measure',
  '--correctness',
  '--no-progress',
  '--top',
  '1',
  ...extra,
];

const checkpointOf = (report: string) => `${report}.checkpoint.jsonl`;
const checkpointLines = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
};

/** Runs the command in a real process and sends `signal` once its checkpoint holds `after` lines past its header. */
async function interruptAt(command: string[], report: string, signal: NodeJS.Signals, after: number) {
  const child = spawn(process.execPath, [CLI, ...command], { stdio: ['ignore', 'ignore', 'pipe'], env: cliEnv() });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));
  while (running && checkpointLines(checkpointOf(report)) < after + 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(running, `the audit ended before ${after} checkpoint lines: ${stderr}`);
  child.kill(signal);
  return { code: await exited, stderr };
}

/** The report less what differs between runs of the same inputs by design: the completeness mark and the resumed count. */
function deterministic(file: string) {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  delete report.complete;
  delete report.inputs.resumed;
  return report;
}

describe('audit --resume (a real audit of the mini-dev gold on the shared BIRD files)', { skip }, () => {
  let baseline: ReturnType<typeof deterministic>;
  let dir: string;
  before(() => {
    dir = tempDir('ves-lens-audit-resume-');
    const full = path.join(dir, 'uninterrupted.json');
    const result = runCli(miniDev('--json', full));
    assert.equal(result.status, 0, result.stderr);
    assert.equal(JSON.parse(fs.readFileSync(full, 'utf8')).complete, true);
    assert.ok(!fs.existsSync(checkpointOf(full)), 'a finished audit removes its checkpoint');
    baseline = deterministic(full);
    assert.ok(baseline.ranked.length > 0, 'the baseline ranks some gold (else the ranking would not be compared)');
  });

  it('Ctrl-C at a random point: a valid partial audit ("complete": false, N of 500), exit 130; --resume completes it', async () => {
    const report = path.join(dir, 'sigint.json');
    const after = 1 + Math.floor(Math.random() * 120);
    const { code, stderr } = await interruptAt(miniDev('--json', report), report, 'SIGINT', after);
    assert.equal(code, 130, `interrupted after ${after}: ${stderr}`);
    assert.match(stderr, /interrupted \(SIGINT\): finishing the question under way/);
    assert.match(
      stderr,
      /interrupted after \d+ of 500 questions: wrote the partial report .*\("complete": false\); continue with .* --resume/,
    );
    const partial = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(partial.complete, false);
    assert.equal(partial.expected_questions, 500);
    assert.ok(partial.entries.length >= after && partial.entries.length < 500, `${partial.entries.length} entries after ${after}`);
    // What it holds is what the uninterrupted audit says of those gold, in question order.
    const held = new Set(partial.entries.map((e: { index: number }) => e.index));
    assert.deepEqual(
      partial.entries,
      baseline.entries.filter((e: { index: number }) => held.has(e.index)),
    );
    assert.equal(partial.counts.total, partial.entries.length, 'the counts are of what the partial audit holds');

    const resumed = runCli(miniDev('--json', report, '--resume'));
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`resuming: ${partial.entries.length} of 500 gold taken from`));
    const final = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(final.complete, true);
    assert.equal(final.expected_questions, undefined);
    assert.equal(final.inputs.resumed, partial.entries.length);
    assert.deepEqual(deterministic(report), baseline);
    assert.ok(!fs.existsSync(checkpointOf(report)));
  });

  it('kill -9 at a random point (a line cut off mid-write): --resume gives the uninterrupted audit', async () => {
    const report = path.join(dir, 'killed.json');
    const after = 1 + Math.floor(Math.random() * 120);
    const { code } = await interruptAt(miniDev('--json', report), report, 'SIGKILL', after);
    assert.equal(code, null, 'killed');
    assert.ok(!fs.existsSync(report), 'a killed audit writes no report');
    fs.appendFileSync(checkpointOf(report), '{"key": 499, "result": {"entry": {"index": 4'); // what a kill during a write leaves
    const resumed = runCli(miniDev('--json', report, '--resume'));
    assert.equal(resumed.status, 0, `killed after ${after}: ${resumed.stderr}`);
    assert.deepEqual(deterministic(report), baseline);
    assert.ok(JSON.parse(fs.readFileSync(report, 'utf8')).inputs.resumed >= after);
  });

  it('--resume refuses a checkpoint made from other options or inputs (exit 2, naming what changed) and leaves it as it was', async () => {
    const report = path.join(dir, 'refused.json');
    const { code } = await interruptAt(miniDev('--json', report), report, 'SIGINT', 1);
    assert.equal(code, 130);
    const checkpoint = fs.readFileSync(checkpointOf(report), 'utf8');
    const withoutCorrectness = runCli(miniDev('--json', report, '--resume').filter((a) => a !== '--correctness'));
    assert.equal(withoutCorrectness.status, 2);
    assert.match(
      withoutCorrectness.stderr,
      /error: --resume: .*refused\.json\.checkpoint\.jsonl was made from other inputs or options \(changed: options\)/,
    );
    const goldDir = tempDir('ves-lens-audit-gold-');
    const otherGold = path.join(goldDir, 'gold.sql');
    fs.writeFileSync(otherGold, fs.readFileSync(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'), 'utf8') + '\n');
    const changedGold = runCli(
      miniDev('--json', report, '--resume').map((a) => (a.endsWith('mini_dev_sqlite_gold.v1-2024.sql') ? otherGold : a)),
    );
    assert.equal(changedGold.status, 2);
    assert.match(changedGold.stderr, /\(changed: --gold\)/);
    assert.equal(fs.readFileSync(checkpointOf(report), 'utf8'), checkpoint, 'a refused resume leaves the checkpoint as it was');
    const none = runCli(miniDev('--json', path.join(dir, 'never.json'), '--resume'));
    assert.equal(none.status, 2);
    assert.match(none.stderr, /error: --resume: no checkpoint at .*never\.json\.checkpoint\.jsonl: nothing to resume/);
  });
});

describe('audit --resume with a prediction file (its evidence is kept, not scored again)', () => {
  it('Ctrl-C after the evidence: --resume takes it from the checkpoint and the audit before and after agree', async () => {
    const dir = tempDir('ves-lens-audit-evidence-');
    const report = path.join(dir, 'audit.json');
    const command = (...extra: string[]) => [
      'audit',
      '--questions',
      path.join(REPO_ROOT, 'sample', 'mini_dev_superhero.json'),
      '--predictions',
      path.join(REPO_ROOT, 'sample', 'predict_gpt-4_superhero.json'),
      '--db-root',
      path.join(REPO_ROOT, 'sample'),
      '--no-measure',
      '--correctness',
      '--no-progress',
      '--json',
      report,
      ...extra,
    ];
    // The first line past the header is the prediction file's evidence; then one line per audited gold.
    const after = 2 + Math.floor(Math.random() * 10);
    const { code, stderr } = await interruptAt(command(), report, 'SIGINT', after);
    assert.equal(code, 130, stderr);
    assert.match(stderr, /scoring .*predict_gpt-4_superhero\.json against the gold/);
    const evidenceLine = JSON.parse(fs.readFileSync(checkpointOf(report), 'utf8').split('\n')[1]);
    assert.equal(evidenceLine.key, -1);
    assert.ok(evidenceLine.result.evidence.hits.length > 40, 'the evidence of every question is kept');
    const partial = JSON.parse(fs.readFileSync(report, 'utf8'));

    const resumed = runCli(command('--resume'));
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.doesNotMatch(resumed.stderr, /scoring .* against the gold/, 'the prediction file is not scored again');
    const final = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(final.entries.length, 52);
    const held = new Set(partial.entries.map((e: { index: number }) => e.index));
    assert.deepEqual(
      final.entries.filter((e: { index: number }) => held.has(e.index)),
      partial.entries,
    );
    // Every entry, audited before the interruption or after it, saw the same evidence (the kept ratios).
    const kept = new Map<number, { correct: boolean; ratio: number | null }>(evidenceLine.result.evidence.hits);
    for (const entry of final.entries as { index: number; faster_predictions: { sources: { ratio: number }[] } }[]) {
      const hit = kept.get(entry.index);
      for (const source of entry.faster_predictions.sources) assert.equal(source.ratio, hit?.ratio);
    }
  });
});
