// The editor on PostgreSQL (issue 18), the language server's logic in-process: a real PostgreSQL 15 server (a
// throwaway cluster on a unix socket) holding the sample superhero database as `ves-lens load` builds it, reached
// as a role that must give its password. The password comes from the client's SecretStorage for that URL only;
// without it the dataset stays attached and says what to do. Score against gold, Explain, hints (diagnostics and a
// verified quick fix), Time alone and Evaluate a Prediction File run on the server and say what ran the SQL, never
// with the password; the question documents show the official PostgreSQL gold.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing } from '../../src/core/db/postgres/localCluster';
import { VesLensService } from '../../src/server/service';
import { SecretName } from '../../src/shared/protocol';
import { DEFAULT_SETTINGS, passwordScope, VesLensSettings } from '../../src/shared/settings';
import { birdDataMissing, REPO_ROOT, tempDir } from '../helpers';
import { InMemoryDocuments } from './inMemoryDocuments';
import { passwordRole, SAMPLE, SAMPLE_QUESTIONS, startSuperheroCluster, superheroPostgresGold } from './postgresFixtures';

const PASSWORD = 'hunter2-on-the-wire';
// Question 717 (the superpowers of 3-D Man), answered in PostgreSQL's own SQL: = ANY over an array, ILIKE.
const PG_PREDICTION =
  "SELECT sp.power_name FROM superpower sp WHERE sp.id = ANY (ARRAY(SELECT hp.power_id FROM hero_power hp JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name ILIKE '3-d man'))";

