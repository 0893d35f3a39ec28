// No password in any output, whatever the shape of the URL it came in (issue 30): eval, judge and audit as users
// run them, with a --db-url (or --compare-db-url) in every malformed shape, and a run on a real PostgreSQL server
// reached with a password written three ways, whose terminal output, JSON and HTML reports are all read.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalCluster, localClusterMissing } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, birdDataMissing, runCli, tempDir } from '../helpers';
import { startLoadedCluster } from '../pgCluster';
import { PASSWORD_FORMS } from '../passwordForms';

const QUESTIONS = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
const PG_GOLD = path.join(BIRD_DATA, 'questions', 'mini_dev_postgresql_gold.sql');
const PG_PREDICTIONS = path.join(BIRD_DATA, 'predictions', 'minidev-postgresql', 'predict_mini_dev_gpt-4_postgresql.json');
const DATABASES = path.join(BIRD_DATA, 'databases');

function assertNoPassword(password: string, outputs: string[], what: string): void {
  for (const output of outputs) {
    assert.ok(!output.includes(password), `${what}: the password ${password} was printed:\n${output.slice(0, 2000)}`);
    if (password.includes('%')) assert.ok(!output.includes(decodeURIComponent(password)), `${what}: decoded password printed`);
  }
}

describe('no password in any output', { skip: birdDataMissing() }, () => {
  for (const [form, password] of PASSWORD_FORMS)
    it(`eval, judge and audit given ${form}`, () => {
      const folder = tempDir();
      const runs = [
        ['eval', '--questions', QUESTIONS, '--predictions', PG_PREDICTIONS, '--db-url', form, '--metrics', 'ex'],
        ['eval', '--questions', QUESTIONS, '--predictions', PG_PREDICTIONS, '--engine', 'postgres', '--db-url', form],
        [
          'judge',
          '--questions',
          QUESTIONS,
          '--predictions',
          PG_PREDICTIONS,
          '--db-url',
          form,
          '--endpoint',
          'http://127.0.0.1:1/v1',
          '--model',
          'm',
        ],
        ['audit', '--questions', QUESTIONS, '--db-url', form, '--no-measure'],
        ['audit', '--questions', QUESTIONS, '--db-root', DATABASES, '--compare-gold', PG_GOLD, '--compare-db-url', form, '--no-measure'],
        ['load', '--from', DATABASES, '--to', form],
      ];
      for (const args of runs) {
        const json = path.join(folder, 'report.json');
        const run = runCli([...args, '--json', json, '--no-progress'], { timeout: 60_000 });
        assert.notEqual(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
        assert.ok(!/\n\s+at /.test(run.stderr), run.stderr);
        assertNoPassword(password, [run.stdout, run.stderr, fs.existsSync(json) ? fs.readFileSync(json, 'utf8') : ''], args.join(' '));
      }
    });
});

describe('no password in the reports of a run on a real PostgreSQL server', { skip: birdDataMissing() || localClusterMissing() }, () => {
  let cluster: LocalCluster;
  before(() => {
    cluster = startLoadedCluster(DATABASES, ['--db', 'student_club']);
  });
  after(() => cluster?.stop());

  it('writes the terminal output, the JSON and the HTML report without it, however the URL held it', () => {
    const forms: [string, string][] = [
      [cluster.url.replace('postgres@', 'postgres:Sup3rSecretPw@'), 'Sup3rSecretPw'],
      [cluster.url.replace('postgres@', 'postgres:Sup3r%40Secret@'), 'Sup3r%40Secret'],
      [`${cluster.url}&password=An0therSecret`, 'An0therSecret'],
    ];
    for (const [url, password] of forms) {
      const folder = tempDir();
      const json = path.join(folder, 'report.json');
      const html = path.join(folder, 'report.html');
      const run = runCli(
        ['eval', '--db-url', url, '--questions', QUESTIONS, '--gold', PG_GOLD, '--predictions', PG_PREDICTIONS].concat([
          '--metrics',
          'ex',
          '--json',
          json,
          '--html',
          html,
          '--no-progress',
        ]),
        { timeout: 300_000 },
      );
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, /postgresql:\/\/postgres@localhost/);
      assertNoPassword(password, [run.stdout, run.stderr, fs.readFileSync(json, 'utf8'), fs.readFileSync(html, 'utf8')], url);
    }
  });
});
