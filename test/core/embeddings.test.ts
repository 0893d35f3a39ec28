import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CachedEmbeddings } from '../../src/core/embeddings/diskCache';
import { LocalEmbeddings, localModelInstalled } from '../../src/core/embeddings/localModel';
import { OpenAiEmbeddings } from '../../src/core/embeddings/openaiCompatible';
import { EmbeddingError } from '../../src/core/embeddings/provider';
import { cosineSimilarity } from '../../src/core/results/sqlmorph/semanticColumn';
import { scoreTechniques } from '../../src/core/results/sqlmorph/scoreTechniques';
import { EmbeddingsScript, FakeEmbeddingsServer, startEmbeddingsServer, vectorFor } from '../fakeEmbeddingsServer';
import { tempDir } from '../helpers';

const KEY = 'sk-test-secret-key-0123456789';

describe('the OpenAI-compatible embeddings client against a loopback server speaking the real protocol', () => {
  let server: FakeEmbeddingsServer;
  let base: string;
  let requests: FakeEmbeddingsServer['requests'];
  /** Answers for the next requests, in order (then every request gets its vectors). */
  const setScript = (answers: EmbeddingsScript[]) => server.script.splice(0, server.script.length, ...answers);

  before(async () => {
    server = await startEmbeddingsServer();
    base = server.url;
    requests = server.requests;
  });
  after(() => server.close());

  const client = (options: Partial<ConstructorParameters<typeof OpenAiEmbeddings>[0]> = {}) =>
    new OpenAiEmbeddings({ baseUrl: base, model: 'text-embedding-3-small', apiKey: KEY, retryBaseMs: 1, retries: 2, ...options });

  it('sends the real request shape, in batches, and reads vectors by index', async () => {
    requests.length = 0;
    const texts = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const vectors = await client({ batchSize: 3 }).embed(texts);
    assert.equal(requests.length, 3);
    assert.deepEqual(
      requests.map((r) => r.body.input.length),
      [3, 3, 1],
    );
    assert.equal(requests[0].auth, `Bearer ${KEY}`);
    assert.deepEqual(
      { model: requests[0].body.model, encoding_format: requests[0].body.encoding_format },
      { model: 'text-embedding-3-small', encoding_format: 'float' },
    );
    assert.deepEqual(
      vectors.map((v) => Array.from(v)),
      texts.map((t) => vectorFor(t).map(Math.fround)),
    );
  });

  it('retries a 429 (honouring retry-after-ms) and then succeeds', async () => {
    requests.length = 0;
    setScript([
      (_, res) =>
        res
          .writeHead(429, { 'retry-after-ms': '5', 'content-type': 'application/json' })
          .end('{"error":{"message":"Rate limit reached","type":"requests"}}'),
    ]);
    const [v] = await client().embed(['x']);
    assert.equal(requests.length, 2);
    assert.deepEqual(Array.from(v), vectorFor('x').map(Math.fround));
  });

  it("gives up on a persistent 500 with the server's message and no key", async () => {
    requests.length = 0;
    setScript(
      [0, 1, 2].map(
        () => (_: unknown, res: http.ServerResponse) => res.writeHead(500).end('{"error":{"message":"The server had an error"}}'),
      ),
    );
    await assert.rejects(
      client().embed(['x']),
      (error: Error) =>
        error instanceof EmbeddingError &&
        /answered 500: The server had an error \(after 3 attempts\)/.test(error.message) &&
        !error.message.includes(KEY),
    );
    assert.equal(requests.length, 3);
  });

  it('fails clearly on a malformed body, a wrong count, and a 401', async () => {
    setScript([(_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>proxy error</html>')]);
    await assert.rejects(client().embed(['x']), /not an embeddings response \(not JSON/);
    setScript([(_, res) => res.writeHead(200).end(JSON.stringify({ data: [] }))]);
    await assert.rejects(client().embed(['x']), /0 embeddings for 1 texts/);
    setScript([(_, res) => res.writeHead(200).end(JSON.stringify({ data: [{ index: 0, embedding: ['a'] }] }))]);
    await assert.rejects(client().embed(['x']), /no vector of numbers/);
    setScript([(_, res) => res.writeHead(401).end('{"error":{"message":"Incorrect API key provided: sk-test-***6789"}}')]);
    await assert.rejects(
      client().embed(['x']),
      (error: Error) => /answered 401 \(is the API key set\?.*\): Incorrect API key/.test(error.message) && !error.message.includes(KEY),
    );
    await assert.rejects(new OpenAiEmbeddings({ baseUrl: 'http://127.0.0.1:9/v1', retries: 0 }).embed(['x']), /cannot be reached/);
  });

  it('caches by content hash on disk: a re-run asks for nothing', async () => {
    const dir = tempDir('ves-lens-embeddings-');
    requests.length = 0;
    const first = new CachedEmbeddings(client(), dir);
    const a = await first.embed(['one', 'two', 'one']);
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0].body.input, ['one', 'two']);
    const second = new CachedEmbeddings(client(), dir);
    const b = await second.embed(['two', 'one']);
    assert.equal(requests.length, 1);
    assert.equal(second.requested, 0);
    assert.deepEqual(
      b.map((v) => Array.from(v)),
      [Array.from(a[1]), Array.from(a[0])],
    );
    // Another model is another key.
    await new CachedEmbeddings(client({ model: 'other' }), dir).embed(['one']);
    assert.equal(requests.length, 2);
    assert.ok(fs.readdirSync(dir).length > 0);
  });

  it('feeds the semantic techniques; a failing endpoint fails only them', async () => {
    const gold = {
      columns: ['School', 'City'],
      rows: [
        ['A', 'X'],
        ['B', 'Y'],
      ],
    };
    const predicted = {
      columns: ['School', 'Town'],
      rows: [
        ['A', 'X'],
        ['C', 'Y'],
      ],
    };
    const report = await scoreTechniques(gold, predicted, { embeddings: client() });
    assert.ok(!('error' in report.scores.semantic_column_and_exact_cell!));
    assert.ok(!('error' in report.scores.unified_column_and_semantic_row!));
    setScript([0, 1, 2].map(() => (_: unknown, res: http.ServerResponse) => res.writeHead(503).end('overloaded')));
    const failed = await scoreTechniques(gold, predicted, { embeddings: client() });
    assert.match((failed.scores.semantic_column_and_exact_cell as { error: string }).error, /answered 503: overloaded/);
    assert.match((failed.scores.semantic_column_and_partial_cell as { error: string }).error, /answered 503/);
    assert.deepEqual(failed.scores.exact_column_and_exact_cell, report.scores.exact_column_and_exact_cell);
    setScript([]);
  });
});

const localSkip = localModelInstalled() ? false : process.env.CI ? undefined : 'the optional local model packages are not installed';

describe('the local model (Universal Sentence Encoder Lite), for real', { skip: localSkip }, () => {
  it('is installed in CI (optionalDependencies)', () => assert.ok(localModelInstalled()));

  it('embeds offline, deterministically, 512 dimensions, and matches renamed columns by meaning', async () => {
    const model = new LocalEmbeddings();
    const [a, b, c] = await model.embed(['hello world', 'hello world', 'superhero height in centimetres']);
    assert.equal(a.length, 512);
    assert.deepEqual(Array.from(a), Array.from(b));
    assert.ok(cosineSimilarity(a, b) > 0.999);
    assert.ok(cosineSimilarity(a, c) < 0.7);
    const gold = {
      columns: ['superhero_name', 'height_cm'],
      rows: [
        ['Spider-Man', 178],
        ['Hulk', 244],
        ['Thor', 198],
      ],
    };
    const predicted = {
      columns: ['name', 'height'],
      rows: [
        ['Spider-Man', 178],
        ['Hulk', 244],
        ['Thor', 199],
      ],
    };
    const report = await scoreTechniques(gold, predicted, { embeddings: model, details: true });
    const alignment = report.details.semantic_column_and_exact_cell?.columns ?? [];
    // name ↔ superhero_name (0.96) and height ↔ height_cm (0.97), both above SQLMorph's 0.7: 2 of 3 rows equal on both.
    assert.deepEqual(
      alignment.map((p) => [p.predicted, p.gold, p.matched]),
      [
        [0, 0, true],
        [1, 1, true],
      ],
    );
    const scec = report.scores.semantic_column_and_exact_cell as { EXP: number; EXR: number };
    assert.deepEqual([scec.EXP, scec.EXR], [4 / 6, 4 / 6]);
    // The exact-name techniques find no common column; no_column ignores names.
    assert.deepEqual(report.scores.exact_column_and_exact_cell, { EX: 0, EXP: 0, EXR: 0, F1: 0 });
  });
});
