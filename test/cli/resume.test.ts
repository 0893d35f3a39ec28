import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, CLI, cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';
import { MINIDEV_INPUTS } from '../evalReports';
import { FakeChatServer, proverReply, startChatServer } from '../fakeChatServer';

/**
 * Issue 20, item 2: a real eval on the shared BIRD files is interrupted (Ctrl-C, SIGTERM) or killed (kill -9) at a
 * random point, then resumed: the final report equals an uninterrupted run's in every deterministic field.
 */

const skip = birdDataMissing();
const args = (predictions = 'predict_mini_dev_gpt-4_sqlite.json') => [
  'eval',
  ...MINIDEV_INPUTS,
  '--predictions',
  path.join(BIRD_DATA, 'predictions', 'minidev-official', predictions),
  '--metrics',
  'ex,f1',
  '--no-progress',
];

const lines = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
};

/**
 * Runs eval in a real process and sends `signal` once its checkpoint holds `after` finished questions (a point
 * chosen at random by the caller); resolves with the exit code and stderr.
 */
async function interruptAt(
  report: string,
  signal: NodeJS.Signals,
  after: number,
  command = [...args(), '--json', report],
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...command], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: cliEnv(),
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));
  const checkpoint = `${report}.checkpoint.jsonl`;
  while (running && lines(checkpoint) < after + 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(running, `the run ended before ${after} questions were finished: ${stderr}`);
  child.kill(signal);
  return { code: await exited, stderr };
}

/** The command line in a real process, without blocking this one (whose event loop serves the chat server). */
function runAsync(command: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...command], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: cliEnv(),
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

/**
 * A report without what may differ between two runs of the same inputs: the resumed count, the gold-result cache's
 * counts (a later run takes what an earlier one stored) and the completeness mark.
 */
function deterministic(file: string) {
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  delete report.complete;
  delete report.inputs.resumed;
  delete report.inputs.gold_cache;
  return report;
}

