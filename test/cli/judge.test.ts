import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, cliEnv, REPO_ROOT, tempDir } from '../helpers';
import { FakeChatServer, proverReply, roleOf, ScriptedReply, startChatServer } from '../fakeChatServer';
import { replayOfRose, ROSE_DATA, roseDataMissing, RoseRow, roseVecPairs } from '../roseData';

/**
 * The real command line (from source, so it never runs a stale bundle) against a loopback OpenAI-compatible
 * server. spawn, not spawnSync: the server answers from this process's event loop.
 */
function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
      cwd: REPO_ROOT,
      env: cliEnv({ OPENAI_API_KEY: '', ...env }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const SAMPLE = path.join(REPO_ROOT, 'sample');

/** The first `n` sample questions (superhero), as their own question file. */
function sampleQuestions(dir: string, n: number): string {
  const file = path.join(dir, 'questions.json');
  fs.writeFileSync(file, JSON.stringify(JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, n)));
  return file;
}

describe('ves-lens judge and agree (real processes, loopback chat server)', () => {
  let server: FakeChatServer;
  let script: (request: FakeChatServer['requests'][number]) => ScriptedReply = () => ({ content: '' });
  before(async () => {
    server = await startChatServer((request) => script(request));
  });
  after(() => server.close());

  it("judges ROSE-VEC pairs through the cascade, caches the replies, and `agree` reproduces ROSE's run on them", async (t) => {
    const skip = birdDataMissing() || roseDataMissing();
    if (skip) return t.skip(skip);
    const dir = tempDir();
    const pairs = roseVecPairs();
    const ids = new Set(pairs.map((p) => p.question_id));
    const questions = JSON.parse(fs.readFileSync(path.join(BIRD_DATA, 'questions', 'dev.rose.json'), 'utf8')).filter(
      (q: { question_id: number }) => ids.has(q.question_id),
    );
    fs.writeFileSync(path.join(dir, 'questions.json'), JSON.stringify(questions));
    fs.writeFileSync(path.join(dir, 'predictions.json'), JSON.stringify(pairs));
    const rows = new Map<number, RoseRow>(
      JSON.parse(fs.readFileSync(path.join(ROSE_DATA, 'gemini-2.5-pro.ROSE.eval_results.json'), 'utf8')).map((r: RoseRow) => [
        r.question_id,
        r,
      ]),
    );
    const replay = replayOfRose(pairs, rows);
    script = (request) => ({ content: replay(request.body.messages), usage: { prompt_tokens: 1000, completion_tokens: 100 } });
    const out = path.join(dir, 'judge.json');
    const args = [
      'judge',
      '--questions',
      path.join(dir, 'questions.json'),
      '--predictions',
      path.join(dir, 'predictions.json'),
      '--db-root',
      path.join(BIRD_DATA, 'databases'),
      '--endpoint',
      server.url,
      '--model',
      'replay-of-rose',
      '--api-key-env',
      'TEST_JUDGE_KEY',
      '--concurrency',
      '8',
      '--cache-dir',
      path.join(dir, 'cache'),
      '--json',
      out,
    ];
    const first = server.requests.length;
    const result = await run(args, { TEST_JUDGE_KEY: 'sk-loopback' });
    assert.equal(result.status, 0, result.stderr);
    const sent = server.requests.length - first;
    assert.ok(sent > 77, `${sent} requests`);
    assert.equal(server.requests.at(-1)!.headers.authorization, 'Bearer sk-loopback');
    assert.match(result.stdout, /│ EX\s+│/);
    assert.match(result.stdout, /│ Judge\s+│/);
    assert.match(result.stdout, /│ EX 1 → judge 0\s+│/);
    assert.match(result.stdout, /cascade: 26 results match → Refuter alone/);
    assert.match(
      result.stdout,
      new RegExp(
        `model replay-of-rose: ${sent} requests \\(0 from the cache, ${sent} sent\\) · ${(sent * 1000).toLocaleString('en-US')} prompt \\+ ${(sent * 100).toLocaleString('en-US')} completion`,
      ),
    );

    const report = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(report.inputs.method, 'rose');
    assert.equal(report.inputs.model, 'replay-of-rose');
    assert.equal(report.questions.length, 77);
    for (const q of report.questions) {
      assert.deepEqual(Object.keys(q.judge).slice(0, 6), ['score', 'method', 'branch', 'prover', 'refuter', 'error']);
      assert.equal(q.judge.score, rows.get(q.question_id)!.score);
      assert.equal(typeof q.predicted_sql, 'string');
    }
    const total = report.summary.total;
    assert.equal(total.count, 77);
    assert.equal(total.judged, 77);
    const judgedOnes = report.questions.filter((q: { judge: { score: number } }) => q.judge.score === 1).length;
    assert.equal(total.judge, (judgedOnes / 77) * 100);
    assert.equal(
      total.ex_correct_judge_incorrect,
      report.questions.filter((q: { ex: number; judge: { score: number } }) => q.ex === 1 && q.judge.score === 0).length,
    );
    assert.equal(
      total.ex_incorrect_judge_correct,
      report.questions.filter((q: { ex: number; judge: { score: number } }) => q.ex === 0 && q.judge.score === 1).length,
    );
    assert.equal(report.summary.calls, sent);
    assert.deepEqual(report.summary.usage, { prompt_tokens: sent * 1000, completion_tokens: sent * 100 });

    // A re-run is free: every reply comes from the cache.
    const again = await run(args, { TEST_JUDGE_KEY: 'sk-loopback' });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(server.requests.length - first, sent, 'no new request');
    assert.match(again.stdout, new RegExp(`${sent} requests \\(${sent} from the cache, 0 sent\\) · 0 prompt`));

    // Our verdicts agree with the labels exactly as ROSE's own verdicts on these pairs: TP 43, TN 17, FP 2, FN 15.
    const agree = await run(['agree', '--labels', path.join(ROSE_DATA, 'rose-vec-bird.json'), '--verdicts', out, '--json']);
    assert.equal(agree.status, 0, agree.stderr);
    const stats = JSON.parse(agree.stdout);
    assert.equal(stats.kind, 'judge');
    assert.deepEqual([stats.stats.n, stats.stats.tp, stats.stats.tn, stats.stats.fp, stats.stats.fn], [77, 43, 17, 2, 15]);
    assert.equal(stats.mismatches.labels_without_verdict.length, 322 - 77);
    assert.equal(stats.matched_by_id_only, 0, 'matched by question_id and SQL');
    const ex = JSON.parse(
      (await run(['agree', '--labels', path.join(ROSE_DATA, 'rose-vec-bird.json'), '--verdicts', out, '--use', 'ex', '--json'])).stdout,
    );
    assert.deepEqual([ex.stats.tp, ex.stats.tn, ex.stats.fp, ex.stats.fn], [37, 18, 1, 21]);
  });

  it("prints ROSE's published statistics from ROSE's own verdict files", async (t) => {
    const skip = roseDataMissing();
    if (skip) return t.skip(skip);
    const result = await run([
      'agree',
      '--labels',
      path.join(ROSE_DATA, 'rose-vec-bird.json'),
      '--verdicts',
      path.join(ROSE_DATA, 'gemini-2.5-pro.ROSE.eval_results.json'),
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /322 pairs/);
    assert.match(result.stdout, /TP 168 .* FN 48/);
    assert.match(result.stdout, /FP 7 .* TN 99/);
    assert.match(result.stdout, /│ 322 │\s+64\.79 │\s+82\.92 │ 67\.15 │ 85\.93 │/);
  });

  it('a reply without the verdict is a judge_error for that question, listed, never a crash or a silent 0', async () => {
    const dir = tempDir();
    script = (request) => ({ content: roleOf(request) === 'prover' ? proverReply(true) : 'I uphold the prediction.' });
    const out = path.join(dir, 'out.json');
    const result = await run([
      'judge',
      '--questions',
      sampleQuestions(dir, 3),
      '--predictions',
      path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      '--db-root',
      SAMPLE,
      '--endpoint',
      server.url,
      '--model',
      'm',
      '--no-cache',
      '--json',
      out,
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│ no verdict\s+│/);
    assert.match(result.stdout, /no verdict \(3\)\n\s+question 717 \(superhero\): judge_error: no JSON object in the reply/);
    const report = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.deepEqual(
      report.questions.map((q: { judge: { score: null } }) => q.judge.score),
      [null, null, null],
    );
    assert.equal(report.summary.total.judge_errors, 3);
    assert.equal(report.summary.total.judge, null);
    assert.equal(report.inputs.cache_dir, null);
  });

  it('stops with exit 2 naming the option on a wrong key (401), and on bad options', async () => {
    const dir = tempDir();
    const base = [
      'judge',
      '--questions',
      sampleQuestions(dir, 2),
      '--predictions',
      path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
      '--db-root',
      SAMPLE,
      '--model',
      'm',
      '--no-cache',
    ];
    script = () => ({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    const denied = await run([...base, '--endpoint', server.url]);
    assert.equal(denied.status, 2, denied.stderr);
    assert.match(
      denied.stderr,
      /error: --api-key-env: the model cannot be used \(m at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\): .*401.*Incorrect API key/,
    );
    assert.doesNotMatch(denied.stderr, /at .*\.ts:\d+/, 'no stack trace');

    const cases: [string[], RegExp][] = [
      [[...base, '--endpoint', 'localhost:8000'], /--endpoint: (not a URL|expected an http or https URL)/],
      [
        [...base, '--endpoint', server.url, '--api-key-env', 'VES_LENS_NO_SUCH_VARIABLE'],
        /--api-key-env: the environment variable VES_LENS_NO_SUCH_VARIABLE is not set/,
      ],
      [[...base, '--endpoint', server.url, '--concurrency', '0'], /--concurrency: expected a positive number/],
      [[...base, '--endpoint', server.url, '--method', 'vote'], /option '--method <method>' argument 'vote' is invalid/],
      [[...base, '--endpoint', server.url, '--temperature', 'hot'], /--temperature: expected a number from 0 to 2/],
      [
        ['agree', '--labels', path.join(dir, 'none.json'), '--verdicts', path.join(dir, 'none.json')],
        /none\.json: cannot read the label file: file not found/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      assert.equal(result.status, 2, `${args.join(' ')}\n${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});
