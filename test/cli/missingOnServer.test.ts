// Missing databases are skipped on every engine (issue 30): a real PostgreSQL server in the one-database layout
// holding the 3 of mini-dev's 11 databases that the shared data has; the 360 questions on the other 8 are skipped
// and listed as on SQLite, not gold errors, and the run scores the same 140 questions as on the SQLite files.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, birdDataMissing, runCli, tempDir } from '../helpers';
import { startLoadedCluster } from '../pgCluster';

const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const DATABASES = path.join(BIRD_DATA, 'databases');

interface Report {
  summary: { total: { count: number } };
  questions: { db_id: string; outcome: string; error: string | null }[];
}

describe('a server holding 3 of 11 databases', { skip: birdDataMissing() || localClusterMissing() }, () => {
  let cluster: LocalCluster;
  before(() => {
    cluster = startLoadedCluster(DATABASES);
  });
  after(() => cluster?.stop());

  it('skips the questions on the 8 it lacks, as SQLite does, instead of scoring them as gold errors', () => {
    const folder = tempDir();
    const run = (engine: string[], gold: string, predictions: string, json: string) =>
      runCli([
        'eval',
        ...engine,
        '--questions',
        QUESTIONS,
        '--gold',
        path.join(BIRD_DATA, 'questions', gold),
        '--predictions',
        path.join(BIRD_DATA, 'predictions', predictions),
        '--metrics',
        'ex',
        '--no-progress',
        '--json',
        json,
      ]);
    const onServer = run(
      ['--db-url', cluster.url],
      'mini_dev_postgresql_gold.sql',
      'minidev-postgresql/predict_mini_dev_gpt-4_postgresql.json',
      path.join(folder, 'server.json'),
    );
    assert.equal(onServer.status, 0, onServer.stderr);
    const onSqlite = run(
      ['--db-root', DATABASES],
      'mini_dev_sqlite_gold.v1-2024.sql',
      'minidev-official/predict_mini_dev_gpt-4_sqlite.json',
      path.join(folder, 'sqlite.json'),
    );
    assert.equal(onSqlite.status, 0, onSqlite.stderr);
    const server = JSON.parse(fs.readFileSync(path.join(folder, 'server.json'), 'utf8')) as Report;
    const sqlite = JSON.parse(fs.readFileSync(path.join(folder, 'sqlite.json'), 'utf8')) as Report;

    const skipped = (report: Report) => report.questions.filter((q) => q.outcome === 'skipped').map((q) => q.db_id);
    assert.equal(skipped(server).length, 360);
    assert.deepEqual(skipped(server), skipped(sqlite), 'the same questions skipped on both engines');
    assert.equal(server.summary.total.count, 140);
    assert.equal(server.summary.total.count, sqlite.summary.total.count);
    assert.equal(server.questions.filter((q) => q.outcome === 'gold_error').length, 0, 'no gold errors');
    const firstSkipped = server.questions.find((q) => q.outcome === 'skipped')!;
    assert.match(firstSkipped.error ?? '', /database not found: debit_card_specializing's tables in postgresql:\/\//);
    assert.match(onServer.stdout + onServer.stderr, /skipped 360 questions whose database is missing.*debit_card_specializing \(30\)/);
    assert.doesNotMatch(onServer.stdout + onServer.stderr, /damaged/);
  });

  it('audit: the gold of the 8 databases it lacks is not audited (database missing), not failing gold', () => {
    const json = path.join(tempDir(), 'audit.json');
    const run = runCli(
      [
        'audit',
        '--db-url',
        cluster.url,
        '--questions',
        QUESTIONS,
        '--gold',
        path.join(BIRD_DATA, 'questions', 'mini_dev_postgresql_gold.sql'),
      ].concat(['--no-measure', '--no-progress', '--json', json]),
      { timeout: 600_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as { entries: { not_audited?: string | null }[] };
    assert.equal(report.entries.filter((e) => e.not_audited === 'database_missing').length, 360);
    assert.equal(report.entries.filter((e) => !e.not_audited).length, 140);
  });
});
