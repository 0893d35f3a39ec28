import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { TECHNIQUES } from '../../src/core/results/sqlmorph/types';
import { CLI, cliEnv, REPO_ROOT, runCli, tempDir } from '../helpers';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const sampleArgs = [
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
  '--no-progress',
];

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { env });

describe("ves-lens eval --techniques (SQLMorph's techniques, a real process)", () => {
  it('adds rows to the table and the techniques to every question and group of the JSON', () => {
    const json = path.join(tempDir(), 'out.json');
    const result = run([
      'eval',
      ...sampleArgs,
      '--techniques',
      'all',
      '--penalize-extra-columns',
      'false',
      '--no-embeddings-cache',
      '--json',
      json,
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /│ execution_accuracy EX\s+│\s+85\.71 │\s+80\.77 │\s+58\.33 │\s+76\.92 │/);
    assert.match(result.stdout, /│ exact_column_and_partial_cell F1\s+│/);
    assert.doesNotMatch(result.stdout, /semantic_column_and_exact_cell EXP/, 'no rows for a technique that scored nothing');
    assert.match(result.stdout, /semantic_column_and_exact_cell: 52 not scored: no embedding provider/);

    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.deepEqual(report.inputs.techniques, { names: [...TECHNIQUES], penalize_extra_columns: false, embeddings: null });
    for (const q of report.questions) {
      assert.deepEqual(Object.keys(q.techniques), [...TECHNIQUES]);
      assert.deepEqual(q.techniques.execution_accuracy, { EX: q.ex });
      assert.deepEqual(q.techniques.unified_column_and_semantic_row, { error: 'no embedding provider' });
      for (const key of ['EX', 'EXP', 'EXR', 'F1']) assert.equal(typeof q.techniques.exact_column_and_exact_cell[key], 'number');
    }
    const total = report.summary.total.techniques;
    assert.equal(total.execution_accuracy.count, 52);
    assert.equal(total.execution_accuracy.EX, report.summary.total.ex);
    assert.equal(total.semantic_column_and_exact_cell.count, 0);
    assert.equal(report.summary.simple.techniques.exact_column_and_exact_cell.count, 14);
  });

  it('refuses bad technique options before any work (exit 2, naming the option)', () => {
    const cases: [string[], RegExp][] = [
      [['--techniques', 'exact_cell'], /--techniques: unknown technique "exact_cell"/],
      [['--techniques', 'all', '--penalize-extra-columns', 'maybe'], /--penalize-extra-columns: expected true or false/],
      [['--techniques', 'all', '--embeddings', 'magic'], /--embeddings: expected one of none, local, openai/],
      [
        ['--techniques', 'all', '--embeddings', 'openai', '--embeddings-key-env', 'VES_LENS_NO_SUCH_KEY'],
        /VES_LENS_NO_SUCH_KEY.*holds no API key/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = run(['eval', ...sampleArgs, ...args]);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });

  it('scores the semantic techniques through an OpenAI-compatible endpoint, key from the named variable and never printed', async () => {
    const KEY = 'sk-cli-secret-4242';
    const auth = new Set<string | undefined>();
    let texts = 0;
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        auth.add(req.headers.authorization);
        const { input } = JSON.parse(raw) as { input: string[] };
        texts += input.length;
        const data = input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: Array.from({ length: 16 }, (_, k) => (text.charCodeAt(k % text.length) % 13) / 13 + 0.01),
        }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data, model: 'm', usage: { prompt_tokens: 1, total_tokens: 1 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const cache = tempDir('ves-lens-cli-cache-');
    const json = path.join(tempDir(), 'out.json');
    const args = [
      CLI,
      'eval',
      ...sampleArgs,
      '--techniques',
      'semantic_column_and_exact_cell,unified_column_and_semantic_row',
      '--embeddings',
      'openai',
      '--embeddings-url',
      url,
      '--embeddings-model',
      'm',
      '--embeddings-key-env',
      'VL_TEST_KEY',
      '--embeddings-cache',
      cache,
      '--json',
      json,
    ];
    const once = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, args, { env: cliEnv({ VL_TEST_KEY: KEY }) });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.stderr.on('data', (c) => (out += c));
        child.on('close', (code) => resolve({ code, out }));
      });
    try {
      const first = await once();
      assert.equal(first.code, 0, first.out);
      assert.deepEqual([...auth], [`Bearer ${KEY}`]);
      assert.ok(!first.out.includes(KEY) && !fs.readFileSync(json, 'utf8').includes(KEY), 'the key is never printed or written');
      const report = JSON.parse(fs.readFileSync(json, 'utf8'));
      assert.deepEqual(report.inputs.techniques.embeddings, { provider: 'openai', model: 'm', url });
      assert.equal(report.summary.total.techniques.semantic_column_and_exact_cell.count, 52);
      assert.match(first.out, /semantic_column_and_exact_cell F1/);
      const asked = texts;
      assert.ok(asked > 0);
      // A re-run is answered from the cache: nothing is asked again.
      const second = await once();
      assert.equal(second.code, 0, second.out);
      assert.equal(texts, asked);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
