// Score carries SQLMorph's partial-credit techniques (src/app/scoreTechniques.ts), in-process, on a real pair of
// the shared BIRD data (mini-dev question 1375, student_club: first and last names of a department's members):
// the same numbers as core's scoreQueryTechniques and as `ves-lens eval --techniques`, the column alignment where
// the prediction reorders columns or adds one, the rows' fates, the settings taking effect at once, and the
// semantic techniques through a loopback /v1/embeddings server with the key the client gives.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scoreQueryTechniques, TECHNIQUES, TechniqueName } from '../../src/core/results/sqlmorph';
import { DatabaseConnection } from '../../src/core/db/engine';
import { openDatabase } from '../../src/core/db/engines';
import { OpenAiEmbeddings } from '../../src/core/embeddings/openaiCompatible';
import { VesLensService } from '../../src/server/service';
import { TechniquesView } from '../../src/shared/protocol';
import { DEFAULT_SETTINGS, VesLensSettings } from '../../src/shared/settings';
import { startEmbeddingsServer } from '../fakeEmbeddingsServer';
import { BIRD_DATA, birdDataMissing, REPO_ROOT, tempDir } from '../helpers';

const dataset = {
  questionsFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v3.json'),
  goldFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v3.sql'),
  dbRoot: path.join(BIRD_DATA, 'databases'),
};
const DB = path.join(BIRD_DATA, 'databases', 'student_club', 'student_club.sqlite');
const FROM =
  "FROM member AS T1 INNER JOIN major AS T2 ON T1.link_to_major = T2.major_id WHERE T2.department = 'School of Applied Sciences, Technology and Education'";
const GOLD = `SELECT T1.first_name, T1.last_name ${FROM}`;
/** The same members, the names the other way round and the phone added: EX 0, but every name cell is right. */
const REORDERED_EXTRA = `SELECT T1.last_name, T1.first_name, T1.phone ${FROM}`;
/** The first two members' last names upper-cased: those rows share only their first names with gold. */
const HALF_WRONG = `SELECT T1.first_name, CASE WHEN T1.first_name IN (SELECT first_name ${FROM} LIMIT 2) THEN UPPER(T1.last_name) ELSE T1.last_name END AS last_name ${FROM}`;
const PLAIN = TECHNIQUES.filter(
  (t) => !['semantic_column_and_exact_cell', 'semantic_column_and_partial_cell', 'unified_column_and_semantic_row'].includes(t),
);
const KEY = 'sk-editor-secret-7777';

const scoreOf = (view: TechniquesView | null | undefined, name: TechniqueName) => view?.techniques.find((t) => t.name === name)?.score;
const scoresOf = (view: TechniquesView | null | undefined) => Object.fromEntries((view?.techniques ?? []).map((t) => [t.name, t.score]));