describe('the editor on a PostgreSQL server (service in-process)', { skip: localClusterMissing() || birdDataMissing() }, () => {
  let cluster: LocalCluster;
  let url: string;
  let service: VesLensService;
  let stored: string | undefined = PASSWORD;
  const asked: { name: SecretName; scope?: string }[] = [];
  const log: string[] = [];
  const documents = new InMemoryDocuments();
  const folder = tempDir('ves-lens-pg-editor-');
  let settings: VesLensSettings;

  before(async () => {
    cluster = startSuperheroCluster();
    url = passwordRole(cluster, 'reader', PASSWORD);
    settings = { ...DEFAULT_SETTINGS, engine: 'postgres', postgresUrl: url, timingIterations: 5 };
    service = new VesLensService({
      documents,
      log: (message) => log.push(message),
      docsRoot: path.join(REPO_ROOT, 'docs', 'rules'),
      secret: async (name, scope) => {
        asked.push({ name, scope });
        return name === 'postgresPassword' && scope === passwordScope(url) ? stored : undefined;
      },
    });
    const goldFile = superheroPostgresGold(folder)!;
    await service.initialize({ dataset: { questionsFile: SAMPLE_QUESTIONS, goldFile, dbRoot: SAMPLE }, trusted: true, settings });
  });
  after(async () => {
    await service?.dispose();
    cluster?.stop();
  });

  /** Everything a result could show a person or a log line, to look for the password in. */
  const shown = (...values: unknown[]) => JSON.stringify(values) + log.join('\n');

  it('connects with the password stored for this URL, and says what runs the SQL without it', () => {
    assert.deepEqual(asked, [{ name: 'postgresPassword', scope: passwordScope(url) }]);
    const summary = service.summary();
    assert.equal(summary.engineError, undefined);
    assert.equal(summary.engine?.engine, 'postgres');
    assert.equal(summary.engine?.runs, 'server');
    assert.match(
      summary.engine?.line ?? '',
      /^PostgreSQL 15\.\d+ .*\(server postgresql:\/\/reader@localhost:\d+\/bird\?host=.*, one-database layout\)$/,
    );
    assert.deepEqual(
      summary.databases.map(({ dbId, present, location }) => ({ dbId, present, location })),
      [{ dbId: 'superhero', present: true, location: `superhero's tables in ${url}` }],
    );
    assert.ok(!shown(summary).includes(PASSWORD));
  });

  it("scores a PostgreSQL statement against the official PostgreSQL gold, with both plans, on the server's engine", async () => {
    const result = await service.score({ sql: PG_PREDICTION, questionId: 717 });
    assert.equal(result.outcome, 'correct', result.error ?? '');
    assert.equal(result.ex, 1);
    assert.equal(result.f1, 1);
    assert.match(result.engine, /^PostgreSQL 15\.\d+/);
    assert.deepEqual(result.predPreview.columns, ['power_name']);
    assert.equal(result.predPreview.rowCount, 4);
    assert.ok(result.timings.rves && result.timings.rves.runs > 0, 'the pair is timed on the server');
    assert.ok(result.goldPlan.nodes.length > 0 && result.predPlan.nodes.length > 0, 'both plans are PostgreSQL plans');
    assert.match(result.predSql, /= ANY \(\s*ARRAY\s*\(/, 'laid out as PostgreSQL');
    assert.ok(!shown(result).includes(PASSWORD));
  });

  it("shows the PostgreSQL gold in the question's document", () => {
    const text = service.questionDocument(732);
    assert.match(text, /-- Gold SQL \(mini_dev_superhero_postgresql_gold\.sql\):/);
    assert.match(text, /ORDER BY\s+T3\.attribute_value NULLS FIRST/);
  });

  it('explains and times a statement on the server', async () => {
    const explained = await service.explain({ sql: 'SELECT COUNT(*) FROM superhero WHERE height_cm > 180', dbId: 'superhero' });
    assert.ok(explained.plan.nodes.length > 0);
    assert.equal(explained.dbPath, url, 'the target is the URL without password');
    const timed = await service.timeQuery({ sql: 'SELECT COUNT(*) FROM superhero', dbId: 'superhero' });
    assert.equal(timed.error, undefined);
    assert.ok(timed.runs >= 3 && timed.ms > 0, JSON.stringify(timed));
    assert.ok(!shown(explained, timed).includes(PASSWORD));
  });

  it("lints with the server's schema, says PostgreSQL's own compile error, and verifies a quick fix on the server", async () => {
    const uri = 'file:///ws/hints.sql';
    const document = documents.open(
      uri,
      'sql',
      "-- db: superhero\nSELECT id FROM superhero WHERE superhero_name LIKE 'Batman';\n\n-- db: superhero\nSELECT nope FROM superhero;\n",
    );
    const diagnostics = await service.diagnostics(document);
    const like = diagnostics.find((d) => d.code === 'VL006');
    assert.ok(like, JSON.stringify(diagnostics));
    const compile = diagnostics.find((d) => d.code === 'sql-error');
    assert.match(compile?.message ?? '', /^PostgreSQL: column "nope" does not exist/);
    const data = like.data as { statementStart: number; rule: string; hintStart: number };
    const verdict = await service.verifyHint({ uri, statementStart: data.statementStart, rule: 'VL006', hintStart: data.hintStart });
    assert.notEqual(verdict.status, 'failed', verdict.message);
    assert.equal(verdict.status === 'changes-results', false, verdict.message);
    const { start, end, text } = verdict.edit!;
    const fixed = document.getText().slice(0, start) + text + document.getText().slice(end);
    assert.match(fixed, /SELECT id FROM superhero WHERE superhero_name = 'Batman';/);
  });

  it('evaluates a prediction file on the server and names the engine in the report', async () => {
    const predictions = path.join(folder, 'predictions.json');
    fs.writeFileSync(
      predictions,
      JSON.stringify([
        { question_id: 717, predicted_sql: PG_PREDICTION },
        { question_id: 719, predicted_sql: 'SELECT 1' },
      ]),
    );
    const report = await service.evaluateFile({ predictionsFile: predictions, metrics: ['ex', 'f1'] });
    assert.match(report.engine, /^PostgreSQL 15\.\d+/);
    const scored = new Map(report.questions.map((q) => [q.question_id, q.ex]));
    assert.equal(scored.get(717), 1);
    assert.equal(scored.get(719), 0);
    assert.ok(!shown(report).includes(PASSWORD));
  });

  it('without its password the dataset stays attached and says what to do; every feature says the same', async () => {
    stored = undefined;
    const summary = await service.reconnect();
    assert.equal(summary.error, undefined);
    assert.equal(summary.questionCount, 52);
    assert.equal(summary.engine, null);
    assert.match(
      summary.engineError ?? '',
      /^PostgreSQL at postgresql:\/\/reader@\S+ asks for a password, and none is stored for this URL: run "VES Lens: Set PostgreSQL Password"/,
    );
    await assert.rejects(service.score({ sql: PG_PREDICTION, questionId: 717 }), /cannot be reached: .*asks for a password/);
    const document = documents.open('file:///ws/unreachable.sql', 'sql', '-- db: superhero\nSELECT 1;\n');
    const [problem] = await service.diagnostics(document);
    assert.equal(problem?.code, 'missing-database');
    assert.match(problem.message, /database superhero \(named by `-- db: superhero`\) cannot be reached: .*Set PostgreSQL Password/);
    stored = 'not-the-password';
    assert.match(
      (await service.reconnect()).engineError ?? '',
      /password authentication failed for user "reader": run "VES Lens: Set PostgreSQL Password"/,
    );
    stored = PASSWORD;
    assert.equal((await service.reconnect()).engineError, undefined, 'a stored password connects again');
  });

  it('another engine in the settings reconnects: SQLite files again, then a server that is not there', async () => {
    assert.deepEqual(service.applySettings({ ...settings, engine: 'sqlite' }).databases, true);
    const sqlite = await service.reconnect();
    assert.equal(sqlite.engine?.engine, 'sqlite');
    assert.match(sqlite.engine?.line ?? '', /^SQLite 3\.\d+/);
    assert.deepEqual(service.applySettings({ ...settings, engine: 'sqlite', timeoutSeconds: 5 }).databases, false);
    const nowhere = new URL(url);
    nowhere.port = String(cluster.port + 1);
    service.applySettings({ ...settings, postgresUrl: nowhere.toString() });
    const gone = await service.reconnect();
    assert.match(
      gone.engineError ?? '',
      /^PostgreSQL at postgresql:\/\/reader@localhost:\d+\/bird\?host=\S+ cannot be used: .*Check vesLens\.postgres\.url/,
    );
    service.applySettings({ ...settings, postgresUrl: 'mysql://localhost/bird' });
    assert.match(
      (await service.reconnect()).engineError ?? '',
      /vesLens\.postgres\.url: expected postgresql:\/\/user@host:port\/database, got "mysql:/,
    );
    service.applySettings(settings);
    assert.equal((await service.reconnect()).engine?.engine, 'postgres');
  });

  it('gives up on a server that never answers; a setting changed meanwhile wins over the connect still under way', async () => {
    // A port that accepts connections and never says a word (a host that swallows packets never refuses either).
    const held = new Set<net.Socket>();
    const silent = net.createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `postgresql://reader@127.0.0.1:${(silent.address() as net.AddressInfo).port}/bird`;
    try {
      service.applySettings({ ...settings, postgresUrl: silentUrl });
      const stalled = service.reconnect();
      service.applySettings(settings);
      assert.equal((await service.reconnect()).engine?.engine, 'postgres');
      await stalled;
      assert.equal(service.summary().engine?.engine, 'postgres', 'the connect that finished last was asked first: dropped');
      service.applySettings({ ...settings, postgresUrl: silentUrl });
      const started = performance.now();
      assert.match(
        (await service.reconnect()).engineError ?? '',
        /^PostgreSQL at postgresql:\/\/reader@127\.0\.0\.1:\d+\/bird cannot be used: no answer within 10 s/,
      );
      assert.ok(performance.now() - started < 15_000);
    } finally {
      // Its connections closed too: a client still waiting on one would keep this process alive.
      for (const socket of held) socket.destroy();
      silent.close();
      service.applySettings(settings);
      await service.reconnect();
    }
  });

  it('never writes the password to the log', () => {
    assert.ok(log.length > 0);
    assert.ok(!log.join('\n').includes(PASSWORD));
  });
});

describe('a PostgreSQL server with one schema per database', { skip: localClusterMissing() }, () => {
  let cluster: LocalCluster;
  let service: VesLensService;
  const documents = new InMemoryDocuments();

  before(async () => {
    cluster = startSuperheroCluster();
    service = new VesLensService({ documents, log: () => undefined, docsRoot: '' });
    const settings: VesLensSettings = { ...DEFAULT_SETTINGS, engine: 'postgres', postgresUrl: cluster.url, postgresLayout: 'schema' };
    await service.initialize({ dataset: { questionsFile: SAMPLE_QUESTIONS, dbRoot: SAMPLE }, trusted: true, settings });
  });
  after(async () => {
    await service?.dispose();
    cluster?.stop();
  });

  it('says which schema is missing and how to load it', async () => {
    const summary = service.summary();
    assert.equal(summary.engineError, undefined);
    assert.deepEqual(
      summary.databases.map(({ dbId, present, location }) => ({ dbId, present, location })),
      [{ dbId: 'superhero', present: false, location: `schema superhero in ${cluster.url}` }],
    );
    const document = documents.open('file:///ws/schema.sql', 'sql', '-- db: superhero\nSELECT 1;\n');
    const [problem] = await service.diagnostics(document);
    assert.match(
      problem?.message ?? '',
      /database superhero \(named by `-- db: superhero`\) is missing: schema superhero in postgresql:\/\/.* does not exist \(load it with ves-lens load --from .*sample --to postgresql:\/\/.* --db superhero\)/,
    );
  });
});
