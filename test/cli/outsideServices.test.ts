// Outside services that cannot be used stop a run fast and clearly: the judge's chat endpoint and the embeddings
// endpoint, each a real loopback server misbehaving for real (refused, an HTML page, a hang, a trickle), against
// the real command line in a child process.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { cliEnv, REPO_ROOT, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** The command line from source (spawn: the servers answer from this process's event loop); killed after 60 s. */
function run(args: string[]): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
      cwd: REPO_ROOT,
      env: cliEnv({ OPENAI_API_KEY: '' }),
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => {
      clearTimeout(killer);
      resolve({ status, stdout, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

/** A loopback server doing `behave` with every request; counts them; closed after the tests. */
const servers: http.Server[] = [];
async function misbehaving(
  behave: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => behave(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits: () => hits };
}
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

const HTML = '<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>';

/** The first `n` sample questions (superhero) as their own file. */
function sampleQuestions(n: number): string {
  const file = path.join(tempDir(), 'questions.json');
  fs.writeFileSync(file, JSON.stringify(JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, n)));
  return file;
}

function judge(endpoint: string, ...extra: string[]): Promise<Run> {
  return run([
    'judge',
    '--questions',
    sampleQuestions(8),
    '--predictions',
    path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
    '--db-root',
    SAMPLE,
    '--endpoint',
    endpoint,
    '--model',
    'm',
    '--no-cache',
    '--retries',
    '4',
    ...extra,
  ]);
}

/** The run ended as the rule says: exit 2, one error line naming the endpoint, no table, no stack trace. */
function stoppedClearly(result: Run, endpoint: string, firstError: RegExp): void {
  assert.equal(result.status, 2, result.stderr);
  const errorLine = result.stderr.split('\n').find((line) => line.startsWith('error: '));
  assert.ok(errorLine, result.stderr);
  assert.ok(errorLine.includes(endpoint), errorLine);
  assert.match(errorLine, firstError);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(result.stdout, /Judge|judge\s+│/, 'no score table for a run that judged nothing');
}

describe('the judge against an endpoint it cannot use (real loopback servers, real processes)', () => {
  it('an HTML page instead of the API: exit 2 after 3 answers, naming the endpoint and the first answer', async () => {
    const server = await misbehaving((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(HTML));
    const result = await judge(server.url);
    stoppedClearly(
      result,
      `${server.url}/chat/completions`,
      /failed 3 times in a row.*the first error: .*answered with no JSON: <!DOCTYPE html>/,
    );
    assert.ok(server.hits() <= 3 + 3, `stopped after a few requests, not ${server.hits()}`);
  });

  it('a 404 page with no API JSON (a wrong base URL): exit 2 at once, naming --endpoint or --model', async () => {
    const server = await misbehaving((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    const result = await judge(server.url);
    // Requests in flight at once: the first to fail says the 404, or the give-up after 3 quotes it as the first error.
    stoppedClearly(
      result,
      `${server.url}/chat/completions`,
      /--endpoint( or --model)?: .*answered 404 Not Found, not in the API's JSON: <h1>Not Found/,
    );
  });

  it('a refused port and a port Node refuses to use: exit 2 at once', async () => {
    const closed = await misbehaving(() => undefined);
    const port = new URL(closed.url).port;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const refused = await judge(`http://127.0.0.1:${port}/v1`);
    stoppedClearly(refused, `http://127.0.0.1:${port}/v1/chat/completions`, /ECONNREFUSED/);
    // Port 6000 (X11) is on fetch's list of ports it never connects to, whatever listens there.
    const badPort = await judge('http://127.0.0.1:6000/v1');
    stoppedClearly(badPort, 'http://127.0.0.1:6000/v1/chat/completions', /bad port/);
    assert.ok(badPort.seconds < 30, `${badPort.seconds} s`);
  });

  it('a server that accepts and never answers: each request ends at --llm-timeout, the run after 3 of them', async () => {
    const server = await misbehaving(() => undefined);
    const result = await judge(server.url, '--llm-timeout', '1', '--concurrency', '1');
    stoppedClearly(result, `${server.url}/chat/completions`, /no reply from .* within 1\.0 s/);
    // 3 timeouts of 1 s and the backoff between them (1 s, 2 s), the EX phase and start-up: far from 4 × 5 × 300 s.
    assert.ok(result.seconds < 30, `${result.seconds} s`);
  });

  it('a server that trickles a byte at a time never outlasts the request time limit', async () => {
    const server = await misbehaving((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 100);
      res.on('close', () => clearInterval(drip));
    });
    const result = await judge(server.url, '--llm-timeout', '1', '--concurrency', '1');
    stoppedClearly(result, `${server.url}/chat/completions`, /no reply from .* within 1\.0 s/);
    assert.ok(result.seconds < 30, `${result.seconds} s`);
  });

  it('the overall deadline ends requests in flight when it passes, naming --deadline', async () => {
    const server = await misbehaving(() => undefined);
    const result = await judge(server.url, '--llm-timeout', '600', '--deadline', '2');
    stoppedClearly(result, `${server.url}/chat/completions`, /the run's deadline of 2 s passed \(raise it with --deadline <seconds>\)/);
    assert.ok(result.seconds < 30, `${result.seconds} s`);
  });

  it('an endpoint that works after a blip is kept: 2 failures then answers, exit 0', async () => {
    let calls = 0;
    const server = await misbehaving((_req, res) => {
      calls++;
      if (calls <= 2) return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');
      const content = JSON.stringify({ judgment: true, reasoning: 'ok', final_answer: true, verdict: true });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content } }] }));
    });
    const result = await judge(server.url, '--method', 'flex', '--concurrency', '1');
    assert.equal(result.status, 0, result.stderr);
  });
});

describe('embeddings (eval --techniques) against an endpoint it cannot use', () => {
  const evalArgs = (url: string, ...extra: string[]) => [
    'eval',
    '--questions',
    path.join(SAMPLE, 'mini_dev_superhero.json'),
    '--gold',
    path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
    '--predictions',
    path.join(SAMPLE, 'predict_gpt-4_superhero.json'),
    '--db-root',
    SAMPLE,
    '--metrics',
    'ex',
    '--techniques',
    'semantic_column_and_exact_cell',
    '--embeddings',
    'openai',
    '--embeddings-url',
    url,
    '--no-embeddings-cache',
    ...extra,
  ];

  it('an HTML page: exit 2 after 3 answers, naming the endpoint, --embeddings-url and the first answer', async () => {
    const server = await misbehaving((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(HTML));
    const result = await run(evalArgs(server.url));
    assert.equal(result.status, 2, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(
        `error: the embeddings endpoint \\(--embeddings-url\\) at ${server.url}/embeddings failed 3 times in a row, so the run stops; the first error: .*answered 200 with no API JSON: <!DOCTYPE html>`,
      ),
    );
    // 3 in a row give up; questions scored in parallel may have one more in flight.
    assert.ok(server.hits() >= 3 && server.hits() <= 6, `${server.hits()} requests`);
    assert.doesNotMatch(result.stderr, /unexpected error|\n\s+at /);
  });

  it('a hang: each request ends at --embeddings-timeout, the run after 3 of them', async () => {
    const server = await misbehaving(() => undefined);
    const result = await run(evalArgs(server.url, '--embeddings-timeout', '1'));
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /error: the embeddings endpoint .* failed 3 times in a row.*no complete answer within 1\.0 s/);
    assert.ok(result.seconds < 40, `${result.seconds} s`);
  });
});