describe('eval --resume (a real eval on the shared BIRD files)', { skip }, () => {
  let baseline: ReturnType<typeof deterministic>;
  let dir: string;
  before(() => {
    dir = tempDir('ves-lens-resume-');
    const full = path.join(dir, 'uninterrupted.json');
    const result = runCli([...args(), '--json', full]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(JSON.parse(fs.readFileSync(full, 'utf8')).complete, true);
    assert.ok(!fs.existsSync(`${full}.checkpoint.jsonl`), 'a completed run removes its checkpoint');
    baseline = deterministic(full);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const exitCode = signal === 'SIGINT' ? 130 : 143;
    it(`${signal} at a random point: a valid partial report ("complete": false), exit ${exitCode}; --resume completes it`, async () => {
      const report = path.join(dir, `${signal}.json`);
      const after = 1 + Math.floor(Math.random() * 300);
      const { code, stderr } = await interruptAt(report, signal, after);
      assert.equal(code, exitCode, `interrupted after ${after}: ${stderr}`);
      assert.match(stderr, /interrupted \(SIG(INT|TERM)\): finishing the question under way/);
      assert.match(
        stderr,
        /interrupted after \d+ of 500 questions: wrote the partial report .*\("complete": false\); continue with .* --resume/,
      );
      const partial = JSON.parse(fs.readFileSync(report, 'utf8'));
      assert.equal(partial.complete, false);
      assert.ok(
        partial.questions.length >= after && partial.questions.length < 500,
        `${partial.questions.length} questions after ${after}`,
      );
      // What it holds is what the uninterrupted run says of those questions, in question order.
      const expected = baseline.questions.filter((q: { index: number }) =>
        partial.questions.some((p: { index: number }) => p.index === q.index),
      );
      assert.deepEqual(partial.questions, expected);
      assert.equal(partial.summary.total.count + partial.summary.skipped.count, partial.questions.length);

      const resumed = runCli([...args(), '--json', report, '--resume']);
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.match(resumed.stderr, new RegExp(`resuming: ${partial.questions.length} of 500 questions taken from`));
      const final = JSON.parse(fs.readFileSync(report, 'utf8'));
      assert.equal(final.complete, true);
      assert.equal(final.inputs.resumed, partial.questions.length);
      assert.deepEqual(deterministic(report), baseline);
      assert.ok(!fs.existsSync(`${report}.checkpoint.jsonl`));
    });
  }

  it('kill -9 at a random point (and a line cut off mid-write): --resume gives the uninterrupted report', async () => {
    const report = path.join(dir, 'killed.json');
    const after = 1 + Math.floor(Math.random() * 300);
    const { code } = await interruptAt(report, 'SIGKILL', after);
    assert.equal(code, null, 'killed');
    assert.ok(!fs.existsSync(report), 'a killed run writes no report');
    const checkpoint = `${report}.checkpoint.jsonl`;
    fs.appendFileSync(checkpoint, '{"key": 499, "result": {"index": 4'); // what a kill during a write leaves
    const resumed = runCli([...args(), '--json', report, '--resume']);
    assert.equal(resumed.status, 0, `killed after ${after}: ${resumed.stderr}`);
    assert.deepEqual(deterministic(report), baseline);
    assert.ok(JSON.parse(fs.readFileSync(report, 'utf8')).inputs.resumed >= after);
  });

  it('--resume refuses a checkpoint made from other options or inputs (exit 2, saying what differs), and needs one', async () => {
    const report = path.join(dir, 'refused.json');
    const { code } = await interruptAt(report, 'SIGINT', 1);
    assert.equal(code, 130);
    const checkpoint = fs.readFileSync(`${report}.checkpoint.jsonl`, 'utf8');
    const otherMetrics = runCli([...args().map((a) => (a === 'ex,f1' ? 'ex' : a)), '--json', report, '--resume']);
    assert.equal(otherMetrics.status, 2);
    assert.match(
      otherMetrics.stderr,
      /error: --resume: .*refused\.json\.checkpoint\.jsonl was made from other inputs or options \(changed: options\)/,
    );
    const otherPredictions = runCli([...args('predict_mini_dev_gpt-4-o_cot_SQLite.json'), '--json', report, '--resume']);
    assert.equal(otherPredictions.status, 2);
    assert.match(otherPredictions.stderr, /\(changed: --predictions, options\)/);
    assert.equal(fs.readFileSync(`${report}.checkpoint.jsonl`, 'utf8'), checkpoint, 'a refused resume leaves the checkpoint as it was');

    const none = runCli([...args(), '--json', path.join(dir, 'never.json'), '--resume']);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /error: --resume: no checkpoint at .*never\.json\.checkpoint\.jsonl: nothing to resume/);
    const partial = runCli(['merge', report, '--json', path.join(dir, 'merged.json')]);
    assert.equal(partial.status, 2);
    assert.match(partial.stderr, /refused\.json is the partial report of an interrupted run \("complete": false\)/);
  });
});

describe('judge --resume (a loopback chat server)', () => {
  let server: FakeChatServer;
  /** Replies given, and how many the model gives before it stops answering (the run is interrupted while it thinks). */
  let answered = 0;
  let answersBeforeHang = Infinity;
  before(async () => {
    server = await startChatServer(async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (answered >= answersBeforeHang) return { hang: true };
      answered++;
      return { content: proverReply(true) };
    });
  });
  after(() => server.close());

  it('Ctrl-C mid-judging: a partial report; --resume asks the model only for the rest, and equals an uninterrupted run', async () => {
    const dir = tempDir('ves-lens-judge-resume-');
    const questions = path.join(dir, 'questions.json');
    const sample = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'sample', 'mini_dev_superhero.json'), 'utf8')).slice(0, 12);
    fs.writeFileSync(questions, JSON.stringify(sample));
    const judge = (json: string) => [
      'judge',
      '--questions',
      questions,
      '--predictions',
      path.join(REPO_ROOT, 'sample', 'predict_gpt-4_superhero.json'),
      '--db-root',
      path.join(REPO_ROOT, 'sample'),
      '--endpoint',
      server.url,
      '--model',
      'm',
      '--method',
      'prover-only',
      '--concurrency',
      '1',
      '--no-cache',
      '--no-progress',
      '--json',
      json,
    ];
    const full = path.join(dir, 'full.json');
    const uninterrupted = await runAsync(judge(full));
    assert.equal(uninterrupted.status, 0, uninterrupted.stderr);

    const report = path.join(dir, 'judged.json');
    const after = 1 + Math.floor(Math.random() * 8);
    // The model answers `after` questions, then thinks until the Ctrl-C: however late a busy machine delivers it,
    // the run cannot finish first.
    answered = 0;
    answersBeforeHang = after;
    const { code, stderr } = await interruptAt(report, 'SIGINT', after, judge(report));
    answersBeforeHang = Infinity;
    assert.equal(code, 130, stderr);
    const partial = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(partial.complete, false);
    assert.ok(partial.questions.length >= after && partial.questions.length < 12, `${partial.questions.length} after ${after}`);

    const asked = server.requests.length;
    const resumed = await runAsync([...judge(report), '--resume']);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.equal(server.requests.length - asked, 12 - partial.questions.length, 'only the questions not finished are judged');
    const final = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(final.inputs.resumed, partial.questions.length);
    assert.deepEqual(deterministic(report), deterministic(full));
  });
});