describe("Score carries SQLMorph's techniques (service in-process, shared BIRD data)", { skip: birdDataMissing() }, () => {
  const log: string[] = [];
  let secretAsked = 0;
  let secret: string | undefined;
  const service = new VesLensService({
    documents: { get: () => undefined, all: () => [] },
    log: (m) => log.push(m),
    docsRoot: '',
    secret: async () => {
      secretAsked++;
      return secret;
    },
  });
  const storageDir = tempDir('ves-lens-storage-');
  let db: DatabaseConnection;
  const settings = (changes: Partial<VesLensSettings>) => service.applySettings({ ...DEFAULT_SETTINGS, ...changes });
  const score = async (sql: string) => (await service.score({ sql, questionId: 1375, phase: 'correctness' })).techniques;
  const core = (sql: string, options: { penalizeExtraColumns?: boolean; embeddings?: OpenAiEmbeddings } = {}) =>
    scoreQueryTechniques(db, GOLD, sql, { techniques: [...TECHNIQUES], details: true, timeoutMs: 30_000, maxRows: 500_000, ...options });

  before(async () => {
    await service.initialize({ dataset, trusted: true, storageDir });
    db = await openDatabase(DB);
  });
  after(async () => {
    await db?.close();
    await service.dispose();
  });

  it('scores the same as core and as `ves-lens eval --techniques`: reordered names and an extra column', async () => {
    const view = await score(REORDERED_EXTRA);
    assert.ok(view);
    const expected = await core(REORDERED_EXTRA);
    assert.deepEqual(
      view.techniques.map((t) => t.name),
      [...TECHNIQUES],
      'every technique (vesLens.techniques: ["all"]), in SQLMorph\'s order',
    );
    assert.deepEqual(scoresOf(view), expected.scores);
    // By hand: EX 0 (positional rows differ); both names matched, the phone is an extra column that counts against precision.
    assert.deepEqual(scoreOf(view, 'execution_accuracy'), { EX: 0 });
    assert.deepEqual(scoreOf(view, 'exact_column_and_exact_cell'), { EX: 0, EXP: 2 / 3, EXR: 1, F1: 0.8 });

    // The same numbers as the command line on the same pair.
    const predictions = path.join(tempDir(), 'predictions.json');
    fs.writeFileSync(predictions, JSON.stringify([{ question_id: 1375, predicted_sql: REORDERED_EXTRA }]));
    const json = path.join(tempDir(), 'out.json');
    const cli = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'ves-lens.js'),
        'eval',
        '--questions',
        dataset.questionsFile,
        '--gold',
        dataset.goldFile,
        '--predictions',
        predictions,
        '--db-root',
        dataset.dbRoot,
        '--metrics',
        'ex',
        '--techniques',
        'all',
        '--no-progress',
        '--json',
        json,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(cli.status, 0, cli.stderr);
    const question = JSON.parse(fs.readFileSync(json, 'utf8')).questions.find((q: { question_id: number }) => q.question_id === 1375);
    assert.deepEqual(scoresOf(view), question.techniques);

    // The alignment: predicted column 1 (first_name) ↔ gold 0, predicted 0 (last_name) ↔ gold 1; the phone is unpaired.
    const exact = view.techniques.find((t) => t.name === 'exact_column_and_partial_cell')!;
    assert.deepEqual(exact.columns, [
      { predicted: 1, gold: 0, similarity: 1, matched: true },
      { predicted: 0, gold: 1, similarity: 1, matched: true },
    ]);
    assert.deepEqual(view.predicted?.columns, ['last_name', 'first_name', 'phone']);
    assert.deepEqual(view.gold?.columns, ['first_name', 'last_name']);
    // Every row matched whole on the aligned columns, each with its partner.
    const rows = view.gold!.rowCount;
    assert.ok(rows >= 2);
    assert.deepEqual(exact.rows?.goldCounts, { exact: rows, partial: 0, none: 0 });
    assert.ok(exact.rows?.gold.every((fate) => fate.kind === 'exact' && fate.partner !== undefined));
    // The semantic techniques say why they did not score, and how to set a provider up.
    assert.deepEqual(scoreOf(view, 'unified_column_and_semantic_row'), { error: 'no embedding provider' });
    assert.equal(view.setup?.action, 'settings');
    assert.match(view.setup?.hint ?? '', /vesLens\.embeddings\.provider .*"openai".*Set Embeddings API Key.*"local"/);
    assert.equal(view.sameRows, false);
    assert.equal(secretAsked, 0, 'no key asked for without a provider');
  });

  it('marks partly matched rows with their cell score, and takes vesLens.penalizeExtraColumns at once', async () => {
    const view = await score(HALF_WRONG);
    assert.deepEqual(scoresOf(view), (await core(HALF_WRONG)).scores);
    const partial = view!.techniques.find((t) => t.name === 'exact_column_and_partial_cell')!;
    const rows = view!.gold!.rowCount;
    assert.deepEqual(partial.rows?.goldCounts, { exact: rows - 2, partial: 2, none: 0 });
    assert.deepEqual(
      partial.rows?.gold.filter((f) => f.kind === 'partial').map((f) => f.similarity),
      [0.5, 0.5],
      'half the cells of those rows',
    );
    const exactCells = view!.techniques.find((t) => t.name === 'exact_column_and_exact_cell')!;
    assert.deepEqual(exactCells.rows?.goldCounts, { exact: rows - 2, partial: 0, none: 2 });

    settings({ penalizeExtraColumns: false });
    try {
      const lenient = await score(REORDERED_EXTRA);
      assert.deepEqual(scoresOf(lenient), (await core(REORDERED_EXTRA, { penalizeExtraColumns: false })).scores);
      assert.deepEqual(scoreOf(lenient, 'exact_column_and_exact_cell'), { EX: 0, EXP: 1, EXR: 1, F1: 1 }, 'the extra column costs nothing');
      assert.equal(lenient?.penalizeExtraColumns, false);
    } finally {
      settings({});
    }
  });

  it('computes only the techniques asked for; none: no section', async () => {
    settings({ techniques: ['no_column_and_partial_cell', 'execution_accuracy'] });
    try {
      const view = await score(REORDERED_EXTRA);
      assert.deepEqual(
        view?.techniques.map((t) => t.name),
        ['execution_accuracy', 'no_column_and_partial_cell'],
      );
      assert.equal(view?.setup, null, 'no semantic technique asked: no setup hint');
      settings({ techniques: [] });
      assert.equal(await score(REORDERED_EXTRA), null);
    } finally {
      settings({});
    }
  });

  it('equal row sets: every technique 1 without matching anything (check_ex)', async () => {
    const view = await score(`${GOLD} ORDER BY T1.last_name DESC`);
    assert.equal(view?.sameRows, true);
    for (const name of PLAIN) assert.equal((scoreOf(view, name) as { EX: number }).EX, 1, name);
    assert.deepEqual(view?.techniques.find((t) => t.name === 'exact_column_and_exact_cell')?.rows?.predictedCounts, {
      exact: view!.predicted!.rowCount,
      partial: 0,
      none: 0,
    });
  });

  it('embeds through an OpenAI-compatible endpoint with the key the client gives, and names the key nowhere', async () => {
    const endpoint = await startEmbeddingsServer();
    secret = KEY;
    secretAsked = 0;
    settings({ embeddingsProvider: 'openai', embeddingsUrl: endpoint.url, embeddingsModel: 'fake-embedding' });
    try {
      const result = await service.score({ sql: REORDERED_EXTRA, questionId: 1375, phase: 'correctness' });
      const view = result.techniques!;
      assert.equal(secretAsked, 1, 'asked once, when a semantic technique needed it');
      assert.ok(endpoint.requests.length > 0);
      assert.deepEqual(new Set(endpoint.requests.map((r) => r.auth)), new Set([`Bearer ${KEY}`]));
      assert.deepEqual(endpoint.requests[0].body.model, 'fake-embedding');
      // The same numbers as core with the same endpoint (and no cache: the editor's cache must not change them).
      const expected = await core(REORDERED_EXTRA, {
        embeddings: new OpenAiEmbeddings({ baseUrl: endpoint.url, model: 'fake-embedding', apiKey: KEY }),
      });
      assert.deepEqual(scoresOf(view), expected.scores);
      for (const name of ['semantic_column_and_exact_cell', 'semantic_column_and_partial_cell', 'unified_column_and_semantic_row'] as const)
        assert.ok(!('error' in scoreOf(view, name)!), name);
      const semantic = view.techniques.find((t) => t.name === 'semantic_column_and_partial_cell')!;
      assert.equal(semantic.columns?.length, 2, 'two gold columns: the assignment pairs two of the three predicted ones');
      assert.ok(semantic.columns!.every((p) => p.similarity > 0 && p.similarity <= 1));
      assert.deepEqual(view.embeddings, { provider: 'openai', url: endpoint.url, model: 'fake-embedding' });
      assert.equal(view.setup, null);
      // Cached in the extension's storage: a second score asks the endpoint for nothing new.
      assert.ok(fs.existsSync(path.join(storageDir, 'embeddings')));
      const asked = endpoint.requests.length;
      await service.score({ sql: REORDERED_EXTRA, questionId: 1375, phase: 'correctness' });
      assert.equal(endpoint.requests.length, asked);
      assert.ok(!JSON.stringify(result).includes(KEY) && !log.join('\n').includes(KEY), 'the key is in no result and no log line');

      // A refused key: the endpoint's own message, and where the key is set.
      endpoint.script.push(
        ...[0, 1].map(
          () => (_: unknown, res: import('node:http').ServerResponse) =>
            res.writeHead(401).end('{"error":{"message":"Incorrect API key provided"}}'),
        ),
      );
      const refused = await score(HALF_WRONG);
      assert.match(
        (scoreOf(refused, 'semantic_column_and_exact_cell') as { error: string }).error,
        /answered 401 \(is the API key set\? set it with "VES Lens: Set Embeddings API Key"\): Incorrect API key provided/,
      );
    } finally {
      secret = undefined;
      settings({});
      await endpoint.close();
    }
  });

  it("OpenAI's own API without a key: the semantic techniques say to set one, and nothing is sent", async () => {
    secretAsked = 0;
    settings({ embeddingsProvider: 'openai', embeddingsUrl: 'https://api.openai.com/v1' });
    const realFetch = globalThis.fetch;
    const fetched: string[] = [];
    globalThis.fetch = (async (input: string | URL | Request) => {
      fetched.push(String(input));
      throw new Error('no network in this test');
    }) as typeof fetch;
    try {
      const view = await score(HALF_WRONG);
      assert.equal(secretAsked, 1);
      assert.deepEqual(scoreOf(view, 'semantic_column_and_exact_cell'), {
        error: 'no API key for https://api.openai.com/v1: run "VES Lens: Set Embeddings API Key"',
      });
      assert.equal(view?.setup?.action, 'key');
      assert.deepEqual(
        scoreOf(view, 'exact_column_and_exact_cell'),
        (await core(HALF_WRONG)).scores.exact_column_and_exact_cell,
        'the others still score',
      );
      settings({ embeddingsProvider: 'openai', embeddingsUrl: 'not a url' });
      assert.deepEqual(scoreOf(await score(HALF_WRONG), 'unified_column_and_semantic_row'), {
        error: 'vesLens.embeddings.url is not a URL: "not a url"',
      });
      assert.deepEqual(fetched, []);
    } finally {
      globalThis.fetch = realFetch;
      settings({});
    }
  });

  it('a pair that ran out of time is not run again for the techniques: each says it timed out', async () => {
    settings({ timeoutSeconds: 0.5 });
    try {
      const started = Date.now();
      const result = await service.score({
        sql: 'SELECT count(*) FROM attendance a, attendance b, attendance c, attendance d',
        questionId: 1375,
        phase: 'correctness',
      });
      assert.equal(result.outcome, 'timeout');
      assert.ok(
        Date.now() - started < 3000,
        `${Date.now() - started} ms: the runaway query ran once for the score and once for the preview, not again`,
      );
      assert.ok(
        result.techniques?.techniques.every((t) => 'error' in t.score && t.score.error === result.error),
        JSON.stringify(result.techniques?.techniques),
      );
    } finally {
      settings({});
    }
  });

  it('a prediction that fails scores 0 everywhere and says why', async () => {
    const view = await score('SELECT nope FROM member');
    assert.deepEqual(view?.failure?.side, 'prediction');
    assert.match(view?.failure?.message ?? '', /no such column: nope/);
    assert.deepEqual(scoreOf(view, 'exact_column_and_partial_cell'), { EX: 0, EXP: 0, EXR: 0, F1: 0 });
  });
});
